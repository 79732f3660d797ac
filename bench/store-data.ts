import { listAccelerators } from '../src/catalog/index.ts';
import type { SingleNodeFixedRow } from '../src/schema/matrix-row.ts';
import type { RunRows } from '../src/store/rows.ts';
import { type SyntheticPoint, syntheticRow } from '../test/support/synthetic.ts';

/**
 * The benchmark's data: 1,000 configs (5 models × 2 workloads × 10 GPUs × 2 engines × 5 topologies) at
 * 10 concurrencies = 10,000 points per run; the dashboard's default view (one model, one workload) is
 * 100 configs, 1,000 points.
 */

export const MODELS = ['dsr1', 'gptoss', 'qwen3.5', 'kimik2.5', 'glm5'];
export const WORKLOADS: [number, number][] = [
  [1024, 1024],
  [8192, 1024],
];
/** Ten accelerators of the catalog, as runner labels (a fixed ten: the catalog grows, the benchmark must not). */
export const RUNNERS = listAccelerators()
  .map((a) => a.id)
  .filter((id) =>
    ['h100', 'h200', 'b200', 'b300', 'gb200', 'gb300', 'mi300x', 'mi325x', 'mi355x', 'rtx6000pro'].includes(
      id,
    ),
  );
if (RUNNERS.length !== 10)
  throw new Error(`bench/store-data: expected 10 accelerators, found ${RUNNERS.join(', ')}`);
const FRAMEWORKS = ['sglang', 'vllm'];
const TOPOLOGIES: [number, number][] = [
  [1, 1],
  [2, 1],
  [4, 1],
  [8, 1],
  [8, 8],
];
const CONCS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

export function benchPoints(): SyntheticPoint[] {
  const points: SyntheticPoint[] = [];
  for (const model of MODELS)
    for (const [isl, osl] of WORKLOADS)
      for (const runner of RUNNERS)
        for (const framework of FRAMEWORKS)
          for (const [tp, ep] of TOPOLOGIES) {
            const row: SingleNodeFixedRow = syntheticRow({
              'model-prefix': model,
              runner: `${runner}-nv_0`,
              framework,
              isl,
              osl,
              tp,
              ep,
              'exp-name': `${model}_${isl}_${osl}`,
            });
            for (const conc of CONCS) points.push({ row, conc, attempts: [{ kind: 'ok' }] });
          }
  return points;
}

/** The same run under another id and creation time, for filling the store without reading files again. */
export function asRun(rows: RunRows, runId: string, createdAt: string): RunRows {
  return {
    ...rows,
    run: { ...rows.run, run_id: runId, created_at: createdAt },
    points: rows.points.map((p) => ({ ...p, run_id: runId })),
    attempts: rows.attempts.map((a) => ({ ...a, run_id: runId })),
    results: rows.results.map((r) => ({ ...r, run_id: runId, run_created_at: createdAt })),
  };
}

export const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
