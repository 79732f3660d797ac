import type { SimSetup } from './config.ts';

/**
 * What a prediction is known to leave out that biases one of its figures, said with the figure: the engine
 * behaviours the step model does not have, each with the evidence that shows the bias. A prediction with a
 * caveat is still the model's number; the caveat says which way it errs.
 */

/**
 * TensorRT-LLM with DP-attention: its attention-DP balancer is modelled (dp-balancer.ts) with each request's
 * rank drawn at random and every held prompt admitted at once within the engine's whole budget, where the
 * engine admits per rank (about one prompt a rank a step under the MTP recipes' max_num_tokens) and asks the
 * balancer again for the rest. A backlog therefore drains faster here than there.
 */
export const TRT_DP_BALANCER_CAVEAT =
  "TTFT low by up to about 3x: TensorRT-LLM's attention-DP balancer is modelled with random ranks and held " +
  'prompts released together, not per rank (docs/sim-fidelity.md: measured over predicted 0.8-3.2x, median ' +
  '1.4x, on its 44 DP-attention rows)';

/** The caveats of a single engine's point: read off the setup the prediction ran, not the row again. */
export function pointCaveats(setup: SimSetup): string[] {
  return setup.dpBalanceTimeoutSteps !== undefined ? [TRT_DP_BALANCER_CAVEAT] : [];
}
