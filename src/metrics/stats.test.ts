import { describe, expect, it } from 'vitest';
import { StatsSchema } from '../schema/point-result.ts';
import { median, percentile, sum, summarize } from './stats.ts';

describe('percentile (NumPy linear)', () => {
  it('interpolates between neighbours at k = (n−1)·p/100', () => {
    // k = 3·0.9 = 2.7 → 3 + 0.7·(4 − 3)
    expect(percentile([1, 2, 3, 4], 90)).toBeCloseTo(3.7, 12);
    // k = 3·0.25 = 0.75 → 1 + 0.75
    expect(percentile([1, 2, 3, 4], 25)).toBe(1.75);
    // k = 999·0.999 = 998.001 → 999 + 0.001
    const thousand = Float64Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(thousand, 99.9)).toBeCloseTo(999.001, 9);
  });

  it('returns the ends at p = 0 and p = 100, and the value itself for n = 1', () => {
    expect(percentile([3, 5, 9], 0)).toBe(3);
    expect(percentile([3, 5, 9], 100)).toBe(9);
    expect(percentile([42], 99.9)).toBe(42);
  });

  it('rejects empty input and p outside [0, 100]', () => {
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('uses the population standard deviation', () => {
    // mean 5, squared deviations sum 32, /8 = 4 → 2 (the sample std would be 2.138)
    const s = summarize([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(s.mean).toBe(5);
    expect(s.std).toBe(2);
    expect(s.count).toBe(8);
    expect(s.min).toBe(2);
    expect(s.max).toBe(9);
  });

  it('takes the median as np.median does: the mean of the two middle values', () => {
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(median([1, 2, 10])).toBe(2);
    expect(summarize([10, 1, 4, 2]).median).toBe(3);
  });

  it('matches NumPy bit for bit (values printed by np.mean/std/median/percentile)', () => {
    const cases: [number[], number[]][] = [
      [
        [1, 2, 3, 4],
        [2.5, 1.118033988749895, 2.5, 3.25, 3.7, 3.8499999999999996, 3.9699999999999998, 3.9970000000000003],
      ],
      [
        [0.1, 0.2, 0.3, 0.7, 1.1, 1.3, 2.9],
        [
          0.9428571428571428, 0.9037337516534121, 0.7, 1.2000000000000002, 1.9400000000000006,
          2.419999999999999, 2.803999999999999, 2.890400000000001,
        ],
      ],
      [
        [12.5, 3.25, 7.0, 19.75, 5.5, 8.125, 31.0, 2.0, 4.75, 11.0],
        [
          10.4875, 8.431053092585765, 7.5625, 12.125, 20.874999999999996, 25.937499999999986, 29.9875,
          30.898750000000017,
        ],
      ],
    ];
    for (const [values, expected] of cases) {
      const s = summarize(values);
      expect([s.mean, s.std, s.median, s.p75, s.p90, s.p95, s.p99, s['p99.9']]).toEqual(expected);
    }
  });

  it('sums pairwise like np.sum, not left to right', () => {
    // np.sum(np.full(300, 0.1)) prints 29.999999999999996; Python's left-to-right sum gives 30.000000000000156.
    const tenths = new Float64Array(300).fill(0.1);
    let naive = 0;
    for (const v of tenths) naive += v;
    expect(naive).toBe(30.000000000000156);
    expect(sum(tenths)).toBe(29.999999999999996);
    // np.sum of [1e16, 1 × 15] prints 1.0000000000000014e+16.
    const big = new Float64Array(16).fill(1);
    big[0] = 1e16;
    expect(sum(big)).toBe(1.0000000000000014e16);
  });

  it('gives null for every statistic of an empty list (never 0)', () => {
    const s = summarize([]);
    expect(s).toEqual({
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
    expect(StatsSchema.parse(s)).toEqual(s);
  });

  it('handles a single value and does not reorder the caller’s array', () => {
    const input = [9, 1, 5];
    summarize(input);
    expect(input).toEqual([9, 1, 5]);
    expect(summarize([7])).toMatchObject({ count: 1, mean: 7, std: 0, median: 7, 'p99.9': 7 });
  });

  it('summarizes a million values', () => {
    const n = 1_000_000;
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) values[i] = (i * 7919) % n; // a permutation of 0..n−1
    const s = summarize(values);
    expect(s.median).toBe(499_999.5);
    expect(s.p99).toBeCloseTo(989_999.01, 6);
    expect(s.max).toBe(n - 1);
    expect(s.mean).toBe(499_999.5);
  });

  it('rejects non-finite values instead of sorting them somewhere', () => {
    expect(() => summarize([1, Number.NaN])).toThrow(/non-finite/);
    expect(() => summarize([Number.POSITIVE_INFINITY])).toThrow(/non-finite/);
  });
});
