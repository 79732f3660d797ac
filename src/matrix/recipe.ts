import { createHash } from 'node:crypto';
import type { MatrixRow } from '../schema/matrix-row.ts';
import { concsOf, isMultiNode, keyWithout } from './row-facts.ts';

/** Identity of a recipe (a curve) across its concurrencies (matrix-spec §6.6, §8.2). */

const NOT_RECIPE = new Set(['conc', 'exp-name', 'recipe-fingerprint']);

/** Every field except `conc`, `exp-name` and `recipe-fingerprint`: the same for all points of one curve. */
export const recipeKey = (row: MatrixRow): string => keyWithout(row, NOT_RECIPE);

/**
 * SHA-256 of the canonical JSON of the row without `conc`, `exp-name` and `recipe-fingerprint`: rows of one
 * recipe share it across concurrencies; any recipe change (tp, image, duration…) changes it. Computed on the
 * generator's benchmark row (fixed rows carry `"run-eval": false`; agentic benchmark rows no run-eval).
 */
export function recipeFingerprint(row: MatrixRow): string {
  return createHash('sha256').update(recipeKey(row)).digest('hex');
}

const NOT_TRIM_KEY = new Set(['conc', 'exp-name']);

/**
 * `--trim-conc` (label sweep-enabled): each single-node recipe keeps only its lowest-concurrency row
 * (earliest on ties); multi-node rows keep only their lowest concurrency. Order is preserved.
 */
export function trimConc(rows: MatrixRow[]): MatrixRow[] {
  const lowest = new Map<string, MatrixRow>();
  for (const r of rows) {
    if (isMultiNode(r)) continue;
    const key = keyWithout(r, NOT_TRIM_KEY);
    const cur = lowest.get(key);
    if (!cur || Math.min(...concsOf(r)) < Math.min(...concsOf(cur))) lowest.set(key, r);
  }
  const keep = new Set(lowest.values());
  const out: MatrixRow[] = [];
  for (const r of rows) {
    if (isMultiNode(r)) {
      const concs = concsOf(r);
      out.push(concs.length > 1 ? { ...r, conc: [Math.min(...concs)] } : r);
    } else if (keep.has(r)) out.push(r);
  }
  return out;
}
