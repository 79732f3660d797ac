import type { SimRequest } from './types.ts';

/**
 * A request's scheduling state inside the engine. Its sequence is the prompt plus the tokens emitted so
 * far (`length`); `computed` of them have KV in the cache. Decoding means computed = length − 1 (the last
 * emitted token is the next input); a preempted request restarts at computed = 0 and recomputes.
 */
export class Seq {
  computed = 0;
  output = 0;
  /** KV blocks held, in sequence order (shared prefix-cache blocks first). */
  blocks: number[] = [];
  /** Leading prompt blocks already published in the prefix cache. */
  registered = 0;
  /** Prefix-cache hit at the first admission (−1: not admitted yet). */
  cachedTokens = -1;
  firstTokenMs: number | null = null;
  preemptions = 0;
  aborted = false;
  /** Tokens fed in the step in flight, and whether that step verifies drafts. */
  scheduled = 0;
  drafting = false;
  /** Its attention-DP rank where a DP balancer holds prompts (dp-balancer.ts); else 0. */
  rank = 0;
  constructor(
    readonly req: SimRequest,
    /** Output tokens at which it finishes (max tokens, or the simulated EOS). */
    readonly target: number,
    readonly arrivalMs: number,
  ) {}
  get length(): number {
    return this.req.promptTokens + this.output;
  }
}
