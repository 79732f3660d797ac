/** Concurrency expansion and the full-sweep filters, which differ by row kind (matrix-spec §3). */

export interface ConcSource {
  'conc-start'?: number | null;
  'conc-end'?: number | null;
  'conc-list'?: number[] | null;
}

/** Geometric range that always ends exactly at `end`: (2, 20, 3) → [2, 6, 18, 20]. */
export function expandRange(start: number, end: number, step: number): number[] {
  const out: number[] = [];
  let c = start;
  while (c <= end) {
    out.push(c);
    if (c === end) break;
    c *= step;
    if (c > end) c = end;
  }
  return out;
}

export interface ConcFilters {
  minConc?: number | undefined;
  maxConc?: number | undefined;
}

/** full-sweep tests `conc-list` for truthiness: an empty list next to a range uses the range. */
const listOf = (e: ConcSource): number[] | undefined =>
  e['conc-list'] && e['conc-list'].length > 0 ? e['conc-list'] : undefined;

/** Expanded concurrencies with no filtering (full-sweep's choice between list and range). */
export function expandFullSweep(e: ConcSource, step: number): number[] {
  const list = listOf(e);
  if (list) return [...list];
  return expandRange(e['conc-start']!, e['conc-end']!, step);
}

/** Single-node fixed-seq-len: ranges are clamped to [min, max] before expansion, so the bounds become points. */
export function singleNodeFixedConcs(e: ConcSource, step: number, f: ConcFilters): number[] | undefined {
  const { minConc, maxConc } = f;
  if ((minConc !== undefined && minConc <= 0) || (maxConc !== undefined && maxConc <= 0)) return undefined;
  const list = listOf(e);
  if (list) {
    let values = list;
    if (minConc !== undefined) {
      values = values.filter((c) => c >= minConc);
      if (values.length === 0) return undefined;
    }
    if (maxConc !== undefined) {
      values = values.filter((c) => c <= maxConc);
      if (values.length === 0) values = [maxConc];
    }
    return [...values];
  }
  let start = e['conc-start']!;
  let end = e['conc-end']!;
  if (minConc !== undefined) {
    if (end < minConc) return undefined;
    start = Math.max(start, minConc);
  }
  if (maxConc !== undefined) {
    if (start > maxConc) {
      start = maxConc;
      end = maxConc;
    } else {
      end = Math.min(end, maxConc);
    }
  }
  return expandRange(start, end, step);
}

/** Multi-node fixed-seq-len: expand first, then filter; an emptied list falls back to [max-conc]. */
export function multiNodeFixedConcs(e: ConcSource, step: number, f: ConcFilters): number[] | undefined {
  const { minConc, maxConc } = f;
  let values = expandFullSweep(e, step);
  if (minConc !== undefined) {
    if (minConc <= 0) return undefined;
    values = values.filter((c) => c >= minConc);
    if (values.length === 0) return undefined;
  }
  if (maxConc !== undefined) {
    values = values.filter((c) => c <= maxConc);
    if (values.length === 0) {
      if (maxConc <= 0) return undefined;
      values = [maxConc];
    }
  }
  return values;
}

/** Agentic (both shapes): plain filters, no clamping. */
export function agenticConcs(e: ConcSource, step: number, f: ConcFilters): number[] | undefined {
  const { minConc, maxConc } = f;
  const values = expandFullSweep(e, step).filter(
    (c) => (minConc === undefined || c >= minConc) && (maxConc === undefined || c <= maxConc),
  );
  return values.length > 0 ? values : undefined;
}
