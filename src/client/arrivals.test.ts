import { describe, expect, it } from 'vitest';
import { arrivalOffsetsMs } from './arrivals.ts';

// A small deterministic uniform source, so the test does not depend on the workload's generator.
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function meanAndCv(offsets: Float64Array) {
  const gaps = Array.from(offsets.subarray(1), (t, i) => t - (offsets[i] as number));
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
  return { mean, cv: sd / mean };
}

describe('arrivalOffsetsMs', () => {
  it('starts at 0, is non-decreasing and averages 1000/rate ms apart', () => {
    const o = arrivalOffsetsMs(20_000, 10, 1, lcg(1));
    expect(o[0]).toBe(0);
    for (let i = 1; i < o.length; i++) expect(o[i]).toBeGreaterThanOrEqual(o[i - 1] as number);
    const { mean, cv } = meanAndCv(o);
    expect(mean).toBeGreaterThan(97);
    expect(mean).toBeLessThan(103);
    // Poisson arrivals: exponential gaps, coefficient of variation 1.
    expect(cv).toBeGreaterThan(0.95);
    expect(cv).toBeLessThan(1.05);
  });

  it('burstiness is the gamma shape: CV = 1/sqrt(shape)', () => {
    expect(meanAndCv(arrivalOffsetsMs(20_000, 5, 4, lcg(2))).cv).toBeCloseTo(0.5, 1);
    expect(meanAndCv(arrivalOffsetsMs(20_000, 5, 0.25, lcg(3))).cv).toBeCloseTo(2, 0);
  });
});
