import type { Stats } from '../schema/point-result.ts';

/**
 * Distribution statistics with NumPy's semantics (client-metrics-spec §4.1), so a number infx reports
 * equals what `np.mean` / `np.std` / `np.median` / `np.percentile` print for the same values.
 */

/**
 * NumPy's default ("linear") percentile of an ascending array. The virtual index is `(n−1)·(p/100)`
 * (NumPy divides p first, which matters in the last bit), and the interpolation is done from the upper
 * neighbour when the fraction is ≥ 0.5, as NumPy's `_lerp` does to stay monotone.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('percentile of an empty list');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within [0, 100], got ${p}`);
  const k = (n - 1) * (p / 100);
  const f = Math.floor(k);
  if (f + 1 >= n) return sorted[n - 1]!;
  const t = k - f;
  const a = sorted[f]!;
  const b = sorted[f + 1]!;
  const d = b - a;
  return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

/** `np.median`: the middle value, or the mean of the two middle values (not the 50th-percentile lerp). */
export function median(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('median of an empty list');
  const h = n >> 1;
  return n % 2 === 1 ? sorted[h]! : (sorted[h - 1]! + sorted[h]!) / 2;
}

const BLOCK = 128;

// NumPy's pairwise summation (eight accumulators up to 128 values, halving above): error grows with
// log n instead of n, which matters for millions of ITL gaps, and it reproduces np.sum bit for bit.
function pairwiseSum(a: Float64Array, start: number, n: number): number {
  if (n < 8) {
    let s = -0;
    for (let i = start; i < start + n; i++) s += a[i]!;
    return s;
  }
  if (n <= BLOCK) {
    const r = [a[start]!, a[start + 1]!, a[start + 2]!, a[start + 3]!];
    const r2 = [a[start + 4]!, a[start + 5]!, a[start + 6]!, a[start + 7]!];
    let i = 8;
    for (; i < n - (n % 8); i += 8) {
      const o = start + i;
      r[0]! += a[o]!;
      r[1]! += a[o + 1]!;
      r[2]! += a[o + 2]!;
      r[3]! += a[o + 3]!;
      r2[0]! += a[o + 4]!;
      r2[1]! += a[o + 5]!;
      r2[2]! += a[o + 6]!;
      r2[3]! += a[o + 7]!;
    }
    let s = r[0]! + r[1]! + (r[2]! + r[3]!) + (r2[0]! + r2[1]! + (r2[2]! + r2[3]!));
    for (; i < n; i++) s += a[start + i]!;
    return s;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

/** `np.sum` of the values in the order given. */
export function sum(values: Float64Array): number {
  return pairwiseSum(values, 0, values.length);
}

/** Population standard deviation (`np.std`, ddof 0): two passes around the mean, as NumPy does. */
function populationStd(values: Float64Array, mean: number): number {
  const sq = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const d = values[i]! - mean;
    sq[i] = d * d;
  }
  return Math.sqrt(sum(sq) / values.length);
}

export const EMPTY_STATS: Stats = Object.freeze({
  count: 0,
  mean: null,
  std: null,
  min: null,
  max: null,
  median: null,
  p75: null,
  p90: null,
  p95: null,
  p99: null,
  'p99.9': null,
});

/**
 * Summary of a distribution. Empty input gives every statistic null ("not measured"), never 0.
 * The mean and std are taken in the order given (as NumPy would, on the same list); one sorted copy
 * serves every order statistic, so millions of values cost one typed-array sort.
 */
export function summarize(values: ArrayLike<number>): Stats {
  const n = values.length;
  if (n === 0) return { ...EMPTY_STATS };
  const data = values instanceof Float64Array ? values : Float64Array.from(values);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(data[i]!)) throw new RangeError(`non-finite value at position ${i}: ${data[i]}`);
  }
  const mean = sum(data) / n;
  const std = populationStd(data, mean);
  const sorted = Float64Array.from(data).sort();
  return {
    count: n,
    mean,
    std,
    min: sorted[0]!,
    max: sorted[n - 1]!,
    median: median(sorted),
    p75: percentile(sorted, 75),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    'p99.9': percentile(sorted, 99.9),
  };
}
