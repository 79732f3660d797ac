import type { CurvePoint } from '../schema/curve.ts';
import { type AxisSpec, type Direction, finite, type Stat, X_AXIS, type XAxis, Y_AXIS } from './axes.ts';

/**
 * Pareto frontiers (client-metrics-spec §8.2). Directions are named by meaning, `{ x: 'max', y: 'min' }`,
 * not by the reference's corner names (dashboard-spec pitfall 24).
 */

export interface Directions {
  x: Direction;
  y: Direction;
}

/** One coordinate of a front; points with identical (x, y) are merged into one, holding all of them. */
export interface FrontPoint<T> {
  x: number;
  y: number;
  items: T[];
}

export type Coords<T> = (item: T) => { x: number | null; y: number | null };

/** Drops non-finite coordinates and merges identical ones, keeping the input order of the items. */
function mergeCoordinates<T>(items: readonly T[], coords: Coords<T>): FrontPoint<T>[] {
  const byCoord = new Map<string, FrontPoint<T>>();
  for (const item of items) {
    const { x, y } = coords(item);
    if (!finite(x) || !finite(y)) continue;
    const key = `${x}|${y}`;
    const hit = byCoord.get(key);
    if (hit === undefined) byCoord.set(key, { x, y, items: [item] });
    else hit.items.push(item);
  }
  return [...byCoord.values()];
}

/** Negative when a is preferred over b in direction d. */
const prefer = (a: number, b: number, d: Direction) => (d === 'max' ? b - a : a - b);

/**
 * The generic frontier (globalParetoFrontier): sort by x in the preferred direction (ties: y preferred
 * first), sweep keeping a point only if its y is strictly better than every point kept so far, return
 * the kept points ascending by x.
 */
export function paretoFrontier<T>(items: readonly T[], coords: Coords<T>, dirs: Directions): FrontPoint<T>[] {
  const sorted = mergeCoordinates(items, coords).sort(
    (a, b) => prefer(a.x, b.x, dirs.x) || prefer(a.y, b.y, dirs.y),
  );
  const kept: FrontPoint<T>[] = [];
  let best: number | undefined;
  for (const p of sorted) {
    if (best === undefined || (dirs.y === 'max' ? p.y > best : p.y < best)) {
      kept.push(p);
      best = p.y;
    }
  }
  return kept.sort((a, b) => a.x - b.x);
}

const flip = (d: Direction): Direction => (d === 'max' ? 'min' : 'max');

/** The "hinterland": the frontier with both directions flipped (the worst points). */
export const hinterland = <T>(items: readonly T[], coords: Coords<T>, dirs: Directions) =>
  paretoFrontier(items, coords, { x: flip(dirs.x), y: flip(dirs.y) });

/**
 * The calculator's front for x = interactivity, y = throughput per GPU (both maximized): sort ascending
 * by x (ties: larger y first), keep the larger y per x, pop kept points while the new y is ≥ the last kept
 * y, push. The result has y strictly decreasing as x increases; it equals paretoFrontier with
 * `{ x: 'max', y: 'max' }`.
 */
export function upperLeftFront<T>(items: readonly T[], coords: Coords<T>): FrontPoint<T>[] {
  const sorted = mergeCoordinates(items, coords).sort((a, b) => a.x - b.x || b.y - a.y);
  const kept: FrontPoint<T>[] = [];
  let lastX: number | undefined;
  for (const p of sorted) {
    if (p.x === lastX) continue; // same x: the larger y came first
    lastX = p.x;
    while (kept.length > 0 && p.y >= (kept.at(-1) as FrontPoint<T>).y) kept.pop();
    kept.push(p);
  }
  return kept;
}

/**
 * The throughput-per-GPU front of a curve against an x axis: interactivity (maximized; the calculator's
 * front), E2E latency or TTFT (minimized). Only valid points count. `y` draws another metric's front (e.g.
 * cost per million tokens, minimized), each axis in its own better direction.
 */
export function throughputFront(
  points: readonly CurvePoint[],
  axis: XAxis = 'interactivity',
  stat: Stat = 'median',
  y: AxisSpec = Y_AXIS,
): FrontPoint<CurvePoint>[] {
  const valid = points.filter((p) => p.valid);
  const spec = X_AXIS[axis];
  const coords: Coords<CurvePoint> = (p) => ({ x: spec.value(p, stat), y: y.value(p, stat) });
  if (axis === 'interactivity' && y.direction === 'max') return upperLeftFront(valid, coords);
  return paretoFrontier(valid, coords, { x: spec.direction, y: y.direction });
}
