import {
  blocksOf,
  CapTracker,
  crossings,
  DECODE,
  DONE,
  decodeTotals,
  FSeq,
  mod16,
  PREFILL,
  WAITING,
} from './fast-seq.ts';
import { MinHeap } from './heap.ts';
import { BLOCK_SIZE } from './kv-cache.ts';
import type { BatchTotals } from './perf-model.ts';
import {
  type EngineGauges,
  type EngineHooks,
  type EngineOptions,
  type FinishReason,
  type SimRequest,
  SimRequestError,
  type StepEngine,
  type StepInfo,
} from './types.ts';

export function fastEngineSupports(opts: EngineOptions): boolean {
  const width = 1 + (opts.spec?.draftTokens ?? 0);
  return (
    !opts.prefixCaching &&
    !opts.hostKv &&
    opts.chunkedPrefill !== false &&
    typeof opts.timer.stepTimeTotals === 'function' &&
    (opts.maxNumSeqs ?? 256) * width < (opts.maxNumBatchedTokens ?? 8192)
  );
}

/**
 * The fast engine's scheduler: engine.ts's continuous batching with the decodes kept as one group
 * (fast-engine.ts describes the model and adds event skipping). Subclassed, not used alone.
 */

export class FastScheduler implements StepEngine {
  readonly maxNumSeqs: number;
  readonly maxNumBatchedTokens: number;
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
  protected readonly byId = new Map<string, FSeq>();
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
  ) {
    if (!fastEngineSupports(opts)) throw new RangeError('the fast engine does not support this setup');
    this.numBlocks = opts.kvBlocks;
    this.free = opts.kvBlocks;
    this.maxNumSeqs = opts.maxNumSeqs ?? 256;
    this.maxNumBatchedTokens = opts.maxNumBatchedTokens ?? 8192;
    this.width = 1 + (opts.spec?.draftTokens ?? 0);
    this.al = opts.spec?.acceptanceLength ?? 1;
    this.topK = opts.timer.attentionTopK ?? Number.POSITIVE_INFINITY;
    const w = this.width;
    this.capP = new CapTracker(Math.ceil(this.topK - (w + 1) / 2), 'capP');
    this.capK = new CapTracker(this.topK * w - w, 'capK');
  }

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
    if (this.byId.has(req.id)) throw new SimRequestError(`request id '${req.id}' is already in the engine`);
    if (!(Number.isInteger(req.promptTokens) && req.promptTokens >= 1))
      throw new SimRequestError(`promptTokens must be an integer >= 1, got ${req.promptTokens}`);
    if (!(Number.isInteger(req.maxTokens) && req.maxTokens >= 1))
      throw new SimRequestError(`maxTokens must be an integer >= 1, got ${req.maxTokens}`);
    if (req.promptTokens + req.maxTokens > this.capacityTokens) {
      throw new SimRequestError(
        `prompt (${req.promptTokens}) + max tokens (${req.maxTokens}) exceeds the KV cache of ` +
          `${this.capacityTokens} tokens: raise gpu memory utilization or parallelism, or shorten the request`,
      );
    }
    let arrival = this.now;
    const at = atMs ?? this.clock?.();
    if (at !== undefined) {
      if (!this.pending && !this.hasWork()) this.advanceTo(at);
      arrival = this.pending ? Math.min(Math.max(at, this.now), this.pending.info.endMs) : this.now;
    }
    const stop = req.ignoreEos ? req.maxTokens : Math.min(req.maxTokens, req.stopAfter ?? req.maxTokens);
    const s = new FSeq(req, Math.max(1, stop), arrival);
    this.byId.set(req.id, s);
    this.waiting.push(s);
    if (this.wakers.length > 0) {
      const w = this.wakers;
      this.wakers = [];
      for (const f of w) f();
    }
    return arrival;
  }

  abort(id: string): boolean {
    const s = this.byId.get(id);
    if (!s) return false;
    if (s.state === DECODE) {
      this.free += blocksOf(this.resOf(s));
      this.dropDecode(s);
    } else if (s.state === PREFILL) {
      this.free += blocksOf(s.res);
      this.prefills.splice(this.prefills.indexOf(s), 1);
    } else {
      const i = this.waiting.indexOf(s, this.waitHead);
      if (i >= 0) this.waiting.splice(i, 1);
    }
    const output = s.state === DECODE ? s.outBase + this.T : s.output;
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
  protected readonly scratch: BatchTotals = { tokens: 0, pairs: 0, kvTokens: 0, seqs: 0 };

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

  /** Blocks-worth of tokens a decode holds now (before this step's growth). */
  protected resOf(s: FSeq): number {
    return s.fresh ? s.res : s.base + this.tRes + this.width;
  }

  beginStep(): StepInfo | null {
    if (this.pending) throw new Error('beginStep() called twice without commitStep()');
    if (!this.hasWork()) return null;
    const w = this.width;
    const T = this.T;
    let preempted = 0;
    let stopped = false;
    // Decodes: grow every one by the tokens it emitted last step (fresh ones: their first lookahead).
    if (this.alive > 0) {
      let need = crossings(this.cls, this.tRes, T - this.tRes);
      for (const f of this.fresh) need += blocksOf(f.base + T + w) - blocksOf(f.res);
      if (need <= this.free) this.free -= need;
      else {
        const r = this.growOneByOne();
        preempted += r.preempted;
        stopped = r.stopped;
      }
      for (const f of this.fresh) {
        if (f.state !== DECODE) continue;
        f.fresh = false;
        this.cls[mod16(f.base + w)]! += 1;
      }
      this.fresh = [];
      this.tRes = T;
    }
    const decodes = this.alive;
    let budget = this.maxNumBatchedTokens - decodes * w;
    const batch = this.batch;
    batch.length = 0;
    if (!stopped) {
      for (let i = 0; i < this.prefills.length && budget > 0; i++) {
        const p = this.prefills[i]!;
        const n = Math.min(p.length - p.computed, budget);
        const need = blocksOf(p.computed + n) - blocksOf(p.res);
        let self = false;
        while (need > this.free) {
          const v = this.lastRunning()!;
          this.preempt(v);
          preempted++;
          if (v === p) {
            self = true;
            break;
          }
        }
        if (self) break;
        this.free -= need;
        p.res = p.computed + n;
        p.scheduled = n;
        batch.push(p);
        budget -= n;
      }
    }
    while (
      preempted === 0 &&
      budget > 0 &&
      this.waiting.length > this.waitHead &&
      this.running < this.maxNumSeqs
    ) {
      const s = this.waiting[this.waitHead]!;
      const transferred = s.req.kvTransferred === true && s.preemptions === 0;
      const n = transferred ? 1 : Math.min(s.length, budget);
      const blocks = transferred ? blocksOf(s.length) : blocksOf(n);
      if (blocks > this.free) break;
      this.free -= blocks;
      this.waitHead++;
      s.computed = transferred ? s.length - 1 : 0;
      s.res = s.computed + n;
      s.scheduled = n;
      s.state = PREFILL;
      s.ord = this.ordNext++;
      this.prefills.push(s);
      batch.push(s);
      budget -= n;
    }
    if (this.waitHead > 1024 && this.waitHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitHead);
      this.waitHead = 0;
    }
    const info = this.timeStep(batch, decodes, preempted);
    this.pending = { info, decodes, batch };
    return info;
  }

  protected timeStep(batch: readonly FSeq[], decodes: number, preempted: number): StepInfo {
    const w = this.width;
    const T = this.T;
    const topK = this.topK;
    const totals = this.scratch;
    decodeTotals(totals, this.capP, this.capK, T, w, topK);
    totals.tokens = decodes * w;
    totals.seqs = decodes + batch.length;
    let prefill = 0;
    for (const s of batch) {
      const n = s.scheduled;
      totals.tokens += n;
      prefill += n;
      totals.pairs += n * Math.min(s.computed + (n + 1) / 2, topK);
      totals.kvTokens += Math.min(s.computed + n, topK * n);
    }
    const drafting = w > 1 ? decodes : 0;
    const durationMs = this.opts.timer.stepTimeTotals!(totals, drafting);
    return {
      startMs: this.now,
      durationMs,
      endMs: this.now + durationMs,
      seqs: totals.seqs,
      prefillTokens: prefill,
      decodeTokens: decodes * w,
      preempted,
      kvLoadMs: 0,
    };
  }

  /** The decode pass of engine.ts, one sequence at a time, for a step whose growth runs out of blocks. */
  protected growOneByOne(): { preempted: number; stopped: boolean } {
    const w = this.width;
    let preempted = 0;
    for (let i = 0; i < this.decs.length; i++) {
      const d = this.decs[i]!;
      if (d.state !== DECODE) continue;
      const need = blocksOf(d.base + this.T + w) - blocksOf(this.resOf(d));
      while (need > this.free) {
        const v = this.lastRunning()!;
        this.preempt(v);
        preempted++;
        if (v === d) return { preempted, stopped: true };
      }
      this.free -= need;
    }
    return { preempted, stopped: false };
  }

  protected lastRunning(): FSeq | undefined {
    if (this.prefills.length > 0) return this.prefills[this.prefills.length - 1];
    while (this.decs.length > 0 && this.decs[this.decs.length - 1]!.state !== DECODE) this.decs.pop();
    return this.decs[this.decs.length - 1];
  }

  protected preempt(s: FSeq): void {
    if (s.state === PREFILL) {
      this.prefills.pop();
      this.free += blocksOf(s.res);
    } else {
      this.free += blocksOf(this.resOf(s));
      s.output = s.outBase + this.T;
      this.dropDecode(s);
      this.decs.pop();
    }
    s.state = WAITING;
    s.computed = 0;
    s.res = 0;
    s.preemptions++;
    this.stats.preemptions++;
    if (this.waitHead > 0) this.waiting[--this.waitHead] = s;
    else this.waiting.unshift(s);
  }

  /** Takes a decode out of the group (finish, preemption, abort). */
  protected dropDecode(s: FSeq): void {
    s.gen++;
    this.alive--;
    this.capP.remove(s);
    this.capK.remove(s);
    if (s.fresh) {
      const i = this.fresh.indexOf(s);
      if (i >= 0) this.fresh.splice(i, 1);
      s.fresh = false;
    } else this.cls[mod16(s.base + this.width)]! -= 1;
    s.state = WAITING;
  }

  /** A request that finished its prefill (or recompute) joins the decodes. */
  protected joinDecode(s: FSeq): void {
    const T = this.T;
    s.state = DECODE;
    s.base = s.computed - T;
    s.outBase = s.output - T;
    s.fresh = true;
    s.gen++;
    this.alive++;
    this.decs.push(s);
    this.fresh.push(s);
    this.capP.add(s, T);
    this.capK.add(s, T);
    this.finishes.push(s.target - s.outBase, s.ord, s, s.gen);
  }

  commitStep(): void {
    const p = this.pending;
    if (!p) throw new Error('commitStep() without beginStep()');
    this.pending = null;
    this.now = p.info.endMs;
    this.stats.steps++;
    // engine.ts fires finishes in running order: decodes (admission order), then prefills.
    const done: FSeq[] = [];
    if (p.decodes > 0) {
      const e = this.emitCount(this.decodeSteps++);
      const T2 = this.T + e;
      let emitted = p.decodes * e;
      while (this.finishes.topKey() <= T2) {
        const gen = this.finishes.topTag();
        const s = this.finishes.pop()!;
        if (s.state !== DECODE || s.gen !== gen) continue;
        emitted -= T2 - (s.target - s.outBase);
        this.free += blocksOf(this.resOf(s));
        this.dropDecode(s);
        s.output = s.target;
        done.push(s);
      }
      if (done.length > 1) done.sort((a, b) => a.ord - b.ord);
      this.T = T2;
      this.stats.generation += emitted;
    }
    // The scheduled prefills are the first batch.length of them (engine.ts schedules in running order);
    // the ones still prefilling keep their places.
    const n = p.batch.length;
    const pre = this.prefills;
    let kept = 0;
    for (let i = 0; i < pre.length; i++) {
      const s = pre[i]!;
      if (i < n) s.computed += s.scheduled;
      if (i >= n || s.computed !== s.length) {
        pre[kept++] = s;
        continue;
      }
      if (s.firstTokenMs === null) {
        s.firstTokenMs = this.now;
        this.stats.prompt += s.req.promptTokens;
        this.hooks.onToken?.(s.req.id, s.output + 1, this.now);
      }
      s.output += 1;
      this.stats.generation += 1;
      if (s.output >= s.target) {
        this.free += blocksOf(s.res);
        done.push(s);
      } else this.joinDecode(s);
    }
    pre.length = kept;
    if (this.decs.length > 64 && this.alive * 2 < this.decs.length)
      this.decs = this.decs.filter((d) => d.state === DECODE);
    for (const s of done) {
      s.state = DONE;
      this.stats.finished++;
      this.finish(s, s.output >= s.req.maxTokens ? 'length' : 'stop');
    }
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

  protected finish(s: FSeq, reason: FinishReason): void {
    this.byId.delete(s.req.id);
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
}
