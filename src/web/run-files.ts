import { readFileSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { EngineLaunchSchema } from '../schema/engine-launch.ts';
import { ATTEMPT_FILES, attemptProblem, isPointId, isRunId, RUN_TOP_FILES } from '../schema/run-dir.ts';
import { attemptFile as attemptPath, manifestPath } from '../schema/run-dir-paths.ts';
import { safeJoin } from '../schema/safe-path.ts';
import type { StoredRun } from '../schema/store.ts';
import type { RunFileName } from '../schema/web-api.ts';

/**
 * The run directories behind stored runs. The store keeps a run's manifest but not where its directory
 * is, so the server looks for `<root>/<run-id>/manifest.json` under the roots it was given (`--runs`,
 * default ./runs) and uses a directory only when its manifest names the same run id and creation time.
 * Files are served from there: only the allow-listed names of an attempt folder of a stored point, never a
 * path that resolves outside the run directory (symbolic links included).
 */

export interface Located {
  dir: string | null;
  /** Why no directory (not found, or a different run under that name). */
  note: string | null;
}

/** Real paths of run directories (a run view checks thousands of files under one). */
const realRoots = new Map<string, string>();

function inside(root: string, path: string): boolean {
  try {
    let r = realRoots.get(root);
    if (r === undefined) {
      r = realpathSync(root);
      if (realRoots.size > 64) realRoots.clear();
      realRoots.set(root, r);
    }
    const p = realpathSync(path);
    return p === r || p.startsWith(r + sep);
  } catch {
    return false;
  }
}

export class RunDirs {
  readonly roots: readonly string[];
  private readonly cache = new Map<string, { key: string; located: Located }>();

  constructor(roots: readonly string[]) {
    this.roots = roots.map((r) => resolve(r));
  }

  /** The directory of a stored run, if one of the roots holds it. */
  locate(run: StoredRun): Located {
    if (!isRunId(run.runId)) return { dir: null, note: `run id '${run.runId}' is not a folder name` };
    const notes: string[] = [];
    for (const root of this.roots) {
      const dir = safeJoin(root, run.runId);
      const manifest = manifestPath(dir);
      let stamp: string;
      try {
        const st = statSync(manifest);
        stamp = `${st.mtimeMs}:${st.size}`;
      } catch {
        continue;
      }
      const cacheKey = `${manifest}\0${run.createdAt}`;
      const hit = this.cache.get(cacheKey);
      if (hit?.key === stamp) {
        if (hit.located.dir !== null) return hit.located;
        notes.push(hit.located.note ?? '');
        continue;
      }
      let located: Located;
      try {
        const m = JSON.parse(readFileSync(manifest, 'utf8')) as { runId?: unknown; createdAt?: unknown };
        located =
          m.runId === run.runId && m.createdAt === run.createdAt
            ? { dir, note: null }
            : { dir: null, note: `${dir} holds another run (its manifest differs from the stored one)` };
      } catch (err) {
        located = { dir: null, note: `${manifest} cannot be read: ${(err as Error).message}` };
      }
      this.cache.set(cacheKey, { key: stamp, located });
      if (located.dir !== null) return located;
      notes.push(located.note ?? '');
    }
    if (notes.length > 0) return { dir: null, note: notes.join('; ') };
    return {
      dir: null,
      note:
        this.roots.length === 0
          ? 'this server was started without a runs folder (infx serve --runs DIR)'
          : `no folder ${run.runId}/ with a ${RUN_TOP_FILES.manifest} under ${this.roots.join(', ')} (start infx serve with --runs DIR, the folder holding the run directory)`,
    };
  }
}

/** The path of an attempt's file inside a run directory, or null when the names are not plain or it is absent. */
export function attemptFile(
  runDir: string,
  pointId: string,
  attempt: number,
  name: RunFileName,
): string | null {
  if (!isPointId(pointId) || attemptProblem(attempt) !== null) return null;
  const path = attemptPath(runDir, pointId, attempt, name);
  try {
    return statSync(path).isFile() && inside(runDir, path) ? path : null;
  } catch {
    return null;
  }
}

export interface EngineCommand {
  role: 'server' | 'prefill' | 'decode' | 'router';
  argv: string[];
  envKeys: string[];
}

function readJson(path: string | null): unknown {
  if (path === null) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The engine processes point.json says were launched (null: no readable launch). */
export function engineCommands(runDir: string, pointId: string, attempt: number): EngineCommand[] | null {
  const doc = readJson(attemptFile(runDir, pointId, attempt, ATTEMPT_FILES.point)) as
    | { launch?: unknown }
    | undefined;
  const launch = EngineLaunchSchema.safeParse(doc?.launch);
  if (!launch.success) return null;
  return launch.data.processes.map((p) => ({
    role: p.role,
    argv: p.argv,
    envKeys: Object.keys(p.env).sort(),
  }));
}

/** The last lines of server.log that status.json keeps for a failed engine. */
export function logTail(runDir: string, pointId: string, attempt: number): string[] {
  const doc = readJson(attemptFile(runDir, pointId, attempt, ATTEMPT_FILES.status)) as
    | { logTail?: unknown }
    | undefined;
  const tail = doc?.logTail;
  return Array.isArray(tail) ? tail.filter((l): l is string => typeof l === 'string') : [];
}
