import { DpBalancer } from './dp-balancer.ts';
import { blocksOf, CapTracker, DECODE, DONE, FSeq, PREFILL } from './fast-seq.ts';
import { MinHeap } from './heap.ts';
import { BLOCK_SIZE } from './kv-cache.ts';
import type { BatchTotals } from './perf-model.ts';
import { Prng } from './prng.ts';
import { AcceptanceSampler } from './spec-decode.ts';
import {
  checkRequest,
  type EngineGauges,
  type EngineHooks,
  type EngineOptions,
  type FinishReason,
  type SimRequest,
  type StepEngine,
  type StepInfo,
  stopOf,
} from './types.ts';

/**
 * Speculative decoding's acceptance in the fast engine. each: every decode draws per step in running order
 * from the seeded stream, as engine.ts (the same results; O(decodes) per step). shared: one acceptance
 * sequence for all decodes (lockstep; no spread between requests). spread: lockstep on the shared sequence,
 * but each decode finishes after the steps its own draws take to reach its target, drawn once as it joins
 * (the per-request spread of TPOT and finish times, at O(1) per step; not the same stream as engine.ts).
 */
export type Draws = 'each' | 'shared' | 'spread';

export function fastEngineSupports(opts: EngineOptions): boolean {
  const width = 1 + (opts.spec?.draftTokens ?? 0);
  return (
    !opts.prefixCaching &&
    !opts.hostKv &&
    opts.chunkedPrefill !== false &&
    typeof opts.timer.stepTimeTotals === 'function' &&
    // One token per decode: a step's decodes are at most the tokens the step before scheduled, so they
    // always fit the budget, whatever maxNumSeqs allows. Wider decodes (draft tokens) may not, unless
    // decodes sit outside the budget.
    (opts.decodesInBudget === false ||
      width === 1 ||
      (opts.maxNumSeqs ?? 256) * width < (opts.maxNumBatchedTokens ?? 8192))
  );
}

/**
 * The fast engine's state and its engine interface (submit, abort, gauges, pacing); the scheduling
 * itself is FastScheduler (fast-scheduler.ts), event skipping FastEngine (fast-engine.ts). Only predictions
 * run it, whose loops make every request id unique and do not abort: it keeps no map of ids (its two map
 * operations a request cost about 8 % of the whole matrix's time), does not check them for duplicates, and
 * finds a request to abort by a scan.
 */
export abstract class FastBase implements StepEngine {
  readonly maxNumSeqs: number;
  readonly maxNumBatchedTokens: number;
  /** Whether decodes take from the token budget (EngineOptions.decodesInBudget). */
  protected readonly decodesInBudget: boolean;
  protected readonly numBlocks: number;
  protected free: number;
  /** Tokens a decode feeds per step (1 + draft tokens). */
  protected readonly width: number;
  protected readonly al: number;
  protected readonly topK: number;
  protected readonly waiting: FSeq[] = [];
  protected waitHead = 0;
  protected prefills: FSeq[] = [];
  /** Decodes in running order; entries no longer decoding are skipped (compacted now and then). */
  protected decs: FSeq[] = [];
  protected alive = 0;
  protected fresh: FSeq[] = [];
  /** Steady decodes per residue class of (base + width) mod 16. */
  protected readonly cls = new Float64Array(BLOCK_SIZE);
  protected readonly finishes = new MinHeap<FSeq>();
  protected readonly capP: CapTracker;
  protected readonly capK: CapTracker;
  /** Token clock, and its value when the steady decodes' blocks were last grown. */
  protected T = 0;
  protected tRes = 0;
  protected decodeSteps = 0;
  protected ordNext = 0;
  protected pending: { info: StepInfo; decodes: number; batch: FSeq[] } | null = null;
  protected clock: (() => number) | null = null;
  protected wakers: (() => void)[] = [];
  protected now = 0;
  protected readonly stats = { preemptions: 0, prompt: 0, generation: 0, finished: 0, steps: 0 };

  constructor(
    protected readonly opts: EngineOptions,
    public hooks: EngineHooks = {},
    /** Requests arrive only from onFinish callbacks (a closed loop on this engine alone). */
    protected readonly closed = false,
    /** Speculative decoding's acceptance draws: each, shared or spread (Draws). */
    draws: Draws = 'each',
  ) {
    if (!fastEngineSupports(opts)) throw new RangeError('the fast engine does not support this setup');
    this.numBlocks = opts.kvBlocks;
    this.free = opts.kvBlocks;
    this.maxNumSeqs = opts.maxNumSeqs ?? 256;
    this.maxNumBatchedTokens = opts.maxNumBatchedTokens ?? 8192;
    this.decodesInBudget = opts.decodesInBudget ?? true;
    this.width = 1 + (opts.spec?.draftTokens ?? 0);
    this.al = opts.spec?.acceptanceLength ?? 1;
    this.topK = opts.timer.attentionTopK ?? Number.POSITIVE_INFINITY;
    const w = this.width;
    this.capP = new CapTracker(Math.ceil(this.topK - (w + 1) / 2), 'capP');
    this.capK = new CapTracker(this.topK * w - w, 'capK');
    this.sampler =
      opts.spec && draws === 'each' ? new AcceptanceSampler(opts.spec, new Prng(opts.seed ?? 0)) : null;
    this.stepsSampler =
      opts.spec && draws === 'spread' ? new AcceptanceSampler(opts.spec, new Prng(opts.seed ?? 0)) : null;
    this.balancer = opts.dpBalance ? new DpBalancer(opts.dpBalance, opts.seed ?? 0) : null;
  }

  /** TensorRT-LLM's attention-DP balancer, as engine.ts has it (dp-balancer.ts); null: admit at once. */
  protected readonly balancer: DpBalancer | null;

  /** Spread draws: each decode's steps to its target, drawn when it joins the lockstep group. */
  private readonly stepsSampler: AcceptanceSampler | null;

  /**
   * The token clock T at which a decode joining the lockstep group now finishes. Shared: when its own
   * tokens (outBase + T) reach the target. Spread: after as many decode steps as its own acceptance draws
   * take to emit the tokens it has left; T after S decode steps is ⌊S·AL⌋ (emitCount telescopes).
   */
  protected finishClock(s: FSeq): number {
    const sampler = this.stepsSampler;
    if (!sampler) return s.target - s.outBase;
    return Math.floor((this.decodeSteps + sampler.stepsToEmit(s.target - s.output)) * this.al);
  }

  /** A lockstep decode's output now: its own tokens on the clock, short of a target it has not reached. */
  protected lockstepOutput(s: FSeq): number {
    return Math.min(s.outBase + this.T, s.target - 1);
  }

  /** Per-decode acceptance draws (engine.ts's stream); null: lockstep decodes. */
  protected readonly sampler: AcceptanceSampler | null;

  get nowMs(): number {
    return this.now;
  }
  get kvUsage(): number {
    return 1 - this.free / this.numBlocks;
  }
  get capacityTokens(): number {
    return this.numBlocks * BLOCK_SIZE - (this.width - 1);
  }
  get load(): number {
    return this.running + this.waiting.length - this.waitHead;
  }
  get queued(): number {
    return this.waiting.length - this.waitHead;
  }
  protected get running(): number {
    return this.alive + this.prefills.length;
  }
  /** No prefix cache: no block is ever held for reuse. */
  holdsBlock(_hash: string): boolean {
    return false;
  }
  hasWork(): boolean {
    return this.running > 0 || this.waiting.length > this.waitHead;
  }

  submit(req: SimRequest, atMs?: number): number {
    checkRequest(req, this.capacityTokens);
    let arrival = this.now;
    const at = atMs ?? this.clock?.();
    if (at !== undefined) {
      if (!this.pending && !this.hasWork()) this.advanceTo(at);
      arrival = this.pending ? Math.min(Math.max(at, this.now), this.pending.info.endMs) : this.now;
    }
    const s = new FSeq(req, stopOf(req), arrival);
    this.waiting.push(s);
    if (this.balancer) s.rank = this.balancer.arrive();
    if (this.wakers.length > 0) {
      const w = this.wakers;
      this.wakers = [];
      for (const f of w) f();
    }
    return arrival;
  }

  abort(id: string): boolean {
    const s = this.find(id);
    if (!s) return false;
    if (s.state === DECODE) {
      // With per-decode draws a step in flight has grown the decode to computed + width already.
      const held = this.pending && this.sampler ? s.computed + this.width : this.resOf(s);
      this.free += blocksOf(held);
      this.dropDecode(s);
    } else if (s.state === PREFILL) {
      this.free += blocksOf(s.res);
      this.prefills.splice(this.prefills.indexOf(s), 1);
    } else {
      const i = this.waiting.indexOf(s, this.waitHead);
      if (i >= 0) {
        this.waiting.splice(i, 1);
        this.balancer?.left(s.rank);
      }
    }
    const output = s.state === DECODE && !this.sampler ? this.lockstepOutput(s) : s.output;
    s.state = DONE;
    s.output = output;
    this.finish(s, 'abort');
    return true;
  }

  advanceTo(ms: number): void {
    if (!this.pending && !this.hasWork() && ms > this.now) this.now = ms;
  }
  waitForWork(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }
  attachClock(clock: (() => number) | null): void {
    if (clock && this.clock) throw new Error('the engine is already driven in real time');
    this.clock = clock;
  }
  /** Tokens every decode emits at decode step s: 1, or the shared acceptance sequence with spec decoding. */
  protected emitCount(s: number): number {
    if (this.width === 1) return 1;
    return Math.max(1, Math.min(this.width, Math.floor((s + 1) * this.al) - Math.floor(s * this.al)));
  }
  /** The step in flight's scheduled prefills (reused: steps alternate begin, commit). */
  protected readonly batch: FSeq[] = [];
  /** The totals of the step being timed (reused). */
  protected readonly scratch: BatchTotals = {
    tokens: 0,
    pairs: 0,
    prefillPairs: 0,
    prefillTokens: 0,
    prefillChunks: 0,
    queued: 0,
    kvTokens: 0,
    seqs: 0,
  };

  step(): StepInfo | null {
    const info = this.beginStep();
    if (info) this.commitStep();
    return info;
  }

  runUntilIdle(maxSteps = Number.POSITIVE_INFINITY): number {
    let n = 0;
    while (n < maxSteps && this.step()) n++;
    return n;
  }
  start(): void {
    if (!this.pending && this.hasWork()) this.beginStep();
  }
  nextDueMs(): number | null {
    return this.pending?.info.endMs ?? null;
  }
  fire(ms: number): void {
    if (this.pending && this.pending.info.endMs <= ms) this.commitStep();
  }

  gauges(): EngineGauges {
    const s = this.stats;
    return {
      nowMs: this.now,
      running: this.running,
      waiting: this.waiting.length - this.waitHead,
      kvUsage: this.kvUsage,
      kvCapacityTokens: this.numBlocks * BLOCK_SIZE,
      prefixCacheHitRate: 0,
      prefixCacheQueries: 0,
      prefixCacheHits: 0,
      hostKv: null,
      preemptionsTotal: s.preemptions,
      promptTokensTotal: s.prompt,
      generationTokensTotal: s.generation,
      requestsFinishedTotal: s.finished,
      stepsTotal: s.steps,
    };
  }

  /** The live request with this id: waiting, prefilling or decoding (O(requests); aborts are rare). */
  private find(id: string): FSeq | undefined {
    for (let i = this.waitHead; i < this.waiting.length; i++)
      if (this.waiting[i]!.req.id === id) return this.waiting[i];
    for (const s of this.prefills) if (s.req.id === id) return s;
    for (const s of this.decs) if (s.state === DECODE && s.req.id === id) return s;
    return undefined;
  }

  protected finish(s: FSeq, reason: FinishReason): void {
    this.hooks.onFinish?.(s.req.id, {
      reason,
      promptTokens: s.req.promptTokens,
      outputTokens: s.output,
      cachedTokens: 0,
      arrivalMs: s.arrivalMs,
      firstTokenMs: s.firstTokenMs,
      finishMs: this.now,
      preemptions: s.preemptions,
    });
  }

  abstract beginStep(): StepInfo | null;
  abstract commitStep(): void;
  /** Blocks-worth of tokens a decode holds now (before this step's growth). */
  protected abstract resOf(s: FSeq): number;
  /** Takes a decode out of the group (finish, preemption, abort). */
  protected abstract dropDecode(s: FSeq): void;
}
