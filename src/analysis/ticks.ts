/** Nice axis domains and ticks (1, 2, 5 × 10ⁿ steps, as d3's ticks), linear and log. */

export type Scale = 'linear' | 'log';

export interface NiceAxis {
  domain: [number, number];
  ticks: number[];
}

/** Removes binary noise: 0.30000000000000004 → 0.3. */
const clean = (v: number) => Number(v.toPrecision(12));

/** A step of 1, 2, 5 or 10 × 10ⁿ that cuts [lo, hi] into about `count` intervals. */
export function tickStep(lo: number, hi: number, count: number): number {
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const err = raw / power;
  const factor = err >= Math.sqrt(50) ? 10 : err >= Math.sqrt(10) ? 5 : err >= Math.sqrt(2) ? 2 : 1;
  return factor * power;
}

/** Widens a degenerate range so it has a length. */
function widen(lo: number, hi: number): [number, number] {
  if (hi > lo) return [lo, hi];
  const d = lo === 0 ? 1 : Math.abs(lo) * 0.1;
  return [lo - d, hi + d];
}

/** A linear axis: the domain extended to whole steps, ticks at every step. */
export function niceLinear(lo: number, hi: number, count = 6): NiceAxis {
  [lo, hi] = widen(lo, hi);
  let step = tickStep(lo, hi, count);
  let d0 = Math.floor(lo / step) * step;
  let d1 = Math.ceil(hi / step) * step;
  step = tickStep(d0, d1, count);
  d0 = clean(Math.floor(lo / step) * step);
  d1 = clean(Math.ceil(hi / step) * step);
  const ticks: number[] = [];
  for (let k = 0; d0 + k * step <= d1 + step * 1e-9; k++) ticks.push(clean(d0 + k * step));
  return { domain: [d0, d1], ticks };
}

/** A log axis over positive values: ends at 1, 2 or 5 × 10ⁿ; ticks at 1-2-5 steps, or decades when wide. */
export function niceLog(lo: number, hi: number): NiceAxis {
  if (!(lo > 0) || !(hi > 0)) throw new RangeError(`a log axis needs positive values (got ${lo}…${hi})`);
  const steps = (e0: number, e1: number, mults: readonly number[]) =>
    Array.from({ length: e1 - e0 + 1 }, (_, k) => mults.map((m) => clean(m * 10 ** (e0 + k)))).flat();
  const e0 = Math.floor(Math.log10(lo));
  const e1 = Math.ceil(Math.log10(hi));
  const candidates = steps(e0, e1, [1, 2, 5]);
  const d0 = candidates.filter((v) => v <= lo).at(-1) ?? clean(10 ** e0);
  let d1 = candidates.find((v) => v >= hi) ?? clean(10 ** e1);
  if (d1 <= d0) d1 = candidates.find((v) => v > d0) ?? clean(d0 * 2);
  const wide = Math.log10(d1 / d0) > 2.5;
  const ticks = steps(e0, e1, wide ? [1] : [1, 2, 5]).filter((v) => v >= d0 && v <= d1);
  return { domain: [d0, d1], ticks };
}

/** A tick label: thousands separated, as many decimals as the step needs (1,500 · 0.25 · 2k on log). */
export function formatTick(v: number, step: number): string {
  const decimals = step > 0 ? Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9))) : 0;
  return v.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: decimals });
}

/** A value for people: 3 significant digits, thousands separated (98.6, 1,465, 0.0123). */
export function formatValue(v: number | null, digits = 3): string {
  if (v === null || !Number.isFinite(v)) return 'N/A';
  if (v === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(v)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return v.toLocaleString('en-US', { maximumFractionDigits: Math.min(decimals, 6) });
}
