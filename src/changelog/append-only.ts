import { recipeKey as curveKey } from '../matrix/recipe.ts';
import { isAgentic, isFixed, isMultiNode, type MatrixRow, rowFields } from '../schema/matrix-row.ts';
import { ChangelogError } from './errors.ts';

/**
 * The append-only delta (matrix-spec §8.3, changelog-pr-spec §2.5 step 4): the (curve, concurrency) pairs
 * a head matrix adds to its base, provided it removes and modifies nothing and every addition extends an
 * existing visual curve on its one unchanged image.
 */

/** A row's concurrencies, refusing anything but an int or a non-empty list of ints. */
function concsOf(r: MatrixRow): number[] {
  const c: unknown = r.conc;
  const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);
  if (isInt(c)) return [c];
  if (Array.isArray(c) && c.length > 0 && c.every(isInt)) return c;
  throw new ChangelogError(`append-only matrix entry has invalid concurrency value: ${JSON.stringify(c)}`);
}

const hardware = (w: unknown) =>
  typeof w === 'object' && w !== null && 'hardware' in w ? (w.hardware ?? null) : null;

/** The row with only the new concurrencies, where it holds a list (a row of one concurrency is kept whole). */
function withConcs(r: MatrixRow, fresh: number[]): MatrixRow {
  if (isMultiNode(r)) return { ...r, conc: fresh };
  return isFixed(r) && Array.isArray(r.conc) ? { ...r, conc: fresh } : r;
}

/** What a dashboard draws as one curve family: images may not change within it in an append-only run. */
function visualSeriesKey(row: MatrixRow): string {
  const agentic = isAgentic(row);
  // Read field by field, as the reference does, whatever kind of row it is.
  const r = rowFields(row);
  const kv = r['kv-offloading'];
  return JSON.stringify([
    r.model ?? null,
    r['model-prefix'] ?? null,
    r.precision ?? null,
    r.framework ?? null,
    r.runner ?? null,
    Boolean(r.disagg),
    agentic ? 'agentic_traces' : 'single_turn',
    agentic ? null : (r.isl ?? null),
    agentic ? null : (r.osl ?? null),
    typeof kv === 'string' && kv !== '' && kv !== 'none' ? 'on' : 'off',
    agentic ? '' : (r['spec-decoding'] ?? 'none'),
    hardware(r.prefill),
    hardware(r.decode),
  ]);
}

/** Groups values of rows under a key: every concurrency of each curve, every image of each series. */
function collect<T>(
  rows: readonly MatrixRow[],
  key: (r: MatrixRow) => string,
  values: (r: MatrixRow) => T[],
): Map<string, Set<T>> {
  const out = new Map<string, Set<T>>();
  for (const r of rows) {
    const k = key(r);
    const set = out.get(k) ?? new Set<T>();
    for (const v of values(r)) set.add(v);
    out.set(k, set);
  }
  return out;
}

export function appendOnlyDelta(base: readonly MatrixRow[], head: readonly MatrixRow[]): MatrixRow[] {
  if (base.length === 0)
    throw new ChangelogError('append-only requires an existing curve in the base revision');
  const baseConcs = collect(base, curveKey, concsOf);
  const headConcs = collect(head, curveKey, concsOf);
  const seriesImages = collect(base, visualSeriesKey, (r) => [r.image ?? null]);
  for (const [key, concs] of baseConcs) {
    const now = headConcs.get(key);
    if (!now) throw new ChangelogError('append-only may not remove or modify existing generated recipes');
    const removed = [...concs].filter((c) => !now.has(c)).sort((a, b) => a - b);
    if (removed.length > 0) {
      throw new ChangelogError(
        `append-only may not remove existing concurrency points: [${removed.join(', ')}]`,
      );
    }
  }
  const emitted = new Map<string, Set<number>>();
  const delta: MatrixRow[] = [];
  for (const r of head) {
    const key = curveKey(r);
    const old = baseConcs.get(key) ?? new Set<number>();
    const done = emitted.get(key) ?? new Set<number>();
    emitted.set(key, done);
    const fresh: number[] = [];
    for (const c of concsOf(r)) {
      if (old.has(c) || done.has(c)) continue;
      done.add(c);
      fresh.push(c);
    }
    if (fresh.length === 0) continue;
    const images = seriesImages.get(visualSeriesKey(r));
    if (r.image == null || !images || images.size !== 1 || !images.has(r.image)) {
      throw new ChangelogError(
        'append-only additions must belong to an existing visual curve with one unchanged non-null image',
      );
    }
    delta.push(withConcs(r, fresh));
  }
  if (delta.length === 0) throw new ChangelogError('append-only did not add any generated points');
  return delta;
}
