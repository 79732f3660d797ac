import { describe, expect, it } from 'vitest';
import { formatTick, formatValue, niceLinear, niceLog, tickStep } from './ticks.ts';

describe('ticks', () => {
  it('steps of 1, 2, 5 × 10ⁿ', () => {
    expect(tickStep(0, 10, 5)).toBe(2);
    expect(tickStep(0, 1600, 6)).toBe(200);
    expect(tickStep(95, 125, 6)).toBe(5);
    expect(tickStep(0, 0.9, 6)).toBeCloseTo(0.2, 12);
  });

  it('a linear domain extended to whole steps', () => {
    expect(niceLinear(0, 1537)).toEqual({
      domain: [0, 1600],
      ticks: [0, 200, 400, 600, 800, 1000, 1200, 1400, 1600],
    });
    const a = niceLinear(0.13, 0.71);
    expect(a.domain).toEqual([0.1, 0.8]);
    expect(a.ticks).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]);
  });

  it('a degenerate range is widened', () => {
    expect(niceLinear(50, 50).domain[0]).toBeLessThan(50);
    expect(niceLinear(50, 50).domain[1]).toBeGreaterThan(50);
    expect(niceLinear(0, 0).domain).toEqual([-1, 1]);
  });

  it('log: ends at 1-2-5 steps; 1-2-5 ticks, or decades when wide', () => {
    expect(niceLog(505, 1700)).toEqual({ domain: [500, 2000], ticks: [500, 1000, 2000] });
    expect(niceLog(120, 900)).toEqual({ domain: [100, 1000], ticks: [100, 200, 500, 1000] });
    expect(niceLog(30, 40_000)).toEqual({ domain: [20, 50_000], ticks: [100, 1000, 10_000] });
    expect(niceLog(100, 100)).toEqual({ domain: [100, 200], ticks: [100, 200] });
    expect(() => niceLog(0, 10)).toThrow(/positive/);
  });

  it('labels', () => {
    expect(formatTick(1600, 200)).toBe('1,600');
    expect(formatTick(0.25, 0.05)).toBe('0.25');
    expect(formatTick(0.2, 0.2)).toBe('0.2');
    expect(formatValue(1464.58)).toBe('1,465');
    expect(formatValue(98.58)).toBe('98.6');
    expect(formatValue(0.012345)).toBe('0.0123');
    expect(formatValue(null)).toBe('N/A');
    expect(formatValue(115.83, 4)).toBe('115.8');
  });
});
