import type { MatrixRow } from '../schema/matrix-row.ts';
import type { SweepBuckets } from '../schema/sweep-plan.ts';
import { seqLenName } from './naming.ts';
import { recipeFingerprint, trimConc } from './recipe.ts';
import { isAgentic, isMultiNode as isMulti } from './row-facts.ts';

/** The reference's buckets of a sweep (matrix-spec §8.2 step 6). */

export function emptyBuckets(): SweepBuckets {
  return {
    single_node: {},
    multi_node: {},
    evals: [],
    agentic_evals: [],
    multinode_evals: [],
    multinode_agentic_evals: [],
  };
}

/** Benchmark rows: single_node / multi_node, keyed by sequence family (1k1k, 8k1k, <isl>_<osl>) or agentic. */
export function addBenchmarkRow(b: SweepBuckets, row: MatrixRow): void {
  const side = isMulti(row) ? b.multi_node : b.single_node;
  const key = isAgentic(row) ? 'agentic' : seqLenName(row.isl, row.osl);
  side[key] ??= [];
  side[key].push(row);
}

export function addEvalRow(b: SweepBuckets, row: MatrixRow): void {
  if (isAgentic(row)) (isMulti(row) ? b.multinode_agentic_evals : b.agentic_evals).push(row);
  else (isMulti(row) ? b.multinode_evals : b.evals).push(row);
}

/**
 * Benchmark rows (trimmed with sweep-enabled, each with its recipe fingerprint) and eval rows (no
 * fingerprint) in their buckets, as the changelog processor emits them.
 */
export function bucketSweep(bench: MatrixRow[], evals: readonly MatrixRow[], trim: boolean): SweepBuckets {
  const buckets = emptyBuckets();
  for (const row of trim ? trimConc(bench) : bench) {
    row['recipe-fingerprint'] = recipeFingerprint(row);
    addBenchmarkRow(buckets, row);
  }
  for (const row of evals) addEvalRow(buckets, row);
  return buckets;
}
