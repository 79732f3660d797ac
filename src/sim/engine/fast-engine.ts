import type { Draws } from './fast-base.ts';
import { FastScheduler, fastEngineSupports } from './fast-scheduler.ts';
import { blocksOf, crossings, DECODE, decodeTotals } from './fast-seq.ts';
import type { BatchTotals } from './perf-model.ts';
import type { EngineHooks, EngineOptions, StepInfo, StepTimer } from './types.ts';

export { fastEngineSupports } from './fast-scheduler.ts';

/**
 * The simulated engine's scheduler (engine.ts) with its decoding sequences kept as one group, so a step
 * costs O(1) however many sequences run (plus O(log n) per request for its admission and finish): the
 * prediction fast path.
 *
 * Every running decode advances by the same number of tokens per step, so the group is described by sums:
 * its context total (for the roofline's attention pairs and KV reads), a token clock T (a decode's computed
 * tokens are its `base + T`), block-boundary crossings counted per residue class of 16, and a heap of finish
 * clocks. Prefilling requests, admission, preemption (newest first, as engine.ts) and the KV block count
 * follow engine.ts step for step; a step that has to preempt walks the group one sequence at a time.
 *
 * It schedules exactly what SimEngine schedules, so it gives the same step times and the same results. With
 * speculative decoding every decode emits a random count. 'each' keeps every decode's context and draws its
 * acceptance from engine.ts's seeded stream in running order: O(decodes) per step, still the same results.
 * 'shared' (`--fast`) draws one sequence of emitted counts for all decodes, whose mean is the acceptance
 * length (⌊(s+1)·AL⌋ − ⌊s·AL⌋ at decode step s): lockstep again, the same expected tokens per step, without
 * the per-request spread. 'spread' (the default) runs that lockstep but finishes each decode after the steps
 * its own draws take to reach its target (drawn once, AcceptanceSampler.stepsToEmit): each request's TPOT
 * and finish time spread as under 'each', at lockstep's cost; the draws are not engine.ts's. Hooks: onToken
 * reports a request's first token only (predictors need nothing else); onFinish as engine.ts.
 *
 * Supported setups (`fastEngineSupports`): no prefix caching, no host KV tier, chunked prefill, and every
 * decode of a full batch fitting the token budget: one token per decode, decodes outside the budget (SGLang),
 * or maxNumSeqs × (1 + draft tokens) < maxNumBatchedTokens.
 */

/**
 * Which engine a prediction runs on: the fast engine wherever it supports the setup, or the full
 * co-simulation. The fast choices differ only in speculative decoding's acceptance draws (Draws,
 * fast-base.ts):
 * - auto (default): spread, each decode's steps to its target drawn once as it joins: the full
 *   co-simulation's distribution at O(1) per step, not its random stream, so the results agree within its
 *   seed-to-seed spread;
 * - same: each, per decode per step from engine.ts's stream: exact's results, at O(decodes) per step;
 * - fast: shared, one acceptance sequence for every decode (no per-request spread);
 * - exact: the full co-simulation (SimEngine), every sequence every step.
 * Without speculative decoding auto, same and fast are one engine, with exact's results.
 */
export type EngineChoice = 'auto' | 'same' | 'fast' | 'exact';
export const ENGINE_CHOICES: readonly EngineChoice[] = ['auto', 'same', 'fast', 'exact'];
const DRAWS: Record<Exclude<EngineChoice, 'exact'>, Draws> = { auto: 'spread', same: 'each', fast: 'shared' };

export function useFastEngine(choice: EngineChoice, opts: EngineOptions): boolean {
  return choice !== 'exact' && fastEngineSupports(opts);
}

/** The fast engine for a choice that picks it (see useFastEngine). */
export function fastEngineFor(
  choice: EngineChoice,
  opts: EngineOptions,
  hooks: EngineHooks,
  closed = false,
): FastEngine {
  // exact never gets here (useFastEngine); were it asked, it would get exact's draws.
  return new FastEngine(opts, hooks, closed, DRAWS[choice === 'exact' ? 'same' : choice]);
}

export class FastEngine extends FastScheduler {
  /** One step, then the decode-only steps after it that nothing can change (skipDecodes). */
  override step(): StepInfo | null {
    const info = this.beginStep();
    if (!info) return null;
    this.commitStep();
    this.skipDecodes();
    return info;
  }

  /**
   * Event skipping: runs the decode-only steps that follow while nothing can change the batch — no
   * prefill or fresh decode, no admission possible (the batch is full, the queue's head does not fit the
   * free blocks, with closed arrivals nothing waits, or with open ones nothing waits and nothing arrives
   * before quietUntilMs), and the step neither finishes a request nor runs out of blocks — at O(16) each.
   * It stops before the first step that would; that one runs normally. A co-simulation sees the clock
   * jump: arrivals meanwhile only queue, as they would step by step.
   */
  private skipDecodes(): void {
    if (this.sampler) return;
    if (this.alive === 0 || this.prefills.length > 0 || this.fresh.length > 0) return;
    const until = this.skipUntil();
    if (!(this.now < until)) return;
    const w = this.width;
    const D = this.alive;
    const t = this.scratch;
    t.tokens = D * w;
    t.seqs = D;
    // Decode-only steps: no prefill share (decodeTotals writes the decodes' sums).
    t.prefillPairs = 0;
    t.prefillTokens = 0;
    t.prefillChunks = 0;
    t.queued = 0;
    const drafting = w > 1 ? D : 0;
    const timer = this.opts.timer;
    const from = this.stats.steps;
    this.skipSteps(until, t, drafting, timer);
    // Each skipped step asked the balancer as a step would, and admitted nothing.
    this.balancer?.skip(this.stats.steps - from);
  }

  private skipSteps(until: number, t: BatchTotals, drafting: number, timer: StepTimer): void {
    const w = this.width;
    const D = this.alive;
    while (this.now < until) {
      const T = this.T;
      const e = this.emitCount(this.decodeSteps);
      if (this.nextFinish() <= T + e) return;
      const need = crossings(this.cls, this.tRes, T - this.tRes);
      if (need > this.free) return;
      this.free -= need;
      this.tRes = T;
      decodeTotals(t, this.capP, this.capK, T, w, this.topK);
      this.now += timer.stepTimeTotals!(t, drafting);
      this.T = T + e;
      this.decodeSteps++;
      this.stats.steps++;
      this.stats.generation += D * e;
    }
  }

  /** Open arrivals: see StepEngine.quietUntilMs. */
  quietUntilMs = Number.NEGATIVE_INFINITY;

  /** The time before which decode steps may be skipped: no waiting request can be admitted until then. */
  private skipUntil(): number {
    if (this.running >= this.maxNumSeqs) return Number.POSITIVE_INFINITY;
    if (this.waiting.length === this.waitHead)
      return this.closed ? Number.POSITIVE_INFINITY : this.quietUntilMs;
    const s = this.waiting[this.waitHead]!;
    const inBudget = this.decodesInBudget;
    const budget = this.maxNumBatchedTokens - (inBudget ? this.alive * this.width : 0);
    const transferred = s.req.kvTransferred === true && s.preemptions === 0;
    const blocked = transferred
      ? (inBudget && budget <= 0) || blocksOf(s.length) > this.free
      : budget <= 0 || blocksOf(Math.min(s.length, budget)) > this.free;
    return blocked ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  }

  /** The lowest live finish clock (stale heap entries dropped). */
  private nextFinish(): number {
    for (;;) {
      const top = this.finishes.top();
      if (!top || (top.state === DECODE && top.gen === this.finishes.topTag())) return this.finishes.topKey();
      this.finishes.pop();
    }
  }
}
