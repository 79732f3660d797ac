import type { MasterConfigs } from '../config/load.ts';
import { markEvalEntries, parallelismKey } from '../matrix/evals.ts';
import { testConfig } from '../matrix/generate.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import type { RunnerConfig } from '../schema/runners.ts';

/**
 * Eval-grouping collisions (user thread 003): the reference picks eval rows per group of (model, runner,
 * framework, precision[, isl, osl, spec-decoding, dp-attn]), not per topology, so when one config has two
 * topologies in one group (a TP=2 row next to the TP=4 one) only one keeps an eval, and an evals-only run
 * drops every point of the other. Found by marking the config's rows both ways: a topology that gets an
 * eval per topology but none under the reference's grouping is the one that loses it.
 */

export interface GroupingCollision {
  configKey: string;
  /** The topology that loses its eval, as the fields it differs in from the one that keeps it. */
  loser: string;
  winner: string;
  scenario: string;
}

const TOPOLOGY_FIELDS = [
  'tp',
  'ep',
  'pp',
  'dp-attn',
  'dcp-size',
  'pcp-size',
  'spec-decoding',
  'kv-offloading',
];

function describe(r: MatrixRow, other: MatrixRow): string {
  const a = r as unknown as Record<string, unknown>;
  const b = other as unknown as Record<string, unknown>;
  const differing = TOPOLOGY_FIELDS.filter((f) => JSON.stringify(a[f]) !== JSON.stringify(b[f]));
  const shown = differing.length > 0 ? differing : TOPOLOGY_FIELDS.filter((f) => a[f] !== undefined);
  return shown.map((f) => `${f}=${JSON.stringify(a[f] ?? null)}`).join(' ');
}

const clone = (rows: MatrixRow[]) => rows.map((r) => structuredClone(r));

export function evalGroupingCollisions(
  configs: MasterConfigs,
  runners: RunnerConfig,
  keys: readonly string[],
): GroupingCollision[] {
  const out: GroupingCollision[] = [];
  for (const key of keys) {
    const rows = testConfig(configs, runners, { configKeys: [key] });
    const reference = clone(rows);
    const topology = clone(rows);
    markEvalEntries(reference, true, 'reference');
    markEvalEntries(topology, true, 'topology');
    const evaluated = (marked: MatrixRow[]) =>
      new Set(marked.filter((r) => r['run-eval']).map((r) => parallelismKey(r)));
    const kept = evaluated(reference);
    const wanted = evaluated(topology);
    for (const t of wanted) {
      if (kept.has(t)) continue;
      const loser = rows.find((r) => parallelismKey(r) === t) as MatrixRow;
      const winner = reference.find((r) => r['run-eval'] && r.model === loser.model) ?? loser;
      out.push({
        configKey: key,
        loser: describe(loser, winner),
        winner: describe(winner, loser),
        scenario: String((loser as unknown as Record<string, unknown>)['scenario-type'] ?? 'fixed-seq-len'),
      });
    }
  }
  return out;
}
