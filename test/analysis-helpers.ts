import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from './helpers.ts';
import { FAST, infx, smallRow, writeMatrix } from './sweep-helpers.ts';

/** Real run directories for the compare and plot suites: a small sweep of the simulated engine. */

/** Sweeps Llama-3.1-8B on H100 at concurrencies 1, 2, 4 into `<out>/<runId>`; returns the run directory. */
export async function smallSweep(runId: string, extra: readonly string[] = []): Promise<string> {
  const out = tmpDir('infx-analysis-');
  const matrix = writeMatrix(out, [smallRow({ conc: [1, 2, 4] })]);
  const r = await infx(['sweep', '--matrix', matrix, '--out', out, '--run-id', runId, ...FAST, ...extra]);
  if (r.code !== 0) throw new Error(`sweep ${runId} failed (${r.code}): ${r.stderr}`);
  return join(out, runId);
}

/** result.json of every ok attempt of a run directory, by concurrency. */
export function resultFiles(runDir: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const id of readdirSync(join(runDir, 'points'))) {
    const conc = Number(/_conc(\d+)_/.exec(id)?.[1]);
    const attempts = readdirSync(join(runDir, 'points', id)).filter((n) => n.startsWith('attempt-'));
    for (const a of attempts) out.set(conc, join(runDir, 'points', id, a, 'result.json'));
  }
  return out;
}

/**
 * A copy of a real run directory under a new run id, with hand-set metrics per concurrency
 * (interactivity median, total throughput per GPU), all points valid: for hand-computed comparisons.
 */
export function syntheticRun(from: string, runId: string, metrics: Record<number, [number, number]>): string {
  const dir = join(tmpDir('infx-synthetic-'), runId);
  cpSync(from, dir, { recursive: true });
  const manifestPath = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { runId: string };
  manifest.runId = runId;
  writeFileSync(manifestPath, JSON.stringify(manifest));
  for (const [conc, path] of resultFiles(dir)) {
    const set = metrics[conc];
    if (set === undefined) continue;
    const r = JSON.parse(readFileSync(path, 'utf8'));
    [r.interactivity.median, r.throughput.perGpu.total] = set;
    r.valid = true;
    writeFileSync(path, JSON.stringify(r));
  }
  return dir;
}
