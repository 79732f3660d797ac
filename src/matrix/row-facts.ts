import type { MatrixRow } from '../schema/matrix-row.ts';
import { canonicalJson } from './json.ts';

/** What every policy asks of a matrix row: its kind, its concurrencies, and keys that ignore some fields. */

/** Rows as plain records, for policies that read or set fields by name (eval marks, fingerprints). */
export type Row = Record<string, unknown>;

export const asRows = (rows: readonly MatrixRow[]) => rows as unknown as Row[];

export const isAgentic = (r: Row) => r['scenario-type'] === 'agentic-coding';

/** Multi-node rows are the ones with worker pools. */
export const isMultiNode = (r: Row) => r.prefill != null;

/** Single-node rows hold one concurrency, multi-node rows a list. */
export const concsOf = (r: Row): number[] =>
  Array.isArray(r.conc) ? (r.conc as number[]) : [r.conc as number];

/** Canonical JSON of the row without `excluded`: nested objects compare key-order-insensitively. */
export function keyWithout(r: Row, excluded: ReadonlySet<string>): string {
  const rest: Row = {};
  for (const k of Object.keys(r)) if (!excluded.has(k)) rest[k] = r[k];
  return canonicalJson(rest);
}
