import type { AgenticInteractivity, AgenticStats } from '../../schema/agentic-metrics.ts';
import { percentile, sum } from '../stats.ts';

/**
 * The agentic statistics (client-metrics-spec §4.1, §4.4): mean, NumPy-linear p50/p75/p90/p95 and the
 * population std. These are ../stats.ts's percentile and sum (the same NumPy definitions); only the set
 * of statistics differs. Empty input gives nulls ("not measured"); the reference's 0 is the export's
 * business (inferencex-export.ts).
 */

export const EMPTY_AGENTIC_STATS: AgenticStats = Object.freeze({
  count: 0,
  mean: null,
  p50: null,
  p75: null,
  p90: null,
  p95: null,
  std: null,
});

function mean(values: Float64Array): number {
  return sum(values) / values.length;
}

function populationStd(values: Float64Array, m: number): number {
  const sq = values.map((v) => (v - m) * (v - m));
  return Math.sqrt(sum(sq) / values.length);
}

export function agenticStats(values: readonly number[]): AgenticStats {
  const n = values.length;
  if (n === 0) return { ...EMPTY_AGENTIC_STATS };
  const data = Float64Array.from(values);
  const m = mean(data);
  const sorted = Float64Array.from(data).sort();
  return {
    count: n,
    mean: m,
    p50: percentile(sorted, 50),
    p75: percentile(sorted, 75),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    // pstdev of one value is 0, which the reference also sets explicitly.
    std: n === 1 ? 0 : populationStd(data, m),
  };
}

/** The reference keeps latency values that are finite and > 0 only (§4.4). */
export const positiveFinite = (values: readonly (number | null)[]): number[] =>
  values.filter((v): v is number => v !== null && Number.isFinite(v) && v > 0);

const invert = (v: number | null): number | null => (v !== null && v > 0 ? 1000 / v : null);

/**
 * Interactivity (tokens/s) from per-request ms-per-token values: each statistic inverted (slow tail: the
 * p90 of interactivity is 1/p90 of the time per token), std over the per-request reciprocals (§4.4).
 */
export function interactivityOf(msPerToken: readonly number[]): AgenticInteractivity {
  const s = agenticStats(msPerToken);
  const reciprocals = agenticStats(msPerToken.map((v) => 1000 / v));
  return {
    mean: invert(s.mean),
    p50: invert(s.p50),
    p75: invert(s.p75),
    p90: invert(s.p90),
    p95: invert(s.p95),
    std: reciprocals.std,
  };
}
