import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type PointSpec, type RunManifest, RunManifestSchema } from '../schema/run-dir.ts';
import {
  manifestPath as manifestPathOf,
  pointDir,
  pointsDir as pointsDirOf,
} from '../schema/run-dir-paths.ts';
import type { InputIssue } from '../schema/store.ts';
import {
  type AttemptFiles,
  listDir,
  RUN_FILES,
  RunDirReadError,
  RunIdentityError,
  readJson,
  readPoint,
  sha256,
} from './run-dir-files.ts';
import { readPointsPrefetched } from './run-dir-prefetch.ts';

export {
  type AttemptFiles,
  type Launched,
  type ResultFile,
  RUN_FILES,
  RunDirReadError,
  RunIdentityError,
  sha256,
} from './run-dir-files.ts';

/**
 * Reads a run directory as DESIGN.md documents it: `manifest.json`, then every planned point's files
 * (src/store/run-dir-files.ts), validating each against its schema. Only a missing or invalid manifest
 * stops the read; anything else that cannot be used is an InputIssue. readRunDirFast does the same with
 * the file system calls of a large run in a reader thread (run-dir-prefetch.ts).
 */

export interface PointFiles {
  spec: PointSpec;
  /** Ascending by attempt number. */
  attempts: AttemptFiles[];
}

export interface RunDirContents {
  runDir: string;
  manifest: RunManifest;
  /** manifest.json's text as written (what the store keeps) and its SHA-256. */
  manifestJson: string;
  manifestSha256: string;
  points: PointFiles[];
  issues: InputIssue[];
  /** The sweep's lock (sweep.lock) was there: the sweep was still running, or was killed (resume it). */
  sweepActive: boolean;
}

interface Plan {
  manifest: RunManifest;
  manifestText: string;
  /** Planned points, each id once. */
  specs: PointSpec[];
  issues: InputIssue[];
}

function readPlan(runDir: string): Plan {
  const manifestPath = manifestPathOf(runDir);
  if (!existsSync(manifestPath)) {
    const hint = existsSync(runDir)
      ? `no ${RUN_FILES.manifest}; give the run's own folder, e.g. runs/<run-id>`
      : 'no such directory';
    throw new RunDirReadError(`${runDir} is not a run directory: ${hint}`);
  }
  const m = readJson(manifestPath, RunManifestSchema, 'run manifest');
  if (!m.ok) throw new RunDirReadError(`${manifestPath}: ${m.problem}`);
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  const specs: PointSpec[] = [];
  for (const [i, spec] of m.data.points.entries()) {
    if (spec.runId !== m.data.runId)
      throw new RunIdentityError(
        `${manifestPath} (points[${i}].runId) plans point ${spec.pointId} for run '${spec.runId}', but the manifest is run '${m.data.runId}': not one run, so nothing was stored`,
      );
    if (!seen.has(spec.pointId)) {
      seen.add(spec.pointId);
      specs.push(spec);
      continue;
    }
    issues.push({
      file: manifestPath,
      jsonPath: `points[${i}].pointId`,
      pointId: spec.pointId,
      attempt: null,
      problem: 'point id planned twice; the second is ignored',
    });
  }
  return { manifest: m.data, manifestText: m.text, specs, issues };
}

function finish(
  runDir: string,
  plan: Plan,
  read: { attempts: AttemptFiles[]; issues: InputIssue[] }[],
): RunDirContents {
  const issues = [...plan.issues];
  const points = plan.specs.map((spec, i) => {
    issues.push(...read[i]!.issues);
    return { spec, attempts: read[i]!.attempts };
  });
  const pointsDir = pointsDirOf(runDir);
  const planned = new Set(plan.specs.map((s) => s.pointId));
  for (const name of listDir(pointsDir).sort()) {
    const file = join(pointsDir, name);
    if (planned.has(name) || !statSync(file).isDirectory()) continue;
    issues.push({
      file,
      jsonPath: null,
      pointId: name,
      attempt: null,
      problem: 'a point folder that manifest.json does not plan; ignored',
    });
  }
  const manifestJson = plan.manifestText;
  return {
    runDir,
    manifest: plan.manifest,
    manifestJson,
    manifestSha256: sha256(manifestJson),
    points,
    issues,
    sweepActive: existsSync(join(runDir, RUN_FILES.lock)),
  };
}

/** Reads and validates the run directory `runDir` (the folder holding manifest.json), in this thread. */
export function readRunDir(runDir: string): RunDirContents {
  const plan = readPlan(runDir);
  return finish(
    runDir,
    plan,
    plan.specs.map((spec) => readPoint(pointDir(runDir, spec.pointId), spec)),
  );
}

/** Points from which a reader thread pays for itself. */
const PREFETCH_FROM = 300;

/** As readRunDir; a large run's files are read ahead by a reader thread while this one validates. */
export async function readRunDirFast(runDir: string): Promise<RunDirContents> {
  const plan = readPlan(runDir);
  const dirs = plan.specs.map((spec) => pointDir(runDir, spec.pointId));
  if (plan.specs.length < PREFETCH_FROM)
    return finish(
      runDir,
      plan,
      plan.specs.map((spec, i) => readPoint(dirs[i]!, spec)),
    );
  return finish(runDir, plan, await readPointsPrefetched(dirs, plan.specs));
}
