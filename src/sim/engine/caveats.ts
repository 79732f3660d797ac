import { type EngineFamily, engineFamily } from './engine-profile.ts';

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

/** The caveats of a single-engine point (disaggregated points get none of these). */
export function pointCaveats(framework: string, dpAttn: boolean | null): string[] {
  const family: EngineFamily = engineFamily(framework);
  const out: string[] = [];
  if (family === 'trt' && dpAttn === true) out.push(TRT_DP_BALANCER_CAVEAT);
  return out;
}
