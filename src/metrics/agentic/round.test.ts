import { describe, expect, it } from 'vitest';
import { round5, roundDeep } from './round.ts';

describe("the reference's rounding", () => {
  it('rounds to 5 decimals (spec §10 cases 22, 23)', () => {
    expect(round5(12345.678901 / 37037.036703)).toBe(0.33333);
    expect(round5(12345.678901)).toBe(12345.6789);
    expect(round5(0.123456789)).toBe(0.12346);
    expect(round5(-0.123456789)).toBe(-0.12346);
    expect(round5(0.5)).toBe(0.5);
    expect(JSON.stringify([round5(2.0), round5(10_000_000 / 1), round5(1.000001)])).toBe('[2,10000000,1]');
  });

  it("breaks exact ties to even, as Python's round does", () => {
    // 1/64 = 0.015625 exactly: Python round(…, 5) → 0.01562 (2 is even); 3/64 = 0.046875 → 0.04688.
    expect(round5(1 / 64)).toBe(0.01562);
    expect(round5(3 / 64)).toBe(0.04688);
    expect(round5(-1 / 64)).toBe(-0.01562);
    // 2.675 is no tie in binary (its double lies below 2.675): it needs no rounding at 5 decimals.
    expect(round5(2.675)).toBe(2.675);
  });

  it('reaches every number of a nested value and leaves the rest', () => {
    expect(roundDeep({ a: [1 / 3, 'x', null, true], b: { c: 2 / 3 }, d: Number.NaN })).toEqual({
      a: [0.33333, 'x', null, true],
      b: { c: 0.66667 },
      d: null,
    });
  });
});
