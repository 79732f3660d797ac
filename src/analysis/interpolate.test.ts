import { describe, expect, it } from 'vitest';
import { hermiteAt, interpolateAt, monotoneSpline, place, steffenTangents } from './interpolate.ts';

const knots = (xs: number[], ys: number[]) => xs.map((x, i) => ({ x, values: { y: ys[i] as number } }));

describe('steffenTangents and hermiteAt', () => {
  it('a 3-point front, worked by hand', () => {
    // x = [0, 1, 3], y = [0, 2, 3]: h0 = 1, h1 = 2, s0 = 2, s1 = 0.5.
    // p1 = (s0·h1 + s1·h0)/(h0 + h1) = (4 + 0.5)/3 = 1.5
    // m1 = (sign 2 + sign 0.5) · min(2, 0.5, 0.75) = 2 · 0.5 = 1
    // m0 = (3·s0 − m1)/2 = (6 − 1)/2 = 2.5;  m2 = (3·s1 − m1)/2 = (1.5 − 1)/2 = 0.25
    const xs = [0, 1, 3];
    const ys = [0, 2, 3];
    const ms = steffenTangents(xs, ys);
    expect(ms).toEqual([2.5, 1, 0.25]);
    // x = 0.5: t = 0.5, h = 1; h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = −0.125
    // y = 0.5·0 + 0.125·1·2.5 + 0.5·2 − 0.125·1·1 = 0.3125 + 1 − 0.125 = 1.1875
    expect(hermiteAt(xs, ys, ms, 0.5)).toBeCloseTo(1.1875, 12);
    // x = 2: t = 0.5, h = 2: y = 0.5·2 + 0.125·2·1 + 0.5·3 − 0.125·2·0.25 = 1 + 0.25 + 1.5 − 0.0625 = 2.6875
    expect(hermiteAt(xs, ys, ms, 2)).toBeCloseTo(2.6875, 12);
    // Knots are hit exactly.
    for (let i = 0; i < 3; i++)
      expect(hermiteAt(xs, ys, ms, xs[i] as number)).toBeCloseTo(ys[i] as number, 12);
  });

  it('a linear front interpolates linearly', () => {
    const xs = [10, 20, 40, 50];
    const ys = xs.map((x) => 1000 - 8 * x);
    const f = monotoneSpline(xs, ys);
    expect(steffenTangents(xs, ys)).toEqual([-8, -8, -8, -8]);
    for (const x of [10, 12.5, 25, 33, 47, 50]) expect(f(x)).toBeCloseTo(1000 - 8 * x, 9);
  });

  it('two knots give a straight line', () => {
    const f = monotoneSpline([50, 150], [3000, 1000]);
    expect(f(100)).toBeCloseTo(2000, 9);
    expect(f(75)).toBeCloseTo(2500, 9);
  });

  it('flat at local extrema and on flat steps', () => {
    const xs = [0, 1, 2, 3, 4, 5];
    const ys = [0, 0, 0, 1, 1, 1];
    const ms = steffenTangents(xs, ys);
    expect(ms[1]).toBe(0);
    expect(ms[2]).toBe(0);
    expect(ms[3]).toBe(0);
    const f = monotoneSpline(xs, ys);
    for (let x = 0; x <= 5; x += 0.05) {
      expect(f(x)).toBeGreaterThanOrEqual(-1e-12);
      expect(f(x)).toBeLessThanOrEqual(1 + 1e-12);
    }
    expect(f(1.5)).toBe(0);
  });

  it('never overshoots: monotone data give a monotone spline (random fronts)', () => {
    let seed = 11;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let trial = 0; trial < 200; trial++) {
      const n = 2 + Math.floor(rand() * 7);
      const xs: number[] = [];
      const ys: number[] = [];
      let x = rand() * 10;
      let y = 5000 * rand() + 100;
      for (let i = 0; i < n; i++) {
        xs.push(x);
        ys.push(y);
        x += 0.1 + rand() * (rand() < 0.2 ? 100 : 5);
        y -= rand() < 0.2 ? 0 : rand() * (rand() < 0.2 ? 3000 : 50);
      }
      const f = monotoneSpline(xs, ys);
      let prev = Number.POSITIVE_INFINITY;
      const lo = xs[0] as number;
      const hi = xs.at(-1) as number;
      const min = Math.min(...ys) - 1e-9;
      const max = Math.max(...ys) + 1e-9;
      const bad: number[] = [];
      for (let k = 0; k <= 400; k++) {
        const x = lo + ((hi - lo) * k) / 400;
        const v = f(x);
        if (v > prev + 1e-9 * Math.abs(prev) || v < min || v > max) bad.push(x);
        prev = v;
      }
      expect(bad, `front ${JSON.stringify({ xs, ys })}`).toEqual([]);
    }
  });

  it('rejects unsorted or duplicate knots', () => {
    expect(() => steffenTangents([1, 1], [2, 3])).toThrow(/strictly increasing/);
    expect(() => steffenTangents([], [])).toThrow(/non-empty/);
  });
});

describe('interpolateAt', () => {
  const front = knots([50, 100, 150], [3000, 1500, 1000]);

  it('inside the range: not clamped', () => {
    const r = interpolateAt(front, ['y'], 100);
    expect(r).toMatchObject({
      target: 100,
      x: 100,
      clamped: false,
      clampedAbove: false,
      clampedBelow: false,
    });
    expect(r.values.y).toBeCloseTo(1500, 9);
  });

  it('below and above the range: clamped to the ends, never extrapolated', () => {
    const below = interpolateAt(front, ['y'], 10);
    expect(below).toMatchObject({
      target: 10,
      x: 50,
      clamped: true,
      clampedBelow: true,
      clampedAbove: false,
    });
    expect(below.values.y).toBe(3000);
    const above = interpolateAt(front, ['y'], 400);
    expect(above).toMatchObject({ x: 150, clamped: true, clampedAbove: true, clampedBelow: false });
    expect(above.values.y).toBe(1000);
  });

  it('a single-point front returns that point', () => {
    const one = knots([80], [2222]);
    expect(interpolateAt(one, ['y'], 80)).toMatchObject({ clamped: false, values: { y: 2222 } });
    expect(interpolateAt(one, ['y'], 90)).toMatchObject({
      clamped: true,
      clampedAbove: true,
      values: { y: 2222 },
    });
  });

  it('every metric of the knots, null when a knot lacks it, clamped to the front', () => {
    const f = [
      { x: 1, values: { a: 10, b: 5, c: null } },
      { x: 2, values: { a: 8, b: 5, c: 1 } },
      { x: 4, values: { a: 1, b: 9, c: 2 } },
    ];
    const r = interpolateAt(f, ['a', 'b', 'c'], 3);
    expect(r.values.c).toBeNull();
    expect(r.values.a).toBeGreaterThanOrEqual(1);
    expect(r.values.a).toBeLessThanOrEqual(8);
    expect(r.values.b).toBeGreaterThanOrEqual(5);
    expect(r.values.b).toBeLessThanOrEqual(9);
  });

  it('place() reports the side', () => {
    expect(place([1, 2], 1.5)).toEqual({
      target: 1.5,
      x: 1.5,
      clamped: false,
      clampedAbove: false,
      clampedBelow: false,
    });
  });

  it('rejects a non-finite target', () => {
    expect(() => interpolateAt(front, ['y'], Number.NaN)).toThrow(/finite/);
  });
});
