import { isAgentic, isMultiNode, type MatrixRow, rowConcs } from '../schema/matrix-row.ts';
import { canonicalJson } from './json.ts';

/**
 * What every policy asks of a matrix row: its kind, its concurrencies, and keys that ignore some fields.
 * The kind guards live with the row schemas (src/schema/matrix-row.ts); they are re-exported here for the
 * matrix's policies.
 */

export { isAgentic, isMultiNode };

/** Single-node rows hold one concurrency, multi-node rows a list. */
export const concsOf = rowConcs;

/** Canonical JSON of the row without `excluded`: nested objects compare key-order-insensitively. */
export function keyWithout(
  r: MatrixRow | Readonly<Record<string, unknown>>,
  excluded: ReadonlySet<string>,
): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (!excluded.has(k)) rest[k] = v;
  return canonicalJson(rest);
}
