import { join } from 'node:path';
import {
  type AttemptFileName,
  attemptDirName,
  attemptProblem,
  POINT_FILES,
  POINTS_DIR,
  pointIdProblem,
  RUN_TOP_FILES,
} from './run-dir.ts';
import { PathEscapeError, safeJoin } from './safe-path.ts';

/**
 * Paths in a run directory (the names: run-dir.ts): `<run>/manifest.json`, `<run>/points/<point-id>/`,
 * `<run>/points/<point-id>/attempt-<n>/<file>`. Every writer and reader builds them here. A point id or an
 * attempt number that is not a plain folder name is refused before it becomes a path, and the id is joined
 * with safeJoin as well, so no id reaches outside its run directory even if a check above were wrong.
 * Kept apart from run-dir.ts because it needs node:path, which the browser UI cannot load.
 */

/** A point id or attempt number that cannot name a folder of the run directory. */
export class RunDirPathError extends PathEscapeError {
  override name = 'RunDirPathError';
}

export type RunTopFileName = (typeof RUN_TOP_FILES)[keyof typeof RUN_TOP_FILES];

/** A file at the top of the run directory (`manifest.json`, `sweep.lock`, …). */
export const runFile = (runDir: string, name: RunTopFileName): string => join(runDir, name);
export const manifestPath = (runDir: string): string => runFile(runDir, RUN_TOP_FILES.manifest);
/** `<run>/points`. */
export const pointsDir = (runDir: string): string => join(runDir, POINTS_DIR);

/** `<run>/points/<point-id>`. */
export function pointDir(runDir: string, pointId: string): string {
  const problem = pointIdProblem(pointId);
  if (problem) throw new RunDirPathError(`${runDir}: ${problem}`);
  return safeJoin(runDir, POINTS_DIR, pointId);
}

/** `<run>/points/<point-id>/spec.json`. */
export const pointSpecPath = (runDir: string, pointId: string): string =>
  fileIn(pointDir(runDir, pointId), POINT_FILES.spec);

/** `<point folder>/attempt-<n>`, for a point folder already built by pointDir. */
export function attemptDirIn(pointFolder: string, attempt: number): string {
  const problem = attemptProblem(attempt);
  if (problem) throw new RunDirPathError(`${pointFolder}: ${problem}`);
  return safeJoin(pointFolder, attemptDirName(attempt));
}

/** `<run>/points/<point-id>/attempt-<n>`. */
export const attemptDir = (runDir: string, pointId: string, attempt: number): string =>
  attemptDirIn(pointDir(runDir, pointId), attempt);

/** `<run>/points/<point-id>/attempt-<n>/<name>`. */
export const attemptFile = (
  runDir: string,
  pointId: string,
  attempt: number,
  name: AttemptFileName,
): string => join(attemptDir(runDir, pointId, attempt), name);

export type PointFileName = (typeof POINT_FILES)[keyof typeof POINT_FILES];

/**
 * A file of a point or attempt folder already built by pointDir or attemptDir (a Slurm job or an
 * `infx sweep point` child is given only its folder).
 */
export const fileIn = (folder: string, name: AttemptFileName | PointFileName): string => join(folder, name);
