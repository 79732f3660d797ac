/**
 * The reference's output rounding (client-metrics-spec §4.4): every finite float to 5 decimals, as
 * Python's round(v, 5): the decimal nearest the exact binary value, ties to even. (toFixed breaks ties
 * away from zero; a tie happens only when the binary value is exactly k.d₁…d₅5, e.g. 1/64 = 0.015625.)
 * An integral result prints as an int in JSON, as the reference emits it (2.0 → 2; 0.5 stays 0.5).
 */
export function round5(v: number): number {
  if (!Number.isFinite(v) || Number.isInteger(v)) return v;
  const fixed = v.toFixed(5);
  const exact = Math.abs(v).toFixed(30);
  const dot = exact.indexOf('.');
  if (/^50*$/.test(exact.slice(dot + 6))) {
    // A tie: toFixed went away from zero; go to the even neighbour instead when that digit is odd.
    const last = Number(fixed[fixed.length - 1]);
    if (last % 2 === 1) {
      const step = v > 0 ? -1e-5 : 1e-5;
      return Number((Number(fixed) + step).toFixed(5));
    }
  }
  return Number(fixed);
}

/** round5 on every number of a JSON-like value; non-finite numbers become null, as JSON cannot hold them. */
export function roundDeep<T>(value: T): T {
  if (typeof value === 'number') return (Number.isFinite(value) ? round5(value) : null) as T;
  if (Array.isArray(value)) return value.map(roundDeep) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = roundDeep(v);
    return out as T;
  }
  return value;
}
