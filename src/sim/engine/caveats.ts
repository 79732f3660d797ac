import { type EngineFamily, engineFamily } from './engine-profile.ts';

/**
 * What a prediction is known to leave out that biases one of its figures, said with the figure: the engine
 * behaviours the step model does not have, each with the evidence that shows the bias. A prediction with a
 * caveat is still the model's number; the caveat says which way it errs.
 */

/**
 * TensorRT-LLM with DP-attention under the reference's recipes (`attention_dp_config: enable_balance,
 * timeout_iters 60, batching_wait_iters 0`): a rank's context waits until every rank has one and a free
 * slot, or 60 steps have passed. The engines here admit a prompt at the next step.
 */
export const TRT_DP_BALANCER_CAVEAT =
  "TTFT too low: TensorRT-LLM's attention-DP balancer (enable_balance, timeout_iters 60 in the reference's " +
  'recipes) holds a prompt until every rank has one, for up to 60 steps, which is not modelled ' +
  '(docs/sim-fidelity.md: 0.4–8.5 s measured against 0.06–0.44 s predicted on its 44 DP-attention rows, 6–80× too low); ' +
  'throughput, which that wait lowers, errs high by about the wait over E2E';

/** The caveats of a single-engine point (disaggregated points get none of these). */
export function pointCaveats(framework: string, dpAttn: boolean | null): string[] {
  const family: EngineFamily = engineFamily(framework);
  const out: string[] = [];
  if (family === 'trt' && dpAttn === true) out.push(TRT_DP_BALANCER_CAVEAT);
  return out;
}
