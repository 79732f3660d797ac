import { kvBytesPerToken } from '../../catalog/memory.ts';
import type { PoolRoute, PoolRouter } from '../../schema/router.ts';
import { type ResolvedSim, resolveSim, type SimSetup } from './config.ts';
import { SimEngine, SimRequestError } from './engine.ts';
import { DEFAULT_BATCHED_TOKENS } from './engine-profile.ts';
import { type EngineChoice, fastEngineFor, useFastEngine } from './fast-engine.ts';
import { MinHeap } from './heap.ts';
import { IdTable } from './id-table.ts';
import { PacedEngines } from './paced-engines.ts';
import type { EngineGauges, EngineHooks, SimRequest, StepEngine } from './types.ts';

/**
 * A disaggregated point: separate prefill and decode worker pools behind one endpoint, as P/D serving
 * with NIXL- or Mooncake-style KV transfer does. A request is prefilled on the least-loaded prefill worker
 * (which also produces its first token), its KV cache then crosses the inter-node network to the
 * least-loaded decode worker, and only then does the client see the first token; decode continues from
 * there. TTFT therefore includes the transfer, and each pool batches only its own kind of work.
 *
 * Two drivers: `runUntilIdle()` co-simulates the workers in virtual time (tests, prediction), and
 * `runRealtime()` paces every worker on one clock with transfers as timed events (serving, pacer.ts).
 */

export interface PoolSetup {
  workers: number;
  setup: SimSetup;
}

export interface DisaggSetup {
  prefill: PoolSetup;
  decode: PoolSetup;
}

/** Fixed cost of one KV handoff (connection, metadata, completion notice), ms. */
export const KV_TRANSFER_LATENCY_MS = 2;
/** Fraction of the scale-out link rate a bulk KV transfer reaches. */
export const KV_TRANSFER_EFFICIENCY = 0.7;

/** A request between its submission and its finish: what its KV handoff needs, one map entry. */
interface Live {
  req: SimRequest;
  route: PoolRoute | null;
  /** Its KV is crossing to a decode worker (virtual-time co-simulation), landing at landsMs. */
  transferring: boolean;
  landsMs: number;
}

/**
 * The seed of worker `index` of a pool (0 prefill or aggregated, 1 decode) from the setup's seed: every
 * worker draws its own acceptance stream. One seed for all made the workers' draws the same sequence, so
 * their requests' TPOTs moved together rather than averaging out.
 */
export function workerSeed(seed: number | undefined, pool: 0 | 1, index: number): number {
  return (seed ?? 0) + 0x9e37 * (2 * index + pool);
}

/** Builds one worker: the full engine, or the fast one where `choice` picks it (fast-engine.ts). */
function worker(
  setup: SimSetup,
  hooks: EngineHooks,
  choice: EngineChoice,
): { engine: StepEngine; resolved: ResolvedSim } {
  const resolved = resolveSim(setup);
  const o = resolved.engineOptions;
  const engine = useFastEngine(choice, o) ? fastEngineFor(choice, o, hooks) : new SimEngine(o, hooks);
  return { engine, resolved };
}

export class DisaggCluster extends PacedEngines {
  readonly prefill: StepEngine[] = [];
  readonly decode: StepEngine[] = [];
  readonly prefillResolved: ResolvedSim;
  readonly decodeResolved: ResolvedSim;
  readonly gpus: number;
  /** KV transfers in flight (virtual-time co-simulation), earliest landing first, ties in send order. */
  private readonly transfers = new MinHeap<Live>();
  /** Requests whose KV is in flight (virtual-time co-simulation). */
  private inTransfer = 0;
  private sent = 0;
  private all: StepEngine[] = [];
  private readonly live = new IdTable<Live>();
  /**
   * Virtual time with closed arrivals: requests submitted for a time some busy worker has not reached, held
   * until every worker's clock has (nextEvent), earliest first.
   */
  private readonly arrivals = new MinHeap<{ live: Live; atMs: number }>();
  private held = 0;
  /** Requests arrive only from a closed loop's finishes (closed-loop.ts): workers may skip decode steps. */
  closedArrivals: { minPromptTokens: number } | null = null;
  /**
   * Under closed arrivals (reachMs): the soonest after its clock a KV transfer can follow from each worker,
   * and after a request's arrival its KV can land.
   */
  private reach: { of: { minPromptTokens: number }; ms: Float64Array; afterArrivalMs: number } | null = null;

  constructor(
    setup: DisaggSetup,
    public hooks: EngineHooks = {},
    /** The router code for each pool (src/router, handed in); without one, the least-loaded worker. */
    private readonly routers: { prefill?: PoolRouter; decode?: PoolRouter } = {},
    /** Prediction: workers on the fast engine where this picks it (no per-token hooks); default exact. */
    choice: EngineChoice = 'exact',
  ) {
    super();
    let pre: ResolvedSim | null = null;
    for (let i = 0; i < setup.prefill.workers; i++) {
      const { engine, resolved } = worker(
        { ...setup.prefill.setup, seed: workerSeed(setup.prefill.setup.seed, 0, i) },
        {
          onFinish: (id, info) => {
            this.routers.prefill?.firstToken(id);
            this.routers.prefill?.done(id);
            if (info.reason !== 'abort') this.prefilled(id, info.finishMs, info.promptTokens);
          },
        },
        choice,
      );
      this.prefill.push(engine);
      pre = resolved;
    }
    let dec: ResolvedSim | null = null;
    for (let i = 0; i < setup.decode.workers; i++) {
      const { engine, resolved } = worker(
        { ...setup.decode.setup, seed: workerSeed(setup.decode.setup.seed, 1, i) },
        {
          // The decode worker's token k is the request's token k + 1 (the prefill worker made the first).
          onToken: (id, total, t) => {
            this.routers.decode?.firstToken(id);
            this.hooks.onToken?.(id, total + 1, t);
          },
          onFinish: (id, info) => {
            this.routers.decode?.done(id);
            this.live.delete(id);
            // The engines hand each finish a fresh object: adjusted in place, not copied.
            info.promptTokens -= 1;
            info.outputTokens += 1;
            this.hooks.onFinish?.(id, info);
          },
        },
        choice,
      );
      this.decode.push(engine);
      dec = resolved;
    }
    if (!pre || !dec)
      throw new RangeError('a disaggregated point needs at least one prefill and one decode worker');
    this.prefillResolved = pre;
    this.decodeResolved = dec;
    this.gpus = setup.prefill.workers * pre.gpus + setup.decode.workers * dec.gpus;
    this.all = [...this.prefill, ...this.decode];
    this.room = Math.min(...this.decode.map((e) => e.capacityTokens));
    this.kvBytesPerToken = kvBytesPerToken(pre.model, pre.kvPrecision);
    // Every rank of the prefill worker sends its shard over its own NIC, up to the narrower side's count.
    const links = Math.min(pre.gpus, dec.gpus);
    this.bytesPerMs = links * pre.accelerator.scaleOutGBs * 1e6 * KV_TRANSFER_EFFICIENCY;
  }

  /** The smallest decode worker's KV cache, tokens. */
  private readonly room: number;
  private readonly kvBytesPerToken: number;
  private readonly bytesPerMs: number;

  /** Time to move a prompt's KV from a prefill worker to a decode worker, ms. */
  transferMs(promptTokens: number): number {
    return KV_TRANSFER_LATENCY_MS + (this.kvBytesPerToken * promptTokens) / this.bytesPerMs;
  }

  /** Queues a request and returns its arrival; `atMs` moves an idle prefill worker's clock to the arrival. */
  submit(req: SimRequest, atMs?: number, route: PoolRoute | null = null): number {
    const room = this.room;
    if (req.promptTokens + req.maxTokens + 1 > room)
      throw new SimRequestError(
        `prompt (${req.promptTokens}) + max tokens (${req.maxTokens}) exceeds a decode worker's KV cache of ${room} tokens`,
      );
    const live: Live = { req, route, transferring: false, landsMs: 0 };
    this.live.set(req.id, live);
    const worker = pick(this.prefill, this.routers.prefill, req.id, route);
    // A closed loop submits from inside a worker's step, at its end. A busy prefill worker whose clock is
    // behind that time would take the request into a step that starts before it arrived: the request is
    // held as an event until every clock has reached it (nextEvent), and routed then. Its KV lands at least
    // its prefill and the handoff's fixed cost after it.
    if (this.closedArrivals && atMs !== undefined && !this.pacer && worker.hasWork() && worker.nowMs < atMs) {
      this.arrivals.push(atMs, this.held++, { live, atMs });
      this.arrivesFrom(atMs + this.reachMs().afterArrivalMs);
      return atMs;
    }
    const arrival = this.toPrefill(live, atMs, worker);
    if (this.closedArrivals) this.arrivesFrom(arrival + this.reachMs().afterArrivalMs);
    this.wake();
    return arrival;
  }

  /** Requests held until the clocks reach their arrival (closed arrivals in virtual time). */
  get heldArrivals(): number {
    return this.arrivals.size;
  }

  /** Queues a request on a prefill worker (by default the one its router, or the least load, picks). */
  private toPrefill(
    live: Live,
    atMs: number | undefined,
    worker = pick(this.prefill, this.routers.prefill, live.req.id, live.route),
  ): number {
    const req = live.req;
    if (atMs !== undefined && !this.pacer) worker.advanceTo(atMs);
    // Built field by field: spreading the request made a slow, shape-varying copy (the matrix's hottest line).
    const prefill: SimRequest = {
      id: req.id,
      promptTokens: req.promptTokens,
      maxTokens: 1,
      stopAfter: 1,
      ignoreEos: true,
    };
    if (req.prefixHashes) prefill.prefixHashes = req.prefixHashes;
    return worker.submit(prefill, atMs);
  }

  abort(id: string): boolean {
    const live = this.live.get(id);
    this.live.delete(id);
    if (live?.transferring) {
      live.transferring = false;
      this.inTransfer--;
    }
    for (const e of this.all) e.abort(id);
    return live !== undefined;
  }

  hasWork(): boolean {
    return this.inTransfer > 0 || this.arrivals.size > 0 || this.all.some((e) => e.hasWork());
  }

  /** Sums over the workers (KV usage: the decode pool's, where the KV of running requests lives). */
  gauges(): EngineGauges {
    const pre = this.prefill.map((e) => e.gauges());
    const dec = this.decode.map((e) => e.gauges());
    const sum = (gs: EngineGauges[], f: (g: EngineGauges) => number) => gs.reduce((a, g) => a + f(g), 0);
    return {
      ...sumGauges([...pre, ...dec], dec),
      waiting: sum([...pre, ...dec], (g) => g.waiting) + this.inTransfer,
      promptTokensTotal: sum(pre, (g) => g.promptTokensTotal),
      // Prefill workers generate exactly the first tokens, decode workers the rest.
      requestsFinishedTotal: sum(dec, (g) => g.requestsFinishedTotal),
    };
  }

  /** Co-simulation in virtual time: events (worker steps, KV arrivals) in time order until nothing is left. */
  runUntilIdle(maxEvents = Number.POSITIVE_INFINITY): number {
    let n = 0;
    while (n < maxEvents && this.nextEvent()) n++;
    return n;
  }

  /** The decode pool's KV usage, its workers' mean (where the KV of running requests lives). */
  get kvUsage(): number {
    let sum = 0;
    for (const e of this.decode) sum += e.kvUsage;
    return sum / this.decode.length;
  }

  /** Co-simulation until `stop()` says so (checked before each event) or nothing is left. */
  runUntil(stop: () => boolean): void {
    while (!stop() && this.nextEvent());
  }

  protected workers(): readonly StepEngine[] {
    return this.all;
  }

  private prefilled(id: string, atMs: number, promptTokens: number): void {
    const live = this.live.get(id);
    if (!live) return;
    const landsMs = atMs + this.transferMs(promptTokens);
    if (this.pacer) this.pacer.schedule(landsMs, (t) => this.land(live, t));
    else {
      if (this.closedArrivals) this.arrivesFrom(landsMs);
      live.landsMs = landsMs;
      this.transfers.push(landsMs, this.sent++, live);
      live.transferring = true;
      this.inTransfer++;
    }
  }

  /**
   * Lower bounds under closed arrivals (see nextEvent): a step costs at least a one-token step on its
   * worker, and a prompt of n tokens at least one step of min(n, the token budget) on a prefill worker —
   * the roofline step time grows with a batch's tokens and context, and a split into chunks costs no less.
   * A worker's reach is its shortest step, plus a prefill for a decode worker (a finish brings its user
   * back with a new prompt), plus the handoff's fixed cost. A prefix cache computes fewer tokens and
   * DP-attention spreads a step's prompts over ranks: there a prefill is bounded by one one-token step.
   */
  private reachMs(): { ms: Float64Array; afterArrivalMs: number } {
    const of = this.closedArrivals!;
    if (this.reach?.of === of) return this.reach;
    const step = (r: ResolvedSim, tokens: number) =>
      r.engineOptions.timer.stepTimeMs([{ newTokens: tokens, context: 0 }], 0);
    const pre = this.prefillResolved;
    const o = pre.engineOptions;
    const prefillMs =
      o.prefixCaching || pre.par.dpAttn
        ? step(pre, 1)
        : step(pre, Math.min(of.minPromptTokens, o.maxNumBatchedTokens ?? DEFAULT_BATCHED_TOKENS));
    const ms = new Float64Array(this.all.length);
    for (let i = 0; i < ms.length; i++) {
      const decode = i >= this.prefill.length;
      ms[i] = (decode ? step(this.decodeResolved, 1) + prefillMs : step(pre, 1)) + KV_TRANSFER_LATENCY_MS;
    }
    this.reach = { of, ms, afterArrivalMs: prefillMs + KV_TRANSFER_LATENCY_MS };
    return this.reach;
  }

  /** A request may reach a decode worker from `ms` on: none skips a step that starts then or later. */
  private arrivesFrom(ms: number): void {
    for (const e of this.decode) if (e.quietUntilMs !== undefined && ms < e.quietUntilMs) e.quietUntilMs = ms;
  }

  /** The KV is on a decode worker: the client gets the first token, decode takes over. */
  private land(live: Live, atMs: number): void {
    const req = live.req;
    if (this.live.get(req.id) !== live) return;
    this.hooks.onToken?.(req.id, 1, atMs);
    if (req.maxTokens <= 1) {
      this.live.delete(req.id);
      this.hooks.onFinish?.(req.id, {
        reason: 'length',
        promptTokens: req.promptTokens,
        outputTokens: 1,
        cachedTokens: 0,
        arrivalMs: atMs,
        firstTokenMs: atMs,
        finishMs: atMs,
        preemptions: 0,
      });
      return;
    }
    const worker = pick(this.decode, this.routers.decode, req.id, live.route);
    if (!this.pacer) worker.advanceTo(atMs);
    const decode: SimRequest = {
      id: req.id,
      promptTokens: req.promptTokens + 1,
      maxTokens: req.maxTokens - 1,
      ignoreEos: req.ignoreEos ?? false,
      kvTransferred: true,
    };
    if (req.stopAfter !== undefined) decode.stopAfter = Math.max(1, req.stopAfter - 1);
    worker.submit(decode, this.pacer ? atMs : undefined);
  }

  /** One event, the earliest: a worker's next step, or a KV arrival. False when idle. */
  private nextEvent(): boolean {
    let engine: StepEngine | null = null;
    let at = -1;
    let engineNow = 0;
    // Under closed arrivals the same pass keeps the two soonest clock + reach (the horizon below takes the
    // soonest of the workers other than the one that steps).
    const reach = this.closedArrivals ? this.reachMs() : null;
    let soonest = Number.POSITIVE_INFINITY;
    let soonestAt = -1;
    let second = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.all.length; i++) {
      const e = this.all[i]!;
      if (!e.hasWork()) continue;
      const now = e.nowMs;
      if (engine === null || now < engineNow) {
        engine = e;
        at = i;
        engineNow = now;
      }
      if (reach) {
        const v = now + reach.ms[i]!;
        if (v < soonest) {
          second = soonest;
          soonest = v;
          soonestAt = i;
        } else if (v < second) second = v;
      }
    }
    // Entries of requests aborted meanwhile are dropped here.
    while (this.transfers.size > 0 && !this.transfers.top()!.transferring) this.transfers.pop();
    const t = this.transfers.top();
    const a = this.arrivals.top();
    if (a && (engine === null || a.atMs <= engine.nowMs) && (!t || a.atMs <= t.landsMs)) {
      this.arrivals.pop();
      if (this.live.get(a.live.req.id) === a.live) {
        this.arrivesFrom(this.toPrefill(a.live, a.atMs) + this.reachMs().afterArrivalMs);
      }
      return true;
    }
    if (t && (engine === null || t.landsMs <= engine.nowMs)) {
      this.transfers.pop();
      t.transferring = false;
      this.inTransfer--;
      this.land(t, t.landsMs);
      return true;
    }
    if (engine === null) return false;
    // With closed arrivals, a request reaches a decode worker only as a KV transfer: one in flight, or one
    // that follows from a step another worker starts at its clock or later (a prefill; a finish whose user
    // comes back), no sooner than that worker's reach (reachMs); one submitted or prefilled during this step
    // lowers the horizon as it goes (arrivesFrom). Before the horizon this worker may skip decode steps.
    if (reach && at >= this.prefill.length && engine.quietUntilMs !== undefined) {
      let quiet = t ? t.landsMs : Number.POSITIVE_INFINITY;
      if (a) quiet = Math.min(quiet, a.atMs + reach.afterArrivalMs);
      engine.quietUntilMs = Math.min(quiet, soonestAt === at ? second : soonest);
    }
    engine.step();
    return true;
  }
}

/** The worker the pool's router picks, or the least-loaded one without a router. */
function pick<E extends StepEngine>(
  engines: readonly E[],
  router: PoolRouter | undefined,
  id: string,
  route: PoolRoute | null,
): E {
  if (!router) return leastLoaded(engines);
  return engines[router.pick(id, route)] ?? (engines[0] as E);
}

/** The engine with the fewest requests running and waiting (the first of a tie). */
export function leastLoaded<E extends StepEngine>(engines: readonly E[]): E {
  let best = engines[0]!;
  let load = Number.POSITIVE_INFINITY;
  for (const e of engines) {
    const l = e.load;
    if (l < load) {
      best = e;
      load = l;
    }
  }
  return best;
}

/** Workers' gauges summed; KV usage and capacity over `kvPool`, the workers that hold running KV. */
export function sumGauges(all: readonly EngineGauges[], kvPool: readonly EngineGauges[]): EngineGauges {
  const sum = (gs: readonly EngineGauges[], f: (g: EngineGauges) => number) =>
    gs.reduce((a, g) => a + f(g), 0);
  const queries = sum(all, (g) => g.prefixCacheQueries);
  const hits = sum(all, (g) => g.prefixCacheHits);
  return {
    nowMs: Math.max(...all.map((g) => g.nowMs)),
    running: sum(all, (g) => g.running),
    waiting: sum(all, (g) => g.waiting),
    kvUsage: sum(kvPool, (g) => g.kvUsage) / kvPool.length,
    kvCapacityTokens: sum(kvPool, (g) => g.kvCapacityTokens),
    prefixCacheHitRate: queries > 0 ? hits / queries : 0,
    prefixCacheQueries: queries,
    prefixCacheHits: hits,
    hostKv: sumHostKv(all),
    preemptionsTotal: sum(all, (g) => g.preemptionsTotal),
    promptTokensTotal: sum(all, (g) => g.promptTokensTotal),
    generationTokensTotal: sum(all, (g) => g.generationTokensTotal),
    requestsFinishedTotal: sum(all, (g) => g.requestsFinishedTotal),
    stepsTotal: sum(all, (g) => g.stepsTotal),
  };
}

/** The workers' host tiers summed (null when none has one). */
function sumHostKv(gs: readonly EngineGauges[]): EngineGauges['hostKv'] {
  const hs = gs.flatMap((g) => (g.hostKv ? [g.hostKv] : []));
  if (hs.length === 0) return null;
  const out = { ...hs[0]! };
  for (const h of hs.slice(1)) for (const k of Object.keys(out) as (keyof typeof out)[]) out[k] += h[k];
  return out;
}
