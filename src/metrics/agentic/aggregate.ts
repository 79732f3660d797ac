import type { AgenticMetrics } from '../../schema/agentic-metrics.ts';
import type { AgenticRequestRecord } from '../../schema/agentic-record.ts';
import type { AgenticCodingWorkload } from '../../schema/workload.ts';
import { engineView, scaledView } from '../clock-view.ts';
import type { AgenticReplayFacts, PointInput } from '../point-input.ts';
import { theoreticalCacheHitRate, theoreticalPrefixCacheHit } from './cache.ts';
import { coverageOf, errorGateOf, FAILED_REQUEST_THRESHOLD, healthOf, submissionValidity } from './health.ts';
import { latencyOf, tokensOfMeasures } from './latency.ts';
import { accountingOf, isKept, measureOf } from './records.ts';
import { qpsOf, throughputOf } from './throughput.ts';

/**
 * The agentic block of a point from its request records (client-metrics-spec §4.4, addendum §1); the
 * point's whole result is point.ts's.
 */

export type { AgenticReplayFacts };

/**
 * An aggregator's input (metrics/point-input.ts) with agentic records and the replay's facts. It cannot
 * be a plain PointInput until RequestRecord carries the optional `agentic` fields.
 */
export type AgenticAggregateInput = Omit<PointInput<AgenticCodingWorkload>, 'records'> & {
  records: readonly AgenticRequestRecord[];
  replay: AgenticReplayFacts;
};

/** Every allocated GPU: the total when given, else prefill + decode. */
export function allocatedGpus(g: AgenticAggregateInput['gpus']): number | null {
  if (g.total !== null) return g.total;
  return g.prefill !== null && g.decode !== null ? g.prefill + g.decode : null;
}

export function aggregateAgentic(input: AgenticAggregateInput): AgenticMetrics {
  // The figures' view of a record, as for fixed-seq-len points: the engine's stamps, or wall times × the
  // time scale of a simulated engine. (The engine has no "response fully read": on its clock the
  // full-response ITL is the ITL.)
  const scale = input.engine.timeScale ?? 1;
  const view = (r: AgenticRequestRecord): AgenticRequestRecord => ({
    ...(input.clock === 'engine' ? engineView(r) : scaledView(r, scale)),
    agentic: r.agentic,
  });
  const kept = input.records.filter(isKept);
  const measures = kept.map((r) => measureOf(view(r)));
  const { latency, interactivity } = latencyOf(measures);
  const prefix = theoreticalPrefixCacheHit(input.records);
  const health = healthOf(input.records, input.replay.creditDropCount);
  const coverage = coverageOf(
    kept.map((r) => measureOf(r).observedMs),
    { startMs: input.replay.profilingStartMs, endMs: input.replay.profilingEndMs },
  );
  const errorGate = errorGateOf(
    input.records,
    input.replay.failedRequestThreshold ?? FAILED_REQUEST_THRESHOLD,
  );
  const validity = submissionValidity({
    coverage,
    health,
    errorGate,
    runCancelled: input.replay.runCancelled,
    durationS: input.workload.durationS,
    kept: kept.length,
  });
  return {
    accounting: accountingOf(input.records),
    latency,
    interactivity,
    tokens: tokensOfMeasures(measures),
    throughput: throughputOf(measures, allocatedGpus(input.gpus)),
    qps: qpsOf(measures.map((m) => m.endMs).filter((v): v is number => v !== null)),
    cache: { theoreticalPrefixCacheHit: prefix, theoreticalCacheHitRate: theoreticalCacheHitRate(prefix) },
    health,
    coverage,
    errorGate,
    submissionValid: validity.valid,
    submissionInvalidReasons: validity.reasons,
    server: input.replay.server ?? null,
  };
}
