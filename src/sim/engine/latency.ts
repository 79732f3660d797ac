/** Latency distributions of a prediction, as the reference client reports them. */

export interface LatencyStats {
  mean: number;
  median: number;
  p90: number;
  p99: number;
}

/** Linear-interpolated percentile (NumPy's default), as the reference client computes. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const k = ((sorted.length - 1) * p) / 100;
  const f = Math.floor(k);
  const lo = sorted[f]!;
  return f + 1 < sorted.length ? lo + (k - f) * (sorted[f + 1]! - lo) : lo;
}

export function latencyStats(values: readonly number[]): LatencyStats {
  // A typed array sorts numerically in native code: the same order as a comparator sort, much faster.
  const s = Float64Array.from(values).sort();
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return { mean, median: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99) };
}
