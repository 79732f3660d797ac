import type { AgenticInteractivity, AgenticMetrics } from '../../schema/agentic-metrics.ts';
import type { AgenticMeasure } from './records.ts';
import { agenticStats, interactivityOf, positiveFinite } from './stats.ts';

/** Latency, interactivity and token distributions of the kept records (client-metrics-spec §4.4). */

/** A request latency and an output length, from the same record. */
export interface LatencyOsl {
  requestLatencyMs: number | null;
  osl: number | null;
}

const positive = (v: number | null): v is number => v !== null && Number.isFinite(v) && v > 0;

/**
 * E2E-normalized interactivity, the headline x-axis: per record r = E2EL / OSL (ms per output token),
 * only where both are finite and positive on that record (never paired across records), then each
 * statistic inverted: `1000 / stat(r)` tokens/s, std over the per-record OSL/E2EL.
 */
export function e2eNormIntvty(pairs: readonly LatencyOsl[]): AgenticInteractivity {
  const r: number[] = [];
  for (const p of pairs) {
    if (positive(p.requestLatencyMs) && positive(p.osl)) r.push(p.requestLatencyMs / p.osl);
  }
  return interactivityOf(r);
}

export function latencyOf(m: readonly AgenticMeasure[]): {
  latency: AgenticMetrics['latency'];
  interactivity: AgenticMetrics['interactivity'];
} {
  const itl = positiveFinite(m.map((x) => x.itlMs));
  const fullResponseItl = positiveFinite(m.map((x) => x.fullResponseItlMs));
  const itlStats = agenticStats(itl);
  return {
    latency: {
      ttftMs: agenticStats(positiveFinite(m.map((x) => x.ttftMs))),
      e2elMs: agenticStats(positiveFinite(m.map((x) => x.requestLatencyMs))),
      itlMs: itlStats,
      // The reference's tpot is a copy of its itl: the same per-request list.
      tpotMs: { ...itlStats },
      fullResponseItlMs: agenticStats(fullResponseItl),
    },
    interactivity: {
      intvty: interactivityOf(itl),
      e2eNormIntvty: e2eNormIntvty(m),
      fullResponseIntvty: interactivityOf(fullResponseItl),
    },
  };
}

export function tokensOfMeasures(m: readonly AgenticMeasure[]): AgenticMetrics['tokens'] {
  let totalInput = 0;
  let totalOutput = 0;
  for (const x of m) {
    totalInput += x.isl;
    totalOutput += x.osl;
  }
  return {
    input: agenticStats(m.map((x) => x.isl)),
    outputActual: agenticStats(m.map((x) => x.osl)),
    outputExpected: agenticStats(m.map((x) => x.expectedOsl).filter((v): v is number => v !== null)),
    totalInput,
    totalOutput,
  };
}
