import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type * as z from 'zod';
import { InfxError } from '../schema/errors.ts';
import {
  ATTEMPT_FILES,
  attemptOfDir,
  attemptProblem,
  MAX_ATTEMPT,
  POINT_FILES,
  type PointSpec,
  type PointStatus,
  PointStatusSchema,
  pointIdProblem,
  type RunManifest,
  RunManifestSchema,
} from '../schema/run-dir.ts';
import * as paths from '../schema/run-dir-paths.ts';
import { assertRealInside } from '../schema/safe-path.ts';
import { writeFileAtomic } from './atomic-write.ts';

/**
 * Reading and writing the run directory: `<run>/manifest.json`, `<run>/points/<id>/attempt-<n>/…`.
 * What a point's state is comes from its files only, so any process (a resumed sweep, `sweep status`, a
 * Slurm job on another node) sees the same thing.
 */

export class RunDirError extends InfxError {}

export const manifestPath = paths.manifestPath;

/** `<run>/points/<id>`; a point id that is not a plain folder name (see run-dir schema) is refused. */
export function pointDir(runDir: string, pointId: string): string {
  const problem = pointIdProblem(pointId);
  if (problem) throw new RunDirError(`${runDir}: ${problem}`);
  return paths.pointDir(runDir, pointId);
}

export function attemptDir(runDir: string, pointId: string, attempt: number): string {
  if (attemptProblem(attempt) !== null)
    throw new RunDirError(
      `${runDir}: attempt ${attempt} of ${pointId} is not a number from 1 to ${MAX_ATTEMPT}`,
    );
  return paths.attemptDirIn(pointDir(runDir, pointId), attempt);
}

/** `<run>/points/<id>/spec.json`, the spec an attempt's child reads. */
export const pointSpecPath = (runDir: string, pointId: string): string =>
  paths.fileIn(pointDir(runDir, pointId), POINT_FILES.spec);

export { ATTEMPT_FILES };

export async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

async function readJson<T>(path: string, schema: z.ZodType<T>, what: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new RunDirError(`cannot read ${what} ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new RunDirError(`${path} is not JSON (${(err as Error).message}); the file is damaged`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new RunDirError(
      `${path} is not a valid ${what}: ${first?.path.join('.') || '(root)'}: ${first?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

export async function writeManifest(runDir: string, manifest: RunManifest): Promise<void> {
  await mkdir(paths.pointsDir(runDir), { recursive: true });
  await writeJson(manifestPath(runDir), manifest);
}

/**
 * Every point's `points/<id>/spec.json`, as a sweep writes them before it starts the points: what
 * `infx sweep point --point` runs in a job of its own (a GitHub Actions matrix job, for one).
 */
export async function writePointSpecs(runDir: string, manifest: RunManifest): Promise<void> {
  for (const spec of manifest.points) {
    const file = pointSpecPath(runDir, spec.pointId);
    assertRealInside(runDir, file);
    await writeJson(file, spec);
  }
}

export async function readManifest(runDir: string): Promise<RunManifest> {
  if (!existsSync(manifestPath(runDir)))
    throw new RunDirError(
      `${runDir} is not a run directory (no manifest.json); give the run's folder, e.g. runs/<run-id>`,
    );
  return readJson(manifestPath(runDir), RunManifestSchema, 'run manifest');
}

export const readStatus = (path: string) => readJson(path, PointStatusSchema, 'point status');

/** Attempt numbers that exist for a point, ascending. */
export async function attemptsOf(runDir: string, pointId: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(pointDir(runDir, pointId));
  } catch {
    return [];
  }
  return names
    .map(attemptOfDir)
    .filter((n): n is number => n !== null)
    .sort((a, b) => a - b);
}

export type PointState =
  | { state: 'done'; attempts: number; status: PointStatus }
  | { state: 'failed'; attempts: number; status: PointStatus }
  /** No attempt, or the last one was interrupted or stopped without writing its status. */
  | { state: 'pending'; attempts: number; status: PointStatus | null; incomplete: boolean };

export async function pointState(runDir: string, pointId: string): Promise<PointState> {
  const attempts = await attemptsOf(runDir, pointId);
  const last = attempts.at(-1);
  if (last === undefined) return { state: 'pending', attempts: 0, status: null, incomplete: false };
  const path = paths.fileIn(attemptDir(runDir, pointId, last), ATTEMPT_FILES.status);
  if (!existsSync(path))
    return { state: 'pending', attempts: attempts.length, status: null, incomplete: true };
  const status = await readStatus(path);
  if (status.status === 'ok') return { state: 'done', attempts: attempts.length, status };
  if (status.interrupted) return { state: 'pending', attempts: attempts.length, status, incomplete: true };
  return { state: 'failed', attempts: attempts.length, status };
}

export async function pointStates(
  runDir: string,
  points: readonly PointSpec[],
): Promise<Map<string, PointState>> {
  const states = await Promise.all(points.map((p) => pointState(runDir, p.pointId)));
  return new Map(points.map((p, i) => [p.pointId, states[i] as PointState]));
}

/** The next attempt number for a point: one past the highest that exists. */
export async function nextAttempt(runDir: string, pointId: string): Promise<number> {
  return ((await attemptsOf(runDir, pointId)).at(-1) ?? 0) + 1;
}

/** Headline numbers of a finished attempt for `sweep status`: null when its result.json is missing or damaged. */
export async function resultHeadline(
  runDir: string,
  pointId: string,
  attempt: number,
): Promise<{ totalPerGpu: number | null; interactivity: number | null } | null> {
  try {
    const text = await readFile(
      paths.fileIn(attemptDir(runDir, pointId, attempt), ATTEMPT_FILES.result),
      'utf8',
    );
    const r = JSON.parse(text) as {
      throughput?: { perGpu?: { total?: number | null } };
      interactivity?: { median?: number | null };
    };
    return {
      totalPerGpu: r.throughput?.perGpu?.total ?? null,
      interactivity: r.interactivity?.median ?? null,
    };
  } catch {
    return null;
  }
}
