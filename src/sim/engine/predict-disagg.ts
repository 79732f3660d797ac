import { closedLoop } from './closed-loop.ts';
import { DisaggCluster, type DisaggSetup } from './disagg.ts';
import type { EngineChoice } from './fast-engine.ts';
import {
  defaultMeasured,
  latencyStats,
  PredictError,
  type PredictMethod,
  type PredictResult,
} from './predict.ts';

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
  },
): PredictResult {
  const asMeasured = w.method === 'as-measured';
  // The point's seed seeds the workers' acceptance draws too, as a single engine's (predictPoint).
  const seeded = (pool: DisaggSetup['prefill']) =>
    w.seed === undefined ? pool : { ...pool, setup: { ...pool.setup, seed: w.seed } };
  const cluster = new DisaggCluster(
    { prefill: seeded(setup.prefill), decode: seeded(setup.decode) },
    {},
    {},
    asMeasured ? 'exact' : (w.engine ?? 'auto'),
  );
  const room = Math.min(...cluster.decode.map((e) => e.capacityTokens));
  if (w.isl + w.osl + 1 > room)
    throw new PredictError(
      `one request of ${w.isl}+${w.osl} tokens exceeds a decode worker's KV cache (${room} tokens)`,
    );
  const measured = asMeasured
    ? (w.requests?.length ?? w.numPrompts ?? 10 * w.concurrency)
    : defaultMeasured(w.concurrency);
  const r = closedLoop(cluster, {
    asMeasured,
    ...(w.requests ? { requests: w.requests } : {}),
    concurrency: w.concurrency,
    isl: w.isl,
    osl: w.osl,
    measured,
    ...(w.rangeRatio !== undefined ? { rangeRatio: w.rangeRatio } : {}),
    ...(w.seed !== undefined ? { seed: w.seed } : {}),
  });
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
  };
}
