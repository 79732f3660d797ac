import { closedLoop, type LoopResult } from './closed-loop.ts';
import { DisaggCluster, type DisaggSetup } from './disagg.ts';
import type { EngineChoice } from './fast-engine.ts';
import { latencyStats } from './latency.ts';
import { defaultMeasured, PredictError, type PredictMethod, type PredictResult } from './predict.ts';
import {
  foldedUsers,
  foldMeasured,
  foldWaitMs,
  foldWarmup,
  type QueueFold,
  QueueWatch,
} from './queue-fold.ts';
import { windowHalves } from './window-halves.ts';

/**
 * Prediction for a disaggregated point: the same closed loop as single-engine prediction, run against
 * the prefill/decode cluster in virtual time. Per-GPU figures divide by every GPU of both pools.
 */
export function predictDisagg(
  setup: DisaggSetup,
  w: {
    isl: number;
    osl: number;
    concurrency: number;
    rangeRatio?: number;
    seed?: number;
    method?: PredictMethod;
    numPrompts?: number;
    requests?: readonly { promptTokens: number; outputTokens: number }[];
    /** The steady method's engine per worker (predict.ts); as measured always the full one. */
    engine?: EngineChoice;
    /** Queue folding past saturation (queue-fold.ts); default true, never with exact. */
    fold?: boolean;
  },
): PredictResult {
  const asMeasured = w.method === 'as-measured';
  const choice = asMeasured ? 'exact' : (w.engine ?? 'auto');
  // The point's seed seeds the workers' acceptance draws too, as a single engine's (predictPoint).
  const seeded = (pool: DisaggSetup['prefill']) =>
    w.seed === undefined ? pool : { ...pool, setup: { ...pool.setup, seed: w.seed } };
  const build = () =>
    new DisaggCluster({ prefill: seeded(setup.prefill), decode: seeded(setup.decode) }, {}, {}, choice);
  let cluster = build();
  const room = Math.min(...cluster.decode.map((e) => e.capacityTokens));
  if (w.isl + w.osl + 1 > room)
    throw new PredictError(
      `one request of ${w.isl}+${w.osl} tokens exceeds a decode worker's KV cache (${room} tokens)`,
    );
  const conc = w.concurrency;
  const measured = asMeasured ? (w.requests?.length ?? w.numPrompts ?? 10 * conc) : defaultMeasured(conc);
  // A folded loop measures whole rounds of its users (foldMeasured) after a longer warm-up (foldWarmup).
  const run = (users: number, o: { watch?: () => boolean; probe?: (finished: number) => boolean }) =>
    closedLoop(cluster, {
      asMeasured,
      ...(w.requests ? { requests: w.requests } : {}),
      concurrency: users,
      isl: w.isl,
      osl: w.osl,
      measured: users < conc ? foldMeasured(users, measured) : measured,
      ...(w.rangeRatio !== undefined ? { rangeRatio: w.rangeRatio } : {}),
      ...(w.seed !== undefined ? { seed: w.seed } : {}),
      ...(users < conc ? { warmup: foldWarmup(users, conc) } : {}),
      ...o,
    });
  const foldable = !asMeasured && choice !== 'exact' && w.fold !== false;
  // Queue folding (queue-fold.ts). The warm-up of the full loop is its probe: once its queues have emptied
  // every user is in service (no fold); else, some completions in, those not queued are what the cluster
  // holds in service, and the loop restarts with the users the queues need. That count is read every
  // `step` completions and taken once it has settled (grown by less than SETTLED since the last read);
  // while it still grows (a decode pool filling behind a prefill queue) it is not one yet. Once even it
  // leaves too few users out to fold, or the cluster has preempted, the full loop goes on.
  let users = conc;
  let decided = !foldable;
  const step = Math.max(PROBE_STEP, Math.ceil(conc / 16));
  let nextAt = step;
  let lastInService = 0;
  const probe = (finished: number) => {
    if (decided) return false;
    const queued = sumQueued(cluster.prefill) + sumQueued(cluster.decode) + cluster.heldArrivals;
    if (queued === 0) decided = true;
    else if (finished >= nextAt) {
      nextAt += step;
      const inService = conc - queued;
      // A cluster that preempts in the warm-up would preempt in a folded window too, which refuses it.
      if (foldedUsers(conc, inService, measured) === conc || cluster.gauges().preemptionsTotal > 0)
        decided = true;
      else if (inService <= (1 + SETTLED) * lastInService) {
        decided = true;
        users = foldedUsers(conc, inService, measured);
      }
      lastInService = inService;
    }
    return users < conc;
  };
  let r = run(conc, { probe });
  const probed = r.probed;
  let fold: QueueFold | null = null;
  // Two tries at most: the probe's estimate, then the most the folded run itself held in service.
  for (let tries = 0; users < conc; tries++) {
    const pre = new QueueWatch();
    const dec = new QueueWatch();
    const all = new QueueWatch();
    let preemptedBefore = -1;
    let events = 0;
    const preempted = () => cluster.gauges().preemptionsTotal !== preemptedBefore;
    const watch = () => {
      if (preemptedBefore < 0) preemptedBefore = cluster.gauges().preemptionsTotal;
      // A request held until the clocks reach its arrival is bound for the prefill pool's shortest queue.
      const held = cluster.heldArrivals;
      let n = held;
      let shortest = Number.POSITIVE_INFINITY;
      for (const e of cluster.prefill) {
        shortest = Math.min(shortest, e.queued);
        n += e.queued;
      }
      pre.see(shortest + held);
      for (const e of cluster.decode) {
        dec.see(e.queued);
        n += e.queued;
      }
      all.see(n);
      // Both queues have run dry, or the cluster preempted: the fold is refused whatever follows. (The
      // gauges sum every worker's: read now and then.)
      return (!pre.held && !dec.held) || (++events % PREEMPTION_READS === 0 && preempted());
    };
    cluster = build();
    r = run(users, { watch });
    const even = !preempted();
    if (!r.stopped && even && (pre.held || dec.held)) {
      const queueMs = foldWaitMs(conc - users, r.e2eMs.length, r.windowMs);
      fold = { users, queueMs, place: pre.held ? 'before-first-token' : 'after-first-token' };
      addQueueWait(r, fold);
      break;
    }
    // A queue ran dry: the estimate was short; again with more users. Or preemptions made the admissions
    // come in bursts, whose wait is not k / λ: every user.
    users = even && tries === 0 ? foldedUsers(conc, users - all.low, measured) : conc;
  }
  // The probe cut the full loop short for a fold that was then refused: the full loop, every user.
  if (probed && fold === null) {
    cluster = build();
    r = run(conc, {});
  }
  const seconds = r.windowMs / 1000;
  const out = r.outputTokens / seconds;
  const input = r.inputTokens / seconds;
  const tpot = latencyStats(r.tpotMs);
  const g = cluster.gauges();
  return {
    gpus: cluster.gpus,
    concurrency: w.concurrency,
    throughputPerGpu: (out + input) / cluster.gpus,
    outputThroughputPerGpu: out / cluster.gpus,
    inputThroughputPerGpu: input / cluster.gpus,
    interactivity: tpot.median > 0 ? 1000 / tpot.median : 0,
    ttftMs: latencyStats(r.ttftMs),
    e2eMs: latencyStats(r.e2eMs),
    tpotMs: tpot,
    measuredRequests: r.ttftMs.length,
    windowMs: r.windowMs,
    steps: g.stepsTotal,
    preemptions: g.preemptionsTotal,
    peakKvUsage: r.peakKvUsage,
    kvCapacityTokens: g.kvCapacityTokens,
    fold,
    halves: asMeasured ? null : halvesOf(r),
  };
}

/** The window's halves (window-halves.ts), after any fold's wait was added. */
function halvesOf(r: LoopResult) {
  return windowHalves(
    r.outputs.map((outputTokens, i) => ({ outputTokens, ttftMs: r.ttftMs[i]!, e2eMs: r.e2eMs[i]! })),
  );
}

/** Completions of the full loop's warm-up between its probe's reads (at least; 1/16 of the users). */
const PROBE_STEP = 32;
/** Events of a folded window between the watch's reads of the cluster's preemptions. */
const PREEMPTION_READS = 64;
/** Growth of the users in service between two reads under which the probe takes the count as settled. */
const SETTLED = 0.05;

function sumQueued(engines: readonly { queued: number }[]): number {
  let n = 0;
  for (const e of engines) n += e.queued;
  return n;
}

/** The folded users' wait, where their queue is: before the first token, or between it and the second. */
function addQueueWait(r: LoopResult, fold: QueueFold): void {
  const q = fold.queueMs;
  for (let i = 0; i < r.e2eMs.length; i++) r.e2eMs[i]! += q;
  if (fold.place === 'before-first-token') for (let i = 0; i < r.ttftMs.length; i++) r.ttftMs[i]! += q;
  else for (let i = 0; i < r.tpotMs.length; i++) r.tpotMs[i]! += q / (r.tpotOutputs[i]! - 1);
}
