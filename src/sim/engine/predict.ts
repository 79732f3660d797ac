import { InfxError } from '../../schema/errors.ts';
import { resolveSim, type SimSetup } from './config.ts';
import { type EngineHooks, SimEngine } from './engine.ts';
import { type EngineChoice, fastEngineFor, useFastEngine } from './fast-engine.ts';
import { requestNumber } from './id-table.ts';
import { BLOCK_SIZE } from './kv-cache.ts';
import { type LatencyStats, latencyStats } from './latency.ts';
import { Prng } from './prng.ts';
import {
  foldedUsers,
  foldMeasured,
  foldWaitMs,
  foldWarmup,
  inServiceEstimate,
  MAX_MEASURED,
  type QueueFold,
  QueueWatch,
} from './queue-fold.ts';
import type { StepEngine } from './types.ts';
import { type WindowHalves, windowHalves } from './window-halves.ts';

/**
 * Fast prediction of one benchmark point: a closed loop of `concurrency` clients, each sending a request
 * of ISL/OSL tokens (lengths drawn as the reference client does: uniform in [floor(L·r), L], r = 0.8, with
 * ignore_eos) as soon as its previous one finished, simulated on the engine in virtual time — the same
 * scheduler and roofline model `infx sim serve` runs, with no wall clock involved.
 *
 * Warm-up: the first `concurrency` completions (every client has cycled once, so the all-at-once start has
 * spread out) are discarded. Measurement: the next `measureRequests` completions (defaultMeasured: whole
 * cycles of the users, two up to 4096 completions and one above, at least 16). Throughput is output tokens
 * emitted inside the measured window over its length; total throughput adds the measured requests' input
 * tokens in proportion (ISL/OSL per request), as the reference's total_token_throughput does. Interactivity
 * is 1000 / median TPOT, TPOT = (E2E − TTFT) / (output − 1) per request, the reference's `median_intvty`.
 * The window's two halves are compared (window-halves.ts) and the result says how far apart they are.
 */

export interface PredictConfig extends SimSetup {
  isl: number;
  osl: number;
  concurrency: number;
  /** Length spread of the random dataset; 1 = fixed lengths. Default 0.8 (the reference). */
  rangeRatio?: number;
  /** Completions measured after warm-up; default defaultMeasured(concurrency). */
  measureRequests?: number;
  /**
   * steady (default): the steady state, as described above. as-measured: what `infx bench` measures —
   * `numPrompts` requests (default 10 × concurrency) from an idle engine, throughput over the whole window
   * from the first arrival to the last finish (ramp and drain included), latencies of every request.
   */
  method?: PredictMethod;
  numPrompts?: number;
  /**
   * As measured: these exact requests, in dispatch order (input and output tokens), instead of drawn
   * lengths — to predict a point that was run, request for request.
   */
  requests?: readonly { promptTokens: number; outputTokens: number }[];
  /** Seeds the request lengths; default 0. */
  workloadSeed?: number;
  /**
   * The engine of the steady method (fast-engine.ts, EngineChoice): auto (default) runs the fast engine
   * wherever it supports the setup, with the full co-simulation's results; fast the same with one shared
   * acceptance sequence for speculative decoding (not identical); exact always the full one (SimEngine:
   * every sequence every step). As measured always runs the full one.
   */
  engine?: EngineChoice;
  /** Past saturation, simulate only the users the queue needs (queue-fold.ts); default true, not with exact. */
  fold?: boolean;
}

export type PredictMethod = 'steady' | 'as-measured';

export interface PredictResult {
  gpus: number;
  concurrency: number;
  /** Total (input + output) tokens/s per GPU. */
  throughputPerGpu: number;
  outputThroughputPerGpu: number;
  inputThroughputPerGpu: number;
  /** tok/s/user: 1000 / median TPOT (ms). */
  interactivity: number;
  ttftMs: LatencyStats;
  e2eMs: LatencyStats;
  tpotMs: LatencyStats;
  /** Requests measured and the virtual time they spanned. */
  measuredRequests: number;
  windowMs: number;
  steps: number;
  preemptions: number;
  /** Highest KV usage seen in the window, 0..1. */
  peakKvUsage: number;
  kvCapacityTokens: number;
  /**
   * Past saturation, how the steady method folded the queue (queue-fold.ts): the users it simulated and the
   * wait it added for the rest; null where every user was simulated.
   */
  fold: QueueFold | null;
  /**
   * The steady method's window split in two (window-halves.ts): how far its halves' throughput,
   * interactivity and median TTFT disagree; null as measured or under 16 completions.
   */
  halves: WindowHalves | null;
}

export class PredictError extends InfxError {
  override name = 'PredictError';
}

interface Done {
  isl: number;
  osl: number;
  ttft: number;
  e2e: number;
}

/**
 * Completions the steady method measures after its warm-up: whole cycles of the users (every user finishes
 * as many requests in the window), two while they come to at most MAX_MEASURED, else one; at least 16.
 * Users that started together stay in step for many cycles (a wave of prefills and finishes goes round), so
 * a window of part of a cycle measures part of the wave: capping the window at 4,096 completions moved
 * median TTFT by up to 10× and throughput by up to 8.5 % at the fixture points above 2,048 users.
 */
export function defaultMeasured(concurrency: number): number {
  if (2 * concurrency > MAX_MEASURED) return Math.max(16, concurrency);
  return concurrency * Math.max(2, Math.ceil(16 / concurrency));
}

export function predictPoint(config: PredictConfig): PredictResult {
  const { isl, osl, concurrency: conc } = config;
  for (const [k, v] of [
    ['isl', isl],
    ['osl', osl],
    ['concurrency', conc],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new PredictError(`${k} must be an integer >= 1, got ${v}`);
  }
  const r = config.rangeRatio ?? 0.8;
  if (!(r > 0 && r <= 1)) throw new PredictError(`range ratio must be in (0, 1], got ${r}`);
  const resolved = resolveSim({ ...config, maxNumSeqs: config.maxNumSeqs ?? Math.max(256, conc) });
  const asMeasured = config.method === 'as-measured';
  const given = asMeasured ? (config.requests ?? null) : null;
  const measure = asMeasured
    ? (given?.length ?? config.numPrompts ?? 10 * conc)
    : (config.measureRequests ?? defaultMeasured(conc));
  if (!Number.isInteger(measure) || measure < 1)
    throw new PredictError(`the number of measured requests must be an integer >= 1, got ${measure}`);
  const choice = config.engine ?? 'auto';
  const fast = !asMeasured && useFastEngine(choice, resolved.engineOptions);
  const o = resolved.engineOptions;
  const build = (hooks: EngineHooks): StepEngine =>
    fast ? fastEngineFor(choice, o, hooks, true) : new SimEngine(o, hooks);
  // A folded loop measures whole rounds of its users (foldMeasured; or the count asked for) after a longer
  // warm-up (foldWarmup).
  const run = (users: number, watch: QueueWatch | null) => {
    const folded = !asMeasured && users < conc;
    const warmup = asMeasured ? 0 : folded ? foldWarmup(users, conc) : conc;
    const counted = folded && config.measureRequests === undefined ? foldMeasured(users, measure) : measure;
    return steadyLoop(
      build,
      { isl, osl, r, users, warmup, measure: counted, asMeasured, given, watch },
      {
        seed: config.workloadSeed ?? 0,
        what: `${resolved.model.id} on ${resolved.accelerator.id}`,
      },
    );
  };
  // Past saturation the steady method folds the queue (queue-fold.ts); the full co-simulation never does,
  // nor does an engine whose DP balancer holds prompts (its admissions depend on more than the queue's head).
  let users = conc;
  if (!asMeasured && choice !== 'exact' && config.fold !== false && !o.dpBalance) {
    const cap = { capacityTokens: o.kvBlocks * BLOCK_SIZE, maxNumSeqs: o.maxNumSeqs ?? 256 };
    users = foldedUsers(conc, inServiceEstimate(cap, { isl, osl, rangeRatio: r }), measure);
  }
  const watch = users < conc ? new QueueWatch() : null;
  let loop = run(users, watch);
  let fold: QueueFold | null = null;
  if (watch?.held && loop.preemptions === 0) {
    const queueMs = foldWaitMs(conc - users, loop.done.length, loop.windowMs);
    fold = { users, queueMs, place: 'before-first-token' };
    for (const d of loop.done) {
      d.ttft += queueMs;
      d.e2e += queueMs;
    }
  } else if (watch) loop = run(conc, null);
  const { done, windowMs, engine } = loop;
  const halves = asMeasured
    ? null
    : windowHalves(done.map((d) => ({ outputTokens: d.osl, ttftMs: d.ttft, e2eMs: d.e2e })));
  const gpus = resolved.gpus;
  const outTput = loop.tokens / (windowMs / 1000);
  const sumIsl = done.reduce((a, d) => a + d.isl, 0);
  const sumOsl = done.reduce((a, d) => a + d.osl, 0);
  const inTput = outTput * (sumIsl / sumOsl);
  const tpots = done.filter((d) => d.osl > 1).map((d) => (d.e2e - d.ttft) / (d.osl - 1));
  const tpot = latencyStats(tpots);
  return {
    gpus,
    concurrency: conc,
    throughputPerGpu: (outTput + inTput) / gpus,
    outputThroughputPerGpu: outTput / gpus,
    inputThroughputPerGpu: inTput / gpus,
    interactivity: tpot.median > 0 ? 1000 / tpot.median : 0,
    ttftMs: latencyStats(done.map((d) => d.ttft)),
    e2eMs: latencyStats(done.map((d) => d.e2e)),
    tpotMs: tpot,
    measuredRequests: done.length,
    windowMs,
    steps: engine.gauges().stepsTotal,
    preemptions: loop.preemptions,
    peakKvUsage: loop.peakKv,
    kvCapacityTokens: engine.capacityTokens,
    fold,
    halves,
  };
}

interface SteadyRun {
  done: Done[];
  windowMs: number;
  /** Output tokens generated inside the window. */
  tokens: number;
  preemptions: number;
  peakKv: number;
  engine: StepEngine;
}

/** One closed loop of `users` on a fresh engine: warm-up (steady method), then the measured window. */
function steadyLoop(
  build: (hooks: EngineHooks) => StepEngine,
  w: {
    isl: number;
    osl: number;
    r: number;
    users: number;
    warmup: number;
    measure: number;
    asMeasured: boolean;
    given: PredictConfig['requests'] | null;
    watch: QueueWatch | null;
  },
  at: { seed: number; what: string },
): SteadyRun {
  const { users, warmup, measure, asMeasured, given, watch } = w;
  const lengths = new Prng(at.seed);
  const draw = (l: number) => lengths.int(Math.max(1, Math.floor(l * w.r)), l);
  const done: Done[] = [];
  // Each request's prompt length by its number (ids are `r<n>`): at most the first submissions plus one per
  // completion before the window closes.
  const islOf = new Float64Array(Math.min(users, warmup + measure) + warmup + measure);
  let completions = 0;
  let submitted = 0;
  let arrivals = 0;
  // As measured, the window opens with the first request (all `users` arrive at once on an idle engine).
  let windowStart = asMeasured ? 0 : Number.NaN;
  let windowEnd = Number.NaN;
  let tokensAtStart = 0;
  let tokensAtEnd = 0;
  let peakKv = 0;
  let preemptionsAtStart = 0;
  const hooks: EngineHooks = {
    onFinish: (id, info) => {
      completions++;
      const isl = islOf[requestNumber(id)]!;
      if (completions === warmup) {
        windowStart = info.finishMs;
        const g = engine.gauges();
        preemptionsAtStart = g.preemptionsTotal;
        tokensAtStart = g.generationTokensTotal;
      } else if (completions > warmup && completions <= warmup + measure) {
        done.push({
          isl,
          osl: info.outputTokens,
          ttft: info.firstTokenMs! - info.arrivalMs,
          e2e: info.finishMs - info.arrivalMs,
        });
        if (completions === warmup + measure) {
          windowEnd = info.finishMs;
          tokensAtEnd = engine.gauges().generationTokensTotal;
        }
      }
      if (asMeasured ? submitted < measure : completions < warmup + measure) submit();
    },
  };
  // The steady loop submits only from onFinish: the fast engine may skip the decode steps between events.
  const engine = build(hooks);
  const submit = () => {
    const g = given?.[submitted];
    const n = submitted++;
    if (n >= islOf.length)
      throw new PredictError('internal: more requests submitted than the loop allows for');
    const isl = g ? g.promptTokens : draw(w.isl);
    const osl = g ? g.outputTokens : draw(w.osl);
    islOf[n] = isl;
    arrivals++;
    engine.submit({ id: `r${n}`, promptTokens: isl, maxTokens: osl, ignoreEos: true });
  };
  const cap = engine.capacityTokens;
  if (w.isl + w.osl > cap) {
    throw new PredictError(
      `one request of ${w.isl}+${w.osl} tokens exceeds the KV cache (${cap} tokens) of ${at.what} ` +
        'at this parallelism and memory utilization',
    );
  }
  for (let i = 0; i < Math.min(users, warmup + measure); i++) submit();
  while (Number.isNaN(windowEnd)) {
    arrivals = 0;
    const info = engine.step();
    if (!info) throw new PredictError('internal: the engine went idle before the measurement finished');
    if (completions >= warmup) {
      peakKv = Math.max(peakKv, engine.kvUsage);
      // What the admission left waiting: the queue now, less what arrived as the step's finishes.
      if (completions > warmup && watch) {
        watch.see(engine.queued - arrivals);
        // The queue ran dry: the fold is refused, and the rest of this window would be wasted.
        if (!watch.held) break;
      }
    }
  }
  return {
    done,
    windowMs: windowEnd - windowStart,
    tokens: tokensAtEnd - tokensAtStart,
    preemptions: engine.gauges().preemptionsTotal - preemptionsAtStart,
    peakKv,
    engine,
  };
}
