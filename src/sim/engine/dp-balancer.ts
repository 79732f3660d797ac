import { Prng } from './prng.ts';

/**
 * TensorRT-LLM's attention-DP balancer (`attention_dp_config: enable_balance`, as the reference's recipes
 * set it with `timeout_iters: 60` and `batching_wait_iters: 0`; the logic of its executor's
 * `_balance_adp_requests`): a step schedules the waiting prompts only when every DP rank has one, or when the
 * balancer has waited `timeoutSteps` steps, or when no rank has a decode running. The waiting counter runs on
 * every step that holds, whether or not a prompt waits, so a lone prompt waits until the next time out: on
 * average half of it.
 *
 * Each request goes to a rank drawn at random when it arrives (seeded: both engines draw the same ranks in
 * the same order), as the rank with the slot its finished request freed would be. The engines' queues stay
 * FIFO: when the balancer opens, they admit from the head as their budget allows.
 */

export interface DpBalanceOptions {
  ranks: number;
  timeoutSteps: number;
}

export class DpBalancer {
  private readonly waitingOn: Int32Array;
  /** Ranks with at least one prompt waiting. */
  private covered = 0;
  /** Steps held since the balancer last opened. */
  private held = 0;
  private readonly rng: Prng;

  constructor(
    readonly opts: DpBalanceOptions,
    seed: number,
  ) {
    if (!Number.isInteger(opts.ranks) || opts.ranks < 1)
      throw new RangeError(`DP balancer: ranks must be a positive integer, got ${opts.ranks}`);
    if (!Number.isInteger(opts.timeoutSteps) || opts.timeoutSteps < 0)
      throw new RangeError(
        `DP balancer: timeoutSteps must be a non-negative integer, got ${opts.timeoutSteps}`,
      );
    this.waitingOn = new Int32Array(opts.ranks);
    this.rng = new Prng(seed ^ 0x5bd1e995);
  }

  /** The rank of a newly arrived request. */
  rankOf(): number {
    return Math.min(this.opts.ranks - 1, Math.floor(this.rng.next() * this.opts.ranks));
  }

  /** A new request joins the queue: its rank, drawn and counted. */
  arrive(): number {
    const rank = this.rankOf();
    this.queued(rank);
    return rank;
  }

  /** A prompt of `rank` joined the queue (an arrival, or a preempted request back at its head). */
  queued(rank: number): void {
    const n = this.waitingOn[rank]!;
    this.waitingOn[rank] = n + 1;
    if (n === 0) this.covered++;
  }

  /** A prompt of `rank` left the queue (admitted, or aborted while waiting). */
  left(rank: number): void {
    const n = this.waitingOn[rank]! - 1;
    this.waitingOn[rank] = n;
    if (n === 0) this.covered--;
  }

  /**
   * Asked once per step before admission: whether the step may admit waiting prompts. `decoding`: some
   * request is running (TensorRT-LLM opens at once when no rank has a generation request).
   */
  open(decoding: boolean): boolean {
    if (this.covered === this.opts.ranks || this.held >= this.opts.timeoutSteps || !decoding) {
      this.held = 0;
      return true;
    }
    this.held++;
    return false;
  }

  /**
   * `steps` steps in a row that admitted nothing and changed no queue (the fast engine's skipped decode
   * steps), each asked `open(true)`: the counter as those calls would leave it.
   */
  skip(steps: number): void {
    if (steps <= 0) return;
    if (this.covered === this.opts.ranks) {
      this.held = 0;
      return;
    }
    // From `held`, each call adds one until a call finds it at timeoutSteps and resets it: a cycle of T + 1.
    this.held = (this.held + steps) % (this.opts.timeoutSteps + 1);
  }

  /** Steps held since it last opened (for tests and --explain). */
  get heldSteps(): number {
    return this.held;
  }
}
