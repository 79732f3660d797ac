import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type * as z from 'zod';
import type { CurveEngine } from '../schema/curve.ts';
import { InfxError } from '../schema/errors.ts';
import { POINT_RESULT_SCHEMA_VERSION, type PointResult, PointResultSchema } from '../schema/point-result.ts';
import {
  ATTEMPT_FILES,
  attemptOfDir,
  POINT_FILES,
  PointAttemptSchema,
  type PointSpec,
  PointSpecSchema,
  type PointStatus,
  PointStatusSchema,
  RUN_TOP_FILES,
} from '../schema/run-dir.ts';
import { attemptDirIn } from '../schema/run-dir-paths.ts';
import type { InputIssue } from '../schema/store.ts';
import { workloadMismatch } from '../schema/workload.ts';
import { type HotColumns, hotColumns } from './hot.ts';
import {
  impossibleValue,
  type RequestsSummary,
  requestsProblem,
  summarizeRequests,
} from './result-checks.ts';

/**
 * The files of one planned point — `points/<id>/spec.json` (optional) and
 * `points/<id>/attempt-<n>/{point.json,status.json,result.json}` — read and validated against their schemas
 * (DESIGN.md "Run directory"; names and paths from src/schema/run-dir.ts and run-dir-paths.ts). A file
 * that cannot be used becomes an InputIssue naming the file, the JSON path and why. Reads are synchronous:
 * small files read faster that way than through the thread pool.
 */

/** The files the store reads, named by the run directory's layout (src/schema/run-dir.ts). */
export const RUN_FILES = {
  manifest: RUN_TOP_FILES.manifest,
  lock: RUN_TOP_FILES.lock,
  spec: POINT_FILES.spec,
  point: ATTEMPT_FILES.point,
  status: ATTEMPT_FILES.status,
  result: ATTEMPT_FILES.result,
  requests: ATTEMPT_FILES.requests,
} as const;

/** A run directory that cannot be read at all (no or an invalid manifest.json). */
export class RunDirReadError extends InfxError {}

/**
 * A run directory that is not one run: a file claims another run id than its manifest.json (a manifest
 * copied from another run, a point folder from another run), or the store holds another run under the
 * manifest's id. Nothing is stored; the message names the file and both ids.
 */
export class RunIdentityError extends RunDirReadError {
  override name = 'RunIdentityError';
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A valid result.json as the store keeps it: compact JSON (`JSON.stringify(JSON.parse(file))`: the file's
 * content, key order and all, without its indentation), its SHA-256, and the hot columns. The parsed object
 * is not kept: thousands of them alive at once cost more in garbage collection than reading them.
 */
export interface ResultFile {
  json: string;
  sha256: string;
  hot: HotColumns;
  valid: boolean;
  /** What served the point (engine.kind) and the simulator's version. */
  engine: CurveEngine;
  /** The validated result, parsed again from `json` on each access (prefer hot and valid). */
  readonly data: PointResult;
}

export const resultFile = (
  json: string,
  hot: HotColumns,
  valid: boolean,
  engine: CurveEngine,
  hash = sha256(json),
): ResultFile => ({
  json,
  sha256: hash,
  hot,
  valid,
  engine,
  get data() {
    return JSON.parse(json) as PointResult;
  },
});

/** What point.json says about the attempt that the store keeps. */
export interface Launched {
  host: string;
  startedAt: string;
  slurmJobId: string | null;
}

export interface AttemptFiles {
  attempt: number;
  /** null: no readable status.json (see statusProblem). */
  status: PointStatus | null;
  statusProblem: string | null;
  point: Launched | null;
  /** null: absent or invalid (an invalid one is an issue). */
  result: ResultFile | null;
  /** Why result.json is not usable when it is there (its issue's problem); null otherwise. */
  resultProblem: string | null;
}

/** `a.b[2].c` from a zod issue path. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : `${out === '' ? '' : '.'}${String(k)}`;
  return out === '' ? '(root)' : out;
}

let buffer = Buffer.allocUnsafe(1 << 20);

/** A whole file as UTF-8 through one reusable buffer: no fstat, no allocation per file (readFileSync has both). */
export function readText(path: string): string {
  const fd = openSync(path, 'r');
  try {
    let n = 0;
    for (;;) {
      const got = readSync(fd, buffer, n, buffer.length - n, null);
      if (got === 0) break;
      n += got;
      if (n === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger);
        buffer = bigger;
      }
    }
    return buffer.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}

export type Parsed<T> =
  | { ok: true; data: T; text: string; raw: unknown }
  | { ok: false; missing: boolean; problem: string; jsonPath: string | null; raw?: unknown };

/** Where a point's files come from: the filesystem, or what a reader thread read ahead (run-dir-prefetch.ts). */
export interface FileSource {
  /** The file's text; undefined when it does not exist; throws for any other failure. */
  text(path: string): string | undefined;
  /** The names in a folder; [] when it does not exist. */
  list(dir: string): string[];
  /**
   * The source hands out result.json texts already compacted (JSON.stringify(JSON.parse(text)), what the
   * store keeps) and their SHA-256 (sha256).
   */
  compactsResults?: boolean;
  /** The SHA-256 of a (compacted) result.json when the source computed it. */
  sha256?(path: string): string | undefined;
  /** What a requests.jsonl holds (result-checks.ts); undefined when the file does not exist. */
  requests(path: string): RequestsSummary | undefined;
}

export const fsSource: FileSource = {
  text(path) {
    try {
      return readText(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  list: listDir,
  requests(path) {
    const text = fsSource.text(path);
    return text === undefined ? undefined : summarizeRequests(text);
  },
};

/**
 * Reads and validates one JSON file. `known`: an already validated value the file is expected to equal
 * (a point's spec, planned in the manifest); when it does, the schema is not run again.
 */
export function readJson<T>(
  path: string,
  schema: z.ZodType<T>,
  what: string,
  known?: (json: unknown) => T | undefined,
  source: FileSource = fsSource,
): Parsed<T> {
  let text: string | undefined;
  try {
    text = source.text(path);
  } catch (err) {
    return { ok: false, missing: false, problem: (err as Error).message, jsonPath: null };
  }
  if (text === undefined) return { ok: false, missing: true, problem: `no ${what}`, jsonPath: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, missing: false, problem: `not JSON: ${(err as Error).message}`, jsonPath: null };
  }
  const same = known?.(json);
  if (same !== undefined) return { ok: true, data: same, text, raw: json };
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, data: parsed.data, text, raw: json };
  const issues = parsed.error.issues;
  const shown = issues.slice(0, 3).map((i) => `${jsonPath(i.path)}: ${i.message}`);
  if (issues.length > 3) shown.push(`and ${issues.length - 3} more`);
  return {
    ok: false,
    missing: false,
    problem: `not a valid ${what}: ${shown.join('; ')}`,
    jsonPath: jsonPath(issues[0]?.path ?? []),
    raw: json,
  };
}

export function listDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/**
 * A result.json of an older schema version: what to tell the user instead of its schema errors. Schema 1
 * did not record what served the point (infx's simulated engine or a real one) nor its clock, so it cannot
 * be stored or drawn with an honest label: it must be measured again.
 */
export function olderResult(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as { kind?: unknown; schemaVersion?: unknown; tool?: { version?: unknown } };
  if (r.kind !== 'point-result' || typeof r.schemaVersion !== 'number') return null;
  if (r.schemaVersion >= POINT_RESULT_SCHEMA_VERSION) return null;
  const by = typeof r.tool?.version === 'string' ? `infx ${r.tool.version}` : 'an older infx';
  return (
    `written by ${by} (point-result schema version ${r.schemaVersion}; this infx reads version ` +
    `${POINT_RESULT_SCHEMA_VERSION}, which records whether a simulated or a real engine served the point): ` +
    'it cannot be labelled honestly, so run the point again with this infx (a new infx sweep)'
  );
}

function readAttempt(
  dir: string,
  spec: PointSpec,
  n: number,
  issues: InputIssue[],
  src: FileSource,
): AttemptFiles {
  const issue = (file: string, problem: string, path: string | null = null) =>
    issues.push({ file: join(dir, file), jsonPath: path, pointId: spec.pointId, attempt: n, problem });
  let status: PointStatus | null = null;
  let statusProblem: string | null = null;
  const s = readJson(join(dir, RUN_FILES.status), PointStatusSchema, 'point status', undefined, src);
  if (!s.ok) {
    statusProblem = s.missing
      ? 'no status.json: the attempt was stopped before it finished, or is still running'
      : `status.json ${s.problem}`;
    issue(RUN_FILES.status, statusProblem, s.jsonPath);
  } else if (s.data.pointId !== spec.pointId || s.data.attempt !== n) {
    statusProblem = `status.json is for ${s.data.pointId} attempt ${s.data.attempt}, not this folder's`;
    issue(RUN_FILES.status, statusProblem, s.data.pointId !== spec.pointId ? 'pointId' : 'attempt');
  } else status = s.data;

  const p = readJson(join(dir, RUN_FILES.point), PointAttemptSchema, 'point attempt', undefined, src);
  if (!p.ok) issue(RUN_FILES.point, p.missing ? 'no point.json' : p.problem, p.jsonPath);
  else if (p.data.runId !== spec.runId)
    throw new RunIdentityError(
      `${join(dir, RUN_FILES.point)} (runId) is an attempt of run '${p.data.runId}', but this run directory's manifest.json is run '${spec.runId}': the directory mixes two runs, so nothing was stored; ingest each run from its own directory`,
    );
  else if (p.data.pointId !== spec.pointId || p.data.attempt !== n)
    issue(
      RUN_FILES.point,
      `point.json is for ${p.data.pointId} attempt ${p.data.attempt}, not this folder's`,
      p.data.pointId !== spec.pointId ? 'pointId' : 'attempt',
    );

  let result: ResultFile | null = null;
  let resultProblem: string | null = null;
  const bad = (problem: string, path: string | null) => {
    resultProblem = problem;
    issue(RUN_FILES.result, problem, path);
  };
  const r = readJson(join(dir, RUN_FILES.result), PointResultSchema, 'point result', undefined, src);
  if (r.ok) {
    const w = workloadMismatch(r.data.workload, spec.bench);
    if (r.data.load.concurrency !== spec.conc)
      bad(`concurrency ${r.data.load.concurrency} is not the point's ${spec.conc}`, 'load.concurrency');
    else if (w) bad(w.problem, w.path);
    else {
      const impossible = impossibleValue(r.data);
      let truncated: string | null = null;
      if (!impossible)
        try {
          const records = src.requests(join(dir, RUN_FILES.requests));
          if (records !== undefined) truncated = requestsProblem(records, r.data.counts);
        } catch (err) {
          truncated = `cannot be read (${(err as Error).message})`;
        }
      if (impossible) bad(`impossible value: ${impossible.problem}`, impossible.jsonPath);
      else if (truncated !== null) {
        resultProblem = `requests.jsonl ${truncated}`;
        issue(RUN_FILES.requests, `${truncated}; the result is not used`);
      } else {
        // Stored compact: JSON.stringify(JSON.parse(file)), the same whoever read the file.
        const stored = src.compactsResults ? r.text : JSON.stringify(r.raw);
        const hash = src.sha256?.(join(dir, RUN_FILES.result)) ?? sha256(stored);
        const engine = { kind: r.data.engine.kind, simulator: r.data.engine.simulator };
        result = resultFile(stored, hotColumns(r.data), r.data.valid, engine, hash);
      }
    }
  } else if (!r.missing) {
    const older = olderResult(r.raw);
    bad(older ?? r.problem, older === null ? r.jsonPath : 'schemaVersion');
  } else if (status?.status === 'ok' && !spec.eval?.evalOnly)
    // An eval-only point runs no benchmark: its eval verdict (status.json eval) is its outcome.
    issue(RUN_FILES.result, 'status.json says ok but there is no result.json');

  const point = p.ok
    ? { host: p.data.host, startedAt: p.data.startedAt, slurmJobId: p.data.slurmJobId }
    : null;
  return { attempt: n, status, statusProblem, point, result, resultProblem };
}

/** The attempts (ascending) and input issues of one planned point under `pointDir`. */
export function readPoint(
  pointDir: string,
  spec: PointSpec,
  src: FileSource = fsSource,
): { attempts: AttemptFiles[]; issues: InputIssue[] } {
  const issues: InputIssue[] = [];
  const specFile = join(pointDir, RUN_FILES.spec);
  const same = (json: unknown) => (isDeepStrictEqual(json, spec) ? spec : undefined);
  const s = readJson(specFile, PointSpecSchema, 'point spec', same, src);
  if (s.ok && s.data.runId !== spec.runId)
    throw new RunIdentityError(
      `${specFile} (runId) plans point ${s.data.pointId} of run '${s.data.runId}', but this run directory's manifest.json is run '${spec.runId}': the directory mixes two runs, so nothing was stored; ingest each run from its own directory`,
    );
  if (!s.ok && !s.missing)
    issues.push({
      file: specFile,
      jsonPath: s.jsonPath,
      pointId: spec.pointId,
      attempt: null,
      problem: s.problem,
    });
  else if (s.ok && !isDeepStrictEqual(s.data, spec))
    issues.push({
      file: specFile,
      jsonPath: null,
      pointId: spec.pointId,
      attempt: null,
      problem: "differs from the manifest's plan of this point; the manifest's is used",
    });
  const numbers = src
    .list(pointDir)
    .map(attemptOfDir)
    .filter((n): n is number => n !== null)
    .sort((a, b) => a - b);
  const attempts = numbers.map((n) => readAttempt(attemptDirIn(pointDir, n), spec, n, issues, src));
  return { attempts, issues };
}
