import { DpBalancer } from './dp-balancer.ts';
import { HostTier } from './host-tier.ts';
import { BLOCK_SIZE, type BlockEvents, BlockPool } from './kv-cache.ts';
import { type Paced, Pacer, type PacerOptions } from './pacer.ts';
import type { BatchEntry } from './perf-model.ts';
import { Prng } from './prng.ts';
import { Seq } from './seq.ts';
import { AcceptanceSampler, validateSpec } from './spec-decode.ts';
import {
  checkRequest,
  type EngineGauges,
  type EngineHooks,
  type EngineOptions,
  type FinishReason,
  type SimRequest,
  SimRequestError,
  type StepEngine,
  type StepInfo,
  stopOf,
} from './types.ts';

export type {
  EngineGauges,
  EngineHooks,
  EngineOptions,
  FinishInfo,
  FinishReason,
  SimRequest,
  StepInfo,
  StepTimer,
} from './types.ts';
export { SimRequestError } from './types.ts';

/**
 * The simulated engine: vLLM-style continuous batching over a virtual clock (ms).
 *
 * Each step (vLLM V1 scheduler order): running requests first, oldest first — decodes take 1 token (1 + k
 * with speculative decoding), unfinished prefills the next chunk within the token budget; when KV blocks
 * run out the newest running request is preempted (blocks freed, recomputed later: it goes back to the
 * front of the queue). Then, if nothing was preempted, waiting requests are admitted FIFO while
 * `maxNumSeqs`, the token budget and free blocks allow, skipping their prefix-cache hits. The step's
 * duration comes from the step timer (the roofline model); tokens are emitted at the step's end.
 *
 * Drive it fast with `step()` / `runUntilIdle()` (pure simulation), or in scaled real time with a Pacer
 * (`runRealtime({ timeScale })`, pacer.ts); or split a step with `beginStep()` / `commitStep()` yourself.
 */

export class SimEngine implements Paced, StepEngine {
  readonly blockSize = BLOCK_SIZE;
  readonly maxNumSeqs: number;
  readonly maxNumBatchedTokens: number;
  private readonly decodesInBudget: boolean;
  private readonly pool: BlockPool;
  private readonly host: HostTier | null;
  /** Host → GPU copy time of the requests admitted in the step being scheduled. */
  private loadMs = 0;
  private readonly sampler: AcceptanceSampler | null;
  private readonly balancer: DpBalancer | null;
  private readonly draftTokens: number;
  private readonly waiting: Seq[] = [];
  private running: Seq[] = [];
  private readonly byId = new Map<string, Seq>();
  private pending: { info: StepInfo; batch: Seq[] } | null = null;
  private clock: (() => number) | null = null;
  private wakers: (() => void)[] = [];
  private now = 0;
  private readonly stats = {
    preemptions: 0,
    prompt: 0,
    generation: 0,
    finished: 0,
    steps: 0,
    queries: 0,
    hits: 0,
    hostQueries: 0,
    hostHits: 0,
  };

  constructor(
    private readonly opts: EngineOptions,
    public hooks: EngineHooks = {},
  ) {
    if (opts.hostKv && !opts.prefixCaching) throw new RangeError('the host KV tier needs prefix caching');
    this.host = opts.hostKv ? new HostTier(opts.hostKv) : null;
    const host = this.host;
    this.pool = new BlockPool(opts.kvBlocks, host ? (hash) => host.store(hash) : undefined);
    this.maxNumSeqs = opts.maxNumSeqs ?? 256;
    this.maxNumBatchedTokens = opts.maxNumBatchedTokens ?? 8192;
    this.decodesInBudget = opts.decodesInBudget ?? true;
    if (opts.spec) validateSpec(opts.spec);
    this.sampler = opts.spec ? new AcceptanceSampler(opts.spec, new Prng(opts.seed ?? 0)) : null;
    this.balancer = opts.dpBalance ? new DpBalancer(opts.dpBalance, opts.seed ?? 0) : null;
    this.draftTokens = opts.spec?.draftTokens ?? 0;
    if (this.maxNumBatchedTokens < 1 + this.draftTokens)
      throw new RangeError('maxNumBatchedTokens too small');
  }

  get nowMs(): number {
    return this.now;
  }

  /** Whether the GPU KV cache holds the block of this prefix hash (a router's KV-event view). */
  holdsBlock(hash: string): boolean {
    return this.pool.holds(hash);
  }

  /** Reports the prefix blocks this engine caches and evicts from now on (`GET /infx/kv-events`). */
  watchBlocks(events: BlockEvents): void {
    this.pool.watch(events);
  }

  /** Fraction of KV blocks held by requests (as gauges().kvUsage, without building the gauges). */
  get kvUsage(): number {
    return this.pool.usage();
  }

  /** Requests running plus waiting (what least-loaded routing compares). */
  get load(): number {
    return this.running.length + this.waiting.length;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Largest prompt + output a single request may need (the whole KV cache). */
  get capacityTokens(): number {
    return this.pool.numBlocks * BLOCK_SIZE - this.draftTokens;
  }

  hasWork(): boolean {
    return this.running.length > 0 || this.waiting.length > 0;
  }

  /**
   * Queues a request and returns its arrival time: `atMs` when given (a paced event at that simulated
   * time), else now (in real-time mode: the attached clock's time). An idle engine's clock moves to it.
   */
  submit(req: SimRequest, atMs?: number): number {
    if (this.byId.has(req.id)) throw new SimRequestError(`request id '${req.id}' is already in the engine`);
    checkRequest(req, this.capacityTokens);
    if (this.opts.chunkedPrefill === false && req.promptTokens + req.maxTokens > this.maxNumBatchedTokens) {
      // Without chunking a (re)computed prompt must fit one step, as vLLM's max_num_batched_tokens >= max_model_len.
      throw new SimRequestError(
        `prompt + max tokens (${req.promptTokens + req.maxTokens}) exceeds max-num-batched-tokens ` +
          `(${this.maxNumBatchedTokens}) with chunked prefill off`,
      );
    }
    let arrival = this.now;
    const at = atMs ?? this.clock?.();
    if (at !== undefined) {
      if (!this.pending && !this.hasWork()) this.advanceTo(at);
      arrival = this.pending ? Math.min(Math.max(at, this.now), this.pending.info.endMs) : this.now;
    }
    const seq = new Seq(req, stopOf(req), arrival);
    this.byId.set(req.id, seq);
    this.waiting.push(seq);
    if (this.balancer) seq.rank = this.balancer.arrive();
    if (this.wakers.length > 0) {
      const w = this.wakers;
      this.wakers = [];
      for (const f of w) f();
    }
    return arrival;
  }

  /** Removes a request (client went away); fires onFinish with reason 'abort'. False when unknown. */
  abort(id: string): boolean {
    const seq = this.byId.get(id);
    if (!seq) return false;
    seq.aborted = true;
    this.pool.release(seq.blocks);
    seq.blocks = [];
    this.remove(seq);
    this.finish(seq, 'abort', this.now);
    return true;
  }

  /** Moves the idle clock forward (no effect while requests are in flight or when `ms` is in the past). */
  advanceTo(ms: number): void {
    if (!this.pending && !this.hasWork() && ms > this.now) this.now = ms;
  }

  /** Resolves at the next submit (for drivers waiting on an idle engine). */
  waitForWork(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }

  /** Real-time mode: submit() stamps arrivals from this virtual clock. */
  attachClock(clock: (() => number) | null): void {
    if (clock && this.clock) throw new Error('the engine is already driven in real time');
    this.clock = clock;
  }

  /** One whole step at once (schedule, advance the clock, emit): the fast simulation path. */
  step(): StepInfo | null {
    const info = this.beginStep();
    if (info) this.commitStep();
    return info;
  }

  /** Steps until nothing is queued or running (or maxSteps); returns the steps taken. */
  runUntilIdle(maxSteps = Number.POSITIVE_INFINITY): number {
    let n = 0;
    while (n < maxSteps && this.step()) n++;
    return n;
  }

  /** Runs in real time scaled by timeScale until the signal aborts (pacer.ts). */
  runRealtime(options: PacerOptions, pacer = new Pacer(options)): Promise<void> {
    return pacer.run(this);
  }

  /** Paced: begins a step when there is work and none is in progress. */
  start(): void {
    if (!this.pending && this.hasWork()) this.beginStep();
  }

  /** Paced: the end of the step in progress. */
  nextDueMs(): number | null {
    return this.pending?.info.endMs ?? null;
  }

  /** Paced: completes the step in progress when it ends by `ms`. */
  fire(ms: number): void {
    if (this.pending && this.pending.info.endMs <= ms) this.commitStep();
  }

  /** Schedules the next step and fixes its duration; tokens come with commitStep(). Null when idle. */
  beginStep(): StepInfo | null {
    if (this.pending) throw new Error('beginStep() called twice without commitStep()');
    if (!this.hasWork()) return null;
    let budget = this.maxNumBatchedTokens;
    this.loadMs = 0;
    const batch: Seq[] = [];
    let preempted = 0;
    const inBudget = this.decodesInBudget;
    for (let i = 0; i < this.running.length && (budget > 0 || !inBudget); ) {
      const seq = this.running[i]!;
      const need = seq.length - seq.computed;
      const decoding = need === 1 && seq.output > 0;
      const w = 1 + this.draftTokens;
      let n = decoding ? (inBudget ? Math.min(w, budget) : w) : Math.min(need, budget);
      if (!decoding && n < need && this.opts.chunkedPrefill === false) n = 0;
      if (n === 0) {
        i++;
        continue;
      }
      let victim: Seq | undefined;
      while (!this.grow(seq, seq.computed + n)) {
        victim = this.running[this.running.length - 1]!;
        this.preempt(victim);
        preempted++;
        if (victim === seq) break;
      }
      if (victim === seq) break;
      seq.scheduled = n;
      seq.drafting = decoding && n > 1;
      batch.push(seq);
      if (!decoding || inBudget) budget -= n;
      i++;
    }
    const open = this.balancer?.open(this.running.length > 0) ?? true; // every step (dp-balancer.ts)
    while (
      open &&
      preempted === 0 &&
      (budget > 0 || !inBudget) &&
      this.waiting.length > 0 &&
      this.running.length < this.maxNumSeqs
    ) {
      const seq = this.waiting[0]!;
      const n = this.admit(seq, budget);
      if (n === 0) break;
      this.waiting.shift();
      this.balancer?.left(seq.rank);
      this.running.push(seq);
      seq.scheduled = n;
      seq.drafting = false;
      batch.push(seq);
      if (inBudget || !this.transferring(seq)) budget -= n;
    }
    if (batch.length === 0) {
      throw new Error('scheduler stalled: nothing schedulable although requests are queued (KV too small?)');
    }
    const entries: BatchEntry[] = [];
    let prefill = 0;
    let decode = 0;
    let drafting = 0;
    for (const s of batch) {
      entries.push({ newTokens: s.scheduled, context: s.computed });
      if (s.length - s.computed === 1 && s.output > 0) decode += s.scheduled;
      else prefill += s.scheduled;
      if (s.drafting) drafting++;
    }
    const kvLoadMs = this.loadMs;
    const durationMs = this.opts.timer.stepTimeMs(entries, drafting, this.waiting.length) + kvLoadMs;
    const info = {
      startMs: this.now,
      durationMs,
      endMs: this.now + durationMs,
      seqs: batch.length,
      prefillTokens: prefill,
      decodeTokens: decode,
      preempted,
      kvLoadMs,
    };
    this.pending = { info, batch };
    return info;
  }

  /** Completes the step begun by beginStep(): advances the clock to its end and emits tokens. */
  commitStep(): void {
    const p = this.pending;
    if (!p) throw new Error('commitStep() without beginStep()');
    this.pending = null;
    this.now = p.info.endMs;
    this.stats.steps++;
    const done: Seq[] = [];
    for (const seq of p.batch) {
      if (seq.aborted) continue;
      let emitted = 0;
      if (seq.drafting) {
        emitted = Math.min(this.sampler!.sample(seq.scheduled - 1), seq.target - seq.output);
        seq.computed += emitted;
      } else {
        seq.computed += seq.scheduled;
        this.registerPrefix(seq);
        if (seq.computed === seq.length) emitted = 1;
      }
      if (emitted === 0) continue;
      if (seq.firstTokenMs === null) {
        seq.firstTokenMs = this.now;
        this.stats.prompt += seq.req.promptTokens;
      }
      seq.output += emitted;
      this.stats.generation += emitted;
      this.hooks.onToken?.(seq.req.id, seq.output, this.now);
      if (seq.output >= seq.target) done.push(seq);
    }
    if (done.length > 0) {
      for (const seq of done) {
        this.pool.release(seq.blocks);
        seq.blocks = [];
      }
      const gone = new Set(done);
      this.running = this.running.filter((s) => !gone.has(s));
      for (const seq of done) {
        this.stats.finished++;
        this.finish(seq, seq.output >= seq.req.maxTokens ? 'length' : 'stop', this.now);
      }
    }
  }

  gauges(): EngineGauges {
    const s = this.stats;
    return {
      nowMs: this.now,
      running: this.running.length,
      waiting: this.waiting.length,
      kvUsage: this.pool.usage(),
      kvCapacityTokens: this.pool.numBlocks * BLOCK_SIZE,
      prefixCacheHitRate: s.queries > 0 ? s.hits / s.queries : 0,
      prefixCacheQueries: s.queries,
      prefixCacheHits: s.hits,
      hostKv: this.host?.gauges(this.stats.hostQueries, this.stats.hostHits) ?? null,
      preemptionsTotal: s.preemptions,
      promptTokensTotal: s.prompt,
      generationTokensTotal: s.generation,
      requestsFinishedTotal: s.finished,
      stepsTotal: s.steps,
    };
  }

  /** Admits a waiting request: prefix-cache hits, then the first chunk; returns tokens scheduled (0: no). */
  private admit(seq: Seq, budget: number): number {
    if (this.transferring(seq)) return this.admitTransferred(seq, budget);
    // The budget is spent: no prefill chunk this step (reached only when decodes sit outside the budget).
    if (budget < 1) return 0;
    const hashes = this.opts.prefixCaching ? seq.req.prefixHashes : undefined;
    const promptBlocks = Math.floor(seq.req.promptTokens / BLOCK_SIZE);
    // At least one token must be computed to produce logits, as vLLM.
    const maxHit = Math.min(promptBlocks, Math.floor((seq.length - 1) / BLOCK_SIZE));
    const hit = hashes ? this.pool.lookup(hashes, maxHit) : 0;
    // Past the GPU hit, the host tier may hold the next blocks: copied back, not recomputed.
    const hostHit = this.host && hashes ? this.host.lookup(hashes, hit, maxHit - hit) : 0;
    const cached = (hit + hostHit) * BLOCK_SIZE;
    const need = seq.length - cached;
    const n = Math.min(need, budget);
    if (n < need && this.opts.chunkedPrefill === false) return 0;
    const fresh = Math.ceil((cached + n) / BLOCK_SIZE) - hit;
    const usable = this.pool.numFree() - (hit > 0 ? this.pool.freeCachedAmong(hashes!, hit) : 0);
    if (fresh > usable) return 0;
    seq.blocks = hit > 0 ? this.pool.acquireCached(hashes!, hit) : [];
    // Loaded before allocating: the allocation's evictions then push out other host blocks, not these.
    if (hostHit > 0) this.loadMs += this.host!.load(hashes!, hit, hostHit, BLOCK_SIZE);
    seq.blocks.push(...this.pool.allocate(fresh)!);
    for (let j = hit; j < hit + hostHit; j++) this.pool.register(seq.blocks[j]!, hashes![j]!);
    seq.computed = cached;
    seq.registered = hit + hostHit;
    if (seq.cachedTokens < 0) seq.cachedTokens = cached;
    if (this.opts.prefixCaching) {
      this.stats.queries += seq.req.promptTokens;
      this.stats.hits += hit * BLOCK_SIZE;
      if (this.host) {
        this.stats.hostQueries += seq.req.promptTokens;
        this.stats.hostHits += hostHit * BLOCK_SIZE;
      }
    }
    return n;
  }

  /** Whether `seq` is admitted with its prompt's KV transferred in (a decode worker's first admission). */
  private transferring(seq: Seq): boolean {
    return seq.req.kvTransferred === true && seq.preemptions === 0;
  }

  /**
   * Admission with the prompt's KV already in place: blocks for all of it, one token left to compute (a
   * token of the budget when decodes take from it).
   */
  private admitTransferred(seq: Seq, budget: number): number {
    const blocks = Math.ceil(seq.length / BLOCK_SIZE);
    if ((budget < 1 && this.decodesInBudget) || blocks > this.pool.numFree()) return 0;
    seq.blocks = this.pool.allocate(blocks)!;
    seq.computed = seq.length - 1;
    seq.registered = 0;
    if (seq.cachedTokens < 0) seq.cachedTokens = 0;
    return 1;
  }

  /** Ensures blocks for `tokens` KV slots (+ draft lookahead); false when the pool is out of blocks. */
  private grow(seq: Seq, tokens: number): boolean {
    const want = Math.ceil(tokens / BLOCK_SIZE) - seq.blocks.length;
    if (want <= 0) return true;
    const got = this.pool.allocate(want);
    if (!got) return false;
    seq.blocks.push(...got);
    return true;
  }

  private preempt(seq: Seq): void {
    this.running.pop();
    this.pool.release(seq.blocks);
    seq.blocks = [];
    seq.computed = 0;
    seq.registered = 0;
    seq.preemptions++;
    this.stats.preemptions++;
    this.waiting.unshift(seq);
    this.balancer?.queued(seq.rank);
  }

  /** Publishes newly computed full prompt blocks in the prefix cache. */
  private registerPrefix(seq: Seq): void {
    const hashes = seq.req.prefixHashes;
    if (!this.opts.prefixCaching || !hashes) return;
    const full = Math.min(
      Math.floor(Math.min(seq.computed, seq.req.promptTokens) / BLOCK_SIZE),
      hashes.length,
    );
    for (let j = seq.registered; j < full; j++) this.pool.register(seq.blocks[j]!, hashes[j]!);
    if (full > seq.registered) seq.registered = full;
  }

  private remove(seq: Seq): void {
    const w = this.waiting.indexOf(seq);
    if (w >= 0) {
      this.waiting.splice(w, 1);
      this.balancer?.left(seq.rank);
    }
    const r = this.running.indexOf(seq);
    if (r >= 0) this.running.splice(r, 1);
  }

  private finish(seq: Seq, reason: FinishReason, at: number): void {
    this.byId.delete(seq.req.id);
    this.hooks.onFinish?.(seq.req.id, {
      reason,
      promptTokens: seq.req.promptTokens,
      outputTokens: seq.output,
      cachedTokens: Math.max(0, seq.cachedTokens),
      arrivalMs: seq.arrivalMs,
      firstTokenMs: seq.firstTokenMs,
      finishMs: at,
      preemptions: seq.preemptions,
    });
  }
}
