import type { LatencyStats } from './latency.ts';
import type { PredictResult } from './predict.ts';

/**
 * The prediction for an aggregated pool: `replicas` identical engines behind a router that balances their
 * load, at `conc` users in all. The users split as evenly as they go: k engines hold ⌈conc/N⌉ and the rest
 * ⌊conc/N⌋ (idle engines when conc < N still count their GPUs). Throughput is the engines' sum over every
 * GPU of the pool. With an even split the latencies are one engine's exactly; with an uneven one the means
 * are the request-weighted mix and the percentiles (and so interactivity) are those of the group that
 * serves most of the requests.
 */
export function predictReplicas(
  replicas: number,
  conc: number,
  one: (conc: number) => PredictResult,
): PredictResult {
  const hi = Math.ceil(conc / replicas);
  const lo = Math.floor(conc / replicas);
  const busy = conc - lo * replicas;
  const a = one(hi);
  const gpus = a.gpus * replicas;
  if (busy === 0 || busy === replicas)
    return { ...a, gpus, concurrency: conc, kvCapacityTokens: a.kvCapacityTokens * replicas };
  const b = lo >= 1 ? one(lo) : null;
  const rest = replicas - busy;
  const perGpu = (f: (r: PredictResult) => number) => (f(a) * busy + (b ? f(b) * rest : 0)) / replicas;
  // Requests per engine-ms in each group: a closed loop of n users whose requests take e2e ms each.
  const rateA = (busy * hi) / Math.max(a.e2eMs.mean, 1e-9);
  const rateB = b ? (rest * lo) / Math.max(b.e2eMs.mean, 1e-9) : 0;
  const major = b && rateB > rateA ? b : a;
  const mix = (f: (r: PredictResult) => LatencyStats): LatencyStats => ({
    ...f(major),
    mean: b ? (f(a).mean * rateA + f(b).mean * rateB) / (rateA + rateB) : f(a).mean,
  });
  return {
    ...major,
    gpus,
    concurrency: conc,
    throughputPerGpu: perGpu((r) => r.throughputPerGpu),
    outputThroughputPerGpu: perGpu((r) => r.outputThroughputPerGpu),
    inputThroughputPerGpu: perGpu((r) => r.inputThroughputPerGpu),
    ttftMs: mix((r) => r.ttftMs),
    e2eMs: mix((r) => r.e2eMs),
    tpotMs: mix((r) => r.tpotMs),
    measuredRequests: a.measuredRequests * busy + (b ? b.measuredRequests * rest : 0),
    windowMs: Math.max(a.windowMs, b?.windowMs ?? 0),
    steps: a.steps * busy + (b ? b.steps * rest : 0),
    preemptions: a.preemptions * busy + (b ? b.preemptions * rest : 0),
    peakKvUsage: Math.max(a.peakKvUsage, b?.peakKvUsage ?? 0),
    kvCapacityTokens: a.kvCapacityTokens * replicas,
  };
}
