import { agenticLabel, curveLabel } from '../../analysis/labels.ts';
import type { EngineKind } from '../../schema/curve.ts';
import {
  ATTEMPT_FILES,
  type PointPhase,
  type PointSpec,
  type RunManifest,
  type SkippedRow,
} from '../../schema/run-dir.ts';
import type { AttemptStatus, PointOutcome, RunStatus, StoredRun } from '../../schema/store.ts';
import { RUN_FILE_NAMES, type RunAttempt, type RunDetail, type RunFileName } from '../../schema/web-api.ts';
import { runChangelog } from '../../store/changelog.ts';
import type { Store } from '../../store/db.ts';
import { runEvalCounts } from '../../store/eval-queries.ts';
import { configOf, runById, runs, storedResult } from '../../store/queries.ts';
import { runStatusHistory } from '../../store/run-status.ts';
import type { AttemptsTable } from '../../store/tables.ts';
import { pointWithAttempts, runAttempts, runManifestJson, runPointRows } from '../../store/web-queries.ts';
import { HttpError, notFound } from '../http.ts';
import { attemptFile, engineCommands, type Located, logTail } from '../run-files.ts';
import type { ApiContext, ApiResponse } from './context.ts';
import { runPointFacts } from './run-metrics.ts';

/**
 * `GET /api/runs`, `GET /api/runs/:id` (every planned point with its attempts, failure phase and reason,
 * engine command and links), `GET /api/runs/:id/points/:pointId/result` (the stored result.json) and
 * `GET /api/runs/:id/points/:pointId/files/:name` (requests.jsonl, server.log, … from the run directory).
 */

export const runPath = (runId: string) => `/api/runs/${encodeURIComponent(runId)}`;
export const pointPath = (runId: string, pointId: string) =>
  `${runPath(runId)}/points/${encodeURIComponent(pointId)}`;
const filePath = (runId: string, pointId: string, attempt: number, name: RunFileName) =>
  `${pointPath(runId, pointId)}/files/${name}?attempt=${attempt}`;

export async function listRuns(ctx: ApiContext, status?: RunStatus) {
  return runs(ctx.store, status === undefined ? {} : { status });
}

interface ManifestFacts {
  specs: Map<string, PointSpec>;
  skipped: SkippedRow[];
}

/** Parsed manifests, by store, run and ingest time (a 10,000-point manifest takes a while to parse). */
const manifests = new Map<string, ManifestFacts>();

async function manifestFacts(store: Store, runId: string, ingestedAt: string): Promise<ManifestFacts> {
  const key = `${store.url}\0${runId}\0${ingestedAt}`;
  const hit = manifests.get(key);
  if (hit) return hit;
  const json = await runManifestJson(store, runId);
  let facts: ManifestFacts = { specs: new Map(), skipped: [] };
  if (json !== undefined) {
    const m = JSON.parse(json) as RunManifest;
    facts = { specs: new Map(m.points.map((p) => [p.pointId, p])), skipped: m.skipped ?? [] };
  }
  if (manifests.size >= 4) manifests.delete(manifests.keys().next().value as string);
  manifests.set(key, facts);
  return facts;
}

/** Run details, by store, run, ingest time and run directory: a large run's files take a while to read. */
const details = new Map<string, Promise<RunDetail>>();

export async function runDetail(ctx: ApiContext, runId: string): Promise<RunDetail> {
  const run = await runById(ctx.store, runId);
  if (run === undefined) throw notFound(`no run '${runId}' in the database (GET /api/runs lists them)`, 'id');
  const located = ctx.runDirs.locate(run);
  const key = `${ctx.store.url}\0${runId}\0${run.ingestedAt}\0${located.dir ?? located.note}`;
  let detail = details.get(key);
  if (detail === undefined) {
    if (details.size >= 4) details.delete(details.keys().next().value as string);
    detail = buildDetail(ctx, run, located);
    details.set(key, detail);
    detail.catch(() => details.delete(key));
  }
  // Staging and reuse change a run without a new ingest: its status, changelog and trail are read fresh.
  const [built, changelog, statusHistory, evals] = await Promise.all([
    detail,
    runChangelog(ctx.store, runId),
    runStatusHistory(ctx.store, runId),
    runEvalCounts(ctx.store, runId),
  ]);
  return { ...built, run, changelog, statusHistory, evals };
}

async function buildDetail(ctx: ApiContext, run: StoredRun, located: Located): Promise<RunDetail> {
  const runId = run.runId;
  const [points, attempts, facts, results] = await Promise.all([
    runPointRows(ctx.store, runId),
    runAttempts(ctx.store, runId),
    manifestFacts(ctx.store, runId, run.ingestedAt),
    runPointFacts(ctx.store, runId),
  ]);
  const dir = located.dir;
  const byPoint = new Map<string, AttemptsTable[]>();
  for (const a of attempts) {
    const list = byPoint.get(a.point_id);
    if (list === undefined) byPoint.set(a.point_id, [a]);
    else list.push(a);
  }
  const attemptOf = (pointId: string, a: AttemptsTable): RunAttempt => {
    const files: RunAttempt['files'] = {};
    if (dir !== null)
      for (const name of RUN_FILE_NAMES)
        if (attemptFile(dir, pointId, a.attempt, name) !== null)
          files[name] = filePath(runId, pointId, a.attempt, name);
    return {
      attempt: a.attempt,
      status: a.status as AttemptStatus,
      phase: a.phase as PointPhase | null,
      reason: a.reason,
      interrupted: a.interrupted === 1,
      valid: a.valid === null ? null : a.valid === 1,
      startedAt: a.started_at,
      finishedAt: a.finished_at,
      durationS: a.duration_s,
      host: a.host,
      slurmJobId: a.slurm_job_id,
      engine: dir === null ? null : engineCommands(dir, pointId, a.attempt),
      logTail: dir !== null && a.status === 'failed' ? logTail(dir, pointId, a.attempt) : [],
      files,
    };
  };
  return {
    run,
    runDir: dir,
    runDirNote: located.note,
    skipped: facts.skipped,
    changelog: [],
    statusHistory: [],
    evals: { total: 0, below: 0 },
    points: points.map((p) => {
      const list = (byPoint.get(p.point_id) ?? []).map((a) => attemptOf(p.point_id, a));
      const shown = list.find((a) => a.attempt === p.chosen_attempt) ?? list.at(-1);
      return {
        pointId: p.point_id,
        index: p.point_index,
        configKey: p.config_key,
        label:
          p.benchmark_type === 'agentic_traces'
            ? agenticLabel(configOf(p), p.kv_offload ?? 'none', p.engine_kind as EngineKind)
            : curveLabel(configOf(p), p.engine_kind as EngineKind),
        engine: { kind: p.engine_kind as EngineKind, simulator: p.simulator },
        conc: p.conc,
        gpus: p.gpus,
        image: p.image,
        bucket: p.bucket,
        outcome: p.outcome as PointOutcome,
        attempt: p.chosen_attempt,
        phase: p.phase as PointPhase | null,
        reason: p.reason,
        valid: p.valid === null ? null : p.valid === 1,
        engineSettings: facts.specs.get(p.point_id)?.engine ?? null,
        metrics: results.get(p.point_id)?.metrics ?? null,
        requests: results.get(p.point_id)?.requests ?? null,
        attempts: list,
        links: {
          result: p.valid === null ? null : `${pointPath(runId, p.point_id)}/result`,
          requests: shown?.files[ATTEMPT_FILES.requests] ?? null,
          serverLog: shown?.files[ATTEMPT_FILES.log] ?? null,
          timeline:
            p.benchmark_type === 'agentic_traces' && shown?.files[ATTEMPT_FILES.requests]
              ? `/runs/${encodeURIComponent(runId)}?timeline=${encodeURIComponent(p.point_id)}#timeline`
              : null,
        },
      };
    }),
  };
}

export async function pointResult(ctx: ApiContext, runId: string, pointId: string): Promise<ApiResponse> {
  if ((await runById(ctx.store, runId)) === undefined)
    throw notFound(`no run '${runId}' in the database`, 'id');
  const found = await pointWithAttempts(ctx.store, runId, pointId);
  if (found === undefined) throw notFound(`run '${runId}' has no point '${pointId}'`, 'pointId');
  const result = await storedResult(ctx.store, runId, pointId);
  if (result === undefined) {
    const p = found.point;
    throw notFound(
      `point '${pointId}' of run '${runId}' has no stored result: ${p.outcome}` +
        `${p.phase ? ` in ${p.phase}` : ''}${p.reason ? ` (${p.reason})` : ''}`,
      'pointId',
    );
  }
  return { type: 'json', body: result };
}

const FILE_TYPES: Record<RunFileName, string> = {
  [ATTEMPT_FILES.requests]: 'text/plain; charset=utf-8',
  [ATTEMPT_FILES.log]: 'text/plain; charset=utf-8',
  [ATTEMPT_FILES.pointLog]: 'text/plain; charset=utf-8',
  [ATTEMPT_FILES.status]: 'application/json; charset=utf-8',
  [ATTEMPT_FILES.point]: 'application/json; charset=utf-8',
};

export async function pointFile(
  ctx: ApiContext,
  runId: string,
  pointId: string,
  name: string,
  attempt: number | undefined,
): Promise<ApiResponse> {
  if (!(RUN_FILE_NAMES as readonly string[]).includes(name))
    throw notFound(`no file '${name}': an attempt serves ${RUN_FILE_NAMES.join(', ')}`, 'name');
  const run = await runById(ctx.store, runId);
  if (run === undefined) throw notFound(`no run '${runId}' in the database`, 'id');
  const found = await pointWithAttempts(ctx.store, runId, pointId);
  if (found === undefined) throw notFound(`run '${runId}' has no point '${pointId}'`, 'pointId');
  const n = attempt ?? found.point.chosen_attempt ?? found.attempts.at(-1);
  if (n === undefined || !found.attempts.includes(n))
    throw notFound(
      `point '${pointId}' has no attempt ${n ?? ''} (attempts: ${found.attempts.join(', ') || 'none'})`,
      'attempt',
    );
  const located = ctx.runDirs.locate(run);
  if (located.dir === null)
    throw new HttpError(404, 'no-run-dir', `the files of run '${runId}' are not available: ${located.note}`);
  const path = attemptFile(located.dir, pointId, n, name as RunFileName);
  if (path === null) throw notFound(`attempt ${n} of point '${pointId}' has no ${name}`, 'name');
  return { type: 'file', path, contentType: FILE_TYPES[name as RunFileName] };
}
