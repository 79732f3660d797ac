/**
 * Queue folding: the steady method's fast path past saturation, where the cost would otherwise grow with
 * the users.
 *
 * A closed loop of C users in front of an engine that can hold only R of them keeps C − R waiting in a FIFO
 * queue. While that queue never runs dry at an admission, the engine cannot tell C users from C − k: it
 * admits the same requests (the loop draws them in the same order) at the same steps, and each request only
 * waits k admissions longer for its turn. So the loop is simulated with fewer users, `users` (enough that
 * the queue stays non-empty), and the wait of the k users left out is added back, k / λ with λ the measured
 * completion rate — Little's law for the part of the queue not simulated. Throughput and every step are the
 * simulated ones; the queue's wait goes where the queue is: before the first token (an engine's waiting
 * queue, a prefill pool's), or after it (a decode pool's queue, behind the KV handoff), where it stretches
 * each request's TPOT by wait / (output − 1).
 *
 * The condition is checked, not assumed: the simulated queue must hold at least one request after every
 * admission of the measured window. Where it ran dry the fold is refused and the loop is run with every user
 * (a disaggregated point first tries once more with more users). So it is where the window preempted: the
 * engine then admits in bursts (fill, preempt, stall), and the wait of k admissions is no longer k / λ.
 */

/** Users simulated beyond the in-service estimate: its error and the queue's swing (relative, absolute). */
const HEADROOM = 1.5;
const HEADROOM_USERS = 32;
/**
 * Folding is not worth its check (and a possible rerun) unless it spares at least this share of the full
 * loop's completions (foldedUsers).
 */
const MIN_SAVING = 0.2;
/**
 * The most completions the steady method measures as two rounds of its users (predict.ts, defaultMeasured),
 * and so the fewest a folded loop measures where the full loop measures more (foldMeasured).
 */
export const MAX_MEASURED = 4096;

/** Where the folded queue sits, relative to the first token. */
export type FoldPlace = 'before-first-token' | 'after-first-token';

/** How a prediction folded its queue: the users it simulated and the wait added to each request. */
export interface QueueFold {
  /** The users simulated (for a pool of replicas, on the engine whose figures the prediction reports). */
  users: number;
  queueMs: number;
  place: FoldPlace;
}

/**
 * The users to simulate for `concurrency` users when at most about `inService` requests can be running
 * (an estimate: the check decides), or `concurrency` itself where folding would spare too few of the full
 * loop's completions (its warm-up of `concurrency` and the `measured` ones). A folded loop's cost is its
 * completions too (foldWarmup, foldMeasured): near half the users it spares none.
 */
export function foldedUsers(concurrency: number, inService: number, measured: number): number {
  const users = Math.ceil(HEADROOM * Math.max(1, inService)) + HEADROOM_USERS;
  const full = concurrency + measured;
  const folded = foldWarmup(users, concurrency) + foldMeasured(users, measured);
  return users < concurrency && full - folded >= MIN_SAVING * full ? users : concurrency;
}

/**
 * Completions a folded loop measures where the full loop would measure `measured`: whole rounds of its
 * users, at least MAX_MEASURED, at most `measured`. A full loop above 2,048 users measures one round of them
 * all, as its users stay in step round after round; a folded loop's rounds are of its own users, and a
 * window of whole ones sees each of them as often.
 */
export function foldMeasured(users: number, measured: number): number {
  return Math.min(measured, Math.ceil(MAX_MEASURED / users) * users);
}

/**
 * Requests an engine can run at once, about: its sequence cap, or as many as its KV cache holds at the
 * workload's mean footprint (the prompt and half the output; lengths drawn in [⌊L·r⌋, L]).
 */
export function inServiceEstimate(
  e: { capacityTokens: number; maxNumSeqs: number },
  w: { isl: number; osl: number; rangeRatio: number },
): number {
  const mean = (l: number) => (Math.max(1, Math.floor(l * w.rangeRatio)) + l) / 2;
  const footprint = mean(w.isl) + mean(w.osl) / 2;
  return Math.min(e.maxNumSeqs, Math.ceil(e.capacityTokens / footprint));
}

/**
 * Completions a folded loop discards before its window: two rounds of its users (the full loop's one round
 * of more users spans several generations of requests in service; one round of fewer still carries the
 * all-at-once start's wave), at most the full loop's.
 */
export function foldWarmup(users: number, concurrency: number): number {
  return Math.min(concurrency, 2 * users);
}

/** The wait of `left` users not simulated, ms: their admissions at `completions` per `windowMs`. */
export function foldWaitMs(left: number, completions: number, windowMs: number): number {
  return completions > 0 ? (left * windowMs) / completions : 0;
}

/**
 * The lowest queue length seen after an admission: fed `queued − arrivals since` after each step of the
 * window, it tells whether the queue ever ran dry (below 1).
 */
export class QueueWatch {
  low = Number.POSITIVE_INFINITY;
  see(queued: number): void {
    if (queued < this.low) this.low = queued;
  }
  get held(): boolean {
    return this.low >= 1;
  }
}
