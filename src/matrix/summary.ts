import type { MasterConfigs } from '../config/load.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import { fullSweep } from './generate.ts';
import { rowGpus } from './gpus.ts';
import { MAX_MATRIX_ROWS, TooManyRowsError } from './limits.ts';
import { seqLenName } from './naming.ts';

/** What `infx validate` reports per config key: what it expands to and how big its points are. */

export interface KeySummary {
  key: string;
  file: string;
  runner: string;
  kind: 'single-node' | 'multi-node' | 'multi-node disagg';
  scenarios: string[];
  /** Matrix rows, i.e. CI jobs (a multi-node fixed row runs its whole concurrency list). */
  jobs: number;
  /** Benchmark points: one per (recipe, concurrency). */
  points: number;
  /** Distinct GPU counts of its points (every allocated GPU; DCP adds none). */
  gpusPerPoint: number[];
  /** Sum over points of the GPUs each holds: the size of a full sweep of this key. */
  gpuPoints: number;
}

export interface MatrixSummary {
  keys: KeySummary[];
  jobs: number;
  points: number;
  gpuPoints: number;
}

/** Throws TooManyRowsError when one key, or all of them together, expand to more than MAX_MATRIX_ROWS rows. */
export function summarizeConfigs(configs: MasterConfigs, runners: RunnerConfig): MatrixSummary {
  let total = 0;
  const keys = configs.entries.map((ce): KeySummary => {
    const c = ce.entry;
    const rows = fullSweep({ entries: [ce], byKey: new Map([[ce.key, ce]]) }, runners, {});
    total += rows.length;
    if (total > MAX_MATRIX_ROWS) throw new TooManyRowsError(ce.key, ce.file);
    let points = 0;
    let gpuPoints = 0;
    const gpus = new Set<number>();
    for (const row of rows) {
      const n = Array.isArray(row.conc) ? row.conc.length : 1;
      const g = rowGpus(row);
      points += n;
      gpuPoints += n * g;
      gpus.add(g);
    }
    const scenarios = [
      ...(c.scenarios['fixed-seq-len'] ?? []).map((i) => seqLenName(i.isl, i.osl)),
      ...((c.scenarios['agentic-coding'] ?? []).length > 0 ? ['agentic'] : []),
    ];
    return {
      key: ce.key,
      file: ce.file,
      runner: c.runner,
      kind: c.multinode ? (c.disagg ? 'multi-node disagg' : 'multi-node') : 'single-node',
      scenarios: [...new Set(scenarios)],
      jobs: rows.length,
      points,
      gpusPerPoint: [...gpus].sort((a, b) => a - b),
      gpuPoints,
    };
  });
  return {
    keys,
    jobs: keys.reduce((s, k) => s + k.jobs, 0),
    points: keys.reduce((s, k) => s + k.points, 0),
    gpuPoints: keys.reduce((s, k) => s + k.gpuPoints, 0),
  };
}

export function formatSummary(s: MatrixSummary): string {
  const header = ['config key', 'kind', 'runner', 'scenarios', 'jobs', 'points', 'GPUs/point', 'GPU-points'];
  const body = s.keys.map((k) => [
    k.key,
    k.kind,
    k.runner,
    k.scenarios.join(' '),
    String(k.jobs),
    String(k.points),
    k.gpusPerPoint.join(',') || '-',
    String(k.gpuPoints),
  ]);
  // A loop, not Math.max(...column): a spread of 100k arguments overflows the stack.
  const widths = header.map((h) => h.length);
  for (const r of body) for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i]!, r[i]!.length);
  const numeric = new Set([4, 5, 7]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...body.map(line)].join('\n')}\n\n${s.keys.length} config keys, ${s.jobs} jobs, ${s.points} points, ${s.gpuPoints} GPU-points\n`;
}
