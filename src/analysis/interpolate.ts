/**
 * Interpolation at a matched x (client-metrics-spec §8.3): the Steffen monotone cubic Hermite spline, the
 * same slopes as d3.curveMonotoneX, so a value read here lies on the line the chart draws. Never
 * extrapolates: a target outside the front's x range is clamped to the nearest end and reported as such.
 */

const sign = (v: number) => (v > 0 ? 1 : v < 0 ? -1 : 0);

function checkKnots(xs: readonly number[], ys: readonly number[]): void {
  if (xs.length === 0 || xs.length !== ys.length)
    throw new RangeError(`a spline needs matching, non-empty x and y (got ${xs.length} x, ${ys.length} y)`);
  for (let i = 1; i < xs.length; i++) {
    if (!((xs[i] as number) > (xs[i - 1] as number)))
      throw new RangeError(`spline knots must have strictly increasing x (x[${i}] = ${xs[i]})`);
  }
}

/**
 * Tangents at the knots. Interior: m_i = (sign(s_{i−1}) + sign(s_i)) · min(|s_{i−1}|, |s_i|, ½|p_i|) with
 * p_i = (s_{i−1}h_i + s_i h_{i−1}) / (h_{i−1} + h_i). Ends: m_0 = (3s_0 − m_1)/2, m_{n−1} = (3s_{n−2} −
 * m_{n−2})/2. Two knots: both tangents are the slope (a straight line, as d3 draws it).
 */
export function steffenTangents(xs: readonly number[], ys: readonly number[]): number[] {
  checkKnots(xs, ys);
  const n = xs.length;
  if (n === 1) return [0];
  const h = (i: number) => (xs[i + 1] as number) - (xs[i] as number);
  const s = (i: number) => ((ys[i + 1] as number) - (ys[i] as number)) / h(i);
  if (n === 2) return [s(0), s(0)];
  const m = new Array<number>(n).fill(0);
  for (let i = 1; i < n - 1; i++) {
    const s0 = s(i - 1);
    const s1 = s(i);
    const p = (s0 * h(i) + s1 * h(i - 1)) / (h(i - 1) + h(i));
    m[i] = (sign(s0) + sign(s1)) * Math.min(Math.abs(s0), Math.abs(s1), 0.5 * Math.abs(p));
  }
  m[0] = (3 * s(0) - (m[1] as number)) / 2;
  m[n - 1] = (3 * s(n - 2) - (m[n - 2] as number)) / 2;
  return m;
}

/** The cubic Hermite value at x on the segment that brackets it (x within [xs[0], xs[n−1]]). */
export function hermiteAt(xs: readonly number[], ys: readonly number[], ms: readonly number[], x: number) {
  const n = xs.length;
  if (n === 1) return ys[0] as number;
  let i = 0;
  while (i < n - 2 && x > (xs[i + 1] as number)) i++;
  const x0 = xs[i] as number;
  const hi = (xs[i + 1] as number) - x0;
  const t = (x - x0) / hi;
  const t2 = t * t;
  const t3 = t2 * t;
  const h00 = 2 * t3 - 3 * t2 + 1;
  const h10 = t3 - 2 * t2 + t;
  const h01 = -2 * t3 + 3 * t2;
  const h11 = t3 - t2;
  return (
    h00 * (ys[i] as number) +
    h10 * hi * (ms[i] as number) +
    h01 * (ys[i + 1] as number) +
    h11 * hi * (ms[i + 1] as number)
  );
}

/** The monotone spline through the knots, as a function (x is not clamped: callers clamp). */
export function monotoneSpline(xs: readonly number[], ys: readonly number[]): (x: number) => number {
  const ms = steffenTangents(xs, ys);
  return (x) => hermiteAt(xs, ys, ms, x);
}

/** Where a target landed relative to the front's x range. */
export interface Placement {
  /** The x asked for. */
  target: number;
  /** The x interpolated at: the target clamped into the front's range. */
  x: number;
  clamped: boolean;
  /** The target was above the largest x of the front. */
  clampedAbove: boolean;
  /** The target was below the smallest x of the front. */
  clampedBelow: boolean;
}

export interface Knot<K extends string> {
  x: number;
  values: Readonly<Record<K, number | null>>;
}

export interface Interpolated<K extends string> extends Placement {
  /** Each metric at x, clamped to its min/max on the front; null when a knot lacks it. */
  values: Record<K, number | null>;
}

/** Clamps a target into [xs[0], xs[n−1]] and says on which side it fell out. */
export function place(xs: readonly number[], target: number): Placement {
  const lo = xs[0] as number;
  const hi = xs.at(-1) as number;
  const clampedBelow = target < lo;
  const clampedAbove = target > hi;
  const x = clampedBelow ? lo : clampedAbove ? hi : target;
  return { target, x, clamped: clampedBelow || clampedAbove, clampedAbove, clampedBelow };
}

/**
 * Every metric of a front (knots sorted by strictly increasing x) at `target`. A single-knot front returns
 * that knot's values (clamped unless the target is its x).
 */
export function interpolateAt<K extends string>(
  front: readonly Knot<K>[],
  keys: readonly K[],
  target: number,
): Interpolated<K> {
  if (!Number.isFinite(target)) throw new RangeError(`interpolation target must be finite, got ${target}`);
  const xs = front.map((k) => k.x);
  checkKnots(xs, xs);
  const placement = place(xs, target);
  const values = {} as Record<K, number | null>;
  for (const key of keys) {
    const ys = front.map((k) => k.values[key]);
    if (!ys.every((y): y is number => typeof y === 'number' && Number.isFinite(y))) {
      values[key] = null;
      continue;
    }
    const v = hermiteAt(xs, ys, steffenTangents(xs, ys), placement.x);
    values[key] = Math.min(Math.max(v, Math.min(...ys)), Math.max(...ys));
  }
  return { ...placement, values };
}
