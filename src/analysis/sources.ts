import { existsSync, statSync } from 'node:fs';
import type { CurvePoint } from '../schema/curve.ts';
import { isFixed } from '../schema/matrix-row.ts';
import { curveMetrics } from '../store/hot.ts';
import { configIdentity, configKey } from '../store/identity.ts';
import { choosePoint } from '../store/rows.ts';
import { RunDirReadError, readRunDir } from '../store/run-dir-reader.ts';
import { SourceError } from './source-error.ts';
import type { LoadOptions, RunCurves, SkippedPoint } from './source-types.ts';

export type { LoadOptions, RunCurves, SkippedPoint } from './source-types.ts';

/**
 * Where curves come from for `infx compare` and `infx plot`: a RUN argument is a run directory
 * (runs/<run-id>, read directly) or, otherwise, a run id or `official` looked up in the results database.
 */

export { SourceError };

/**
 * The curve points of a run directory: per planned point, the newest attempt with status ok and a valid
 * result.json (store's choice, so ingest and this agree).
 */
export function loadRunDir(dir: string): RunCurves {
  const contents = readRunDirAsSource(dir);
  const { manifest } = contents;
  const points: CurvePoint[] = [];
  const skipped: SkippedPoint[] = [];
  for (const p of contents.points) {
    const { row, pointId } = p.spec;
    if (!isFixed(row)) {
      skipped.push({ pointId, reason: 'not a fixed-seq-len point (no curve)' });
      continue;
    }
    const choice = choosePoint(p);
    const result = choice.attempt?.result;
    if (choice.attempt === null || result === null || result === undefined) {
      skipped.push({ pointId, reason: choice.reason ?? choice.outcome });
      continue;
    }
    const config = configIdentity(row);
    points.push({
      runId: manifest.runId,
      pointId,
      attempt: choice.attempt.attempt,
      configKey: configKey(config, result.engine.kind),
      config,
      engine: result.engine,
      conc: p.spec.conc,
      gpus: p.spec.gpus.total,
      image: row.image,
      createdAt: result.data.createdAt,
      valid: result.valid,
      metrics: curveMetrics(result.hot),
    });
  }
  return { label: dir, source: 'run-dir', runIds: [manifest.runId], points, skipped };
}

/** A run directory's contents; what is wrong with it as a SourceError. */
export function readRunDirAsSource(dir: string): ReturnType<typeof readRunDir> {
  try {
    return readRunDir(dir);
  } catch (err) {
    if (err instanceof RunDirReadError) throw new SourceError(err.message);
    throw err;
  }
}

export const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

/**
 * The curves one RUN argument names: an existing directory is a run directory; anything else is a run id,
 * or `official`, in the results database.
 */
export async function loadCurves(arg: string, opts: LoadOptions = {}): Promise<RunCurves> {
  if (isDir(arg)) return loadRunDir(arg);
  const { loadFromStore } = await import('./sources-db.ts');
  return loadFromStore(arg, opts);
}
