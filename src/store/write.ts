import { sql } from 'kysely';
import type { ChangeKind, InputIssue, RunStatus } from '../schema/store.ts';
import { bulkWrite, type WriteTarget } from './bulk.ts';
import { offerLatest, rebuildLatestFor } from './latest.ts';
import type { RunRows } from './rows.ts';
import { RunIdentityError } from './run-dir-files.ts';
import { appendStatusEvent } from './run-status.ts';
import {
  type AttemptsTable,
  type PointsTable,
  RESULT_COLUMNS,
  type ResultsTable,
  type RunsTable,
} from './tables.ts';
import { writeEvals } from './write-evals.ts';

/**
 * Writes the rows of one run inside the caller's transaction, touching only what differs from what is
 * stored: a second ingest of the same run directory writes nothing. Nothing is ever deleted: a point whose
 * stored result the run directory no longer yields keeps it (and says so), so a damaged file never erases
 * a measurement.
 */

export interface WriteOutcome {
  status: RunStatus;
  /** The run row as written (or as it stands): its counts include results kept from earlier ingests. */
  run: Omit<RunsTable, 'status' | 'ingested_at'>;
  pointChanges: Map<string, ChangeKind>;
  attempts: Record<ChangeKind, number>;
  issues: InputIssue[];
}

/** Row signature over `cols`, for comparing a stored row with a new one. */
const sig = (row: object, cols: readonly string[]) =>
  JSON.stringify(cols.map((c) => (row as Record<string, unknown>)[c] ?? null));
const colsOf = (row: object | undefined) => (row ? Object.keys(row) : []);
const byPoint = <T extends { point_id: string }>(rows: readonly T[]) =>
  new Map(rows.map((r) => [r.point_id, r]));

export async function writeRun(
  t: WriteTarget,
  rows: RunRows,
  opts: {
    status?: RunStatus | undefined;
    now: string;
    /** Who ingests, for the audit trail (src/store/run-status.ts). */
    actor: string;
    /** The manifest.json the rows come from, for the refusal below. */
    manifestFile?: string;
  },
): Promise<WriteOutcome> {
  const runId = rows.run.run_id;
  const db = t.db;
  // PostgreSQL: ingests of one run id wait for each other, so the second sees what the first stored (SQLite
  // transactions are already one writer at a time: BEGIN IMMEDIATE, src/store/ingest.ts).
  if (t.backend === 'postgres')
    await sql`select pg_advisory_xact_lock(hashtext(${`infx-run:${runId}`}))`.execute(db);
  const [storedRun, storedPoints, storedAttempts, storedResults] = await Promise.all([
    db
      .selectFrom('runs')
      .select([
        'run_id',
        'created_at',
        'infx_version',
        'host',
        'source_kind',
        'source_files',
        'executor',
        'seed',
      ])
      .select([
        'status',
        'planned_points',
        'ingested_points',
        'failed_points',
        'missing_points',
        'manifest_sha256',
        'simulated_results',
        'real_results',
      ])
      .where('run_id', '=', runId)
      .executeTakeFirst(),
    db.selectFrom('points').selectAll().where('run_id', '=', runId).execute(),
    db.selectFrom('attempts').selectAll().where('run_id', '=', runId).execute(),
    db.selectFrom('results').selectAll().where('run_id', '=', runId).execute(),
  ]);
  // A run id names one run: the stored run's manifest (its creation time and content hash) must be this one.
  if (
    storedRun &&
    (storedRun.created_at !== rows.run.created_at || storedRun.manifest_sha256 !== rows.run.manifest_sha256)
  )
    throw new RunIdentityError(
      `${opts.manifestFile ?? 'manifest.json'} (runId) claims run '${runId}', but the database already holds another run '${runId}' ` +
        `(stored: created ${storedRun.created_at}, manifest sha256 ${storedRun.manifest_sha256.slice(0, 12)}…; ` +
        `this one: created ${rows.run.created_at}, manifest sha256 ${rows.run.manifest_sha256.slice(0, 12)}…): ` +
        'not the same run, so nothing was stored; give the new run its own id (infx sweep --run-id)',
    );
  // Simulated results are never official unless asked for: the official view is for real engines. Nor
  // is a run with a point whose accuracy eval fell below its threshold (changelog-pr-spec §9).
  const status: RunStatus =
    opts.status ??
    (storedRun?.status as RunStatus | undefined) ??
    (rows.engines.simulated > 0 || rows.evalsBelow.length > 0 ? 'unofficial' : 'official');
  const run = { ...rows.run };
  const out: WriteOutcome = {
    status,
    run,
    pointChanges: new Map(),
    attempts: { new: 0, updated: 0, unchanged: 0 },
    issues: [],
  };
  const oldPoints = byPoint(storedPoints);
  const oldResults = byPoint(storedResults);
  const oldAttempts = new Map(storedAttempts.map((a) => [`${a.point_id}#${a.attempt}`, a]));
  const newResults = byPoint(rows.results);

  // Points whose stored result the run directory no longer yields keep their stored point and result.
  const kept = new Set<string>();
  for (const p of rows.points) {
    const stored = oldResults.get(p.point_id);
    if (!stored || newResults.has(p.point_id)) continue;
    kept.add(p.point_id);
    run[`${p.outcome}_points` as 'failed_points']--;
    run.ingested_points++;
    run[stored.engine_kind === 'simulated' ? 'simulated_results' : 'real_results']++;
    out.issues.push({
      file: `points/${p.point_id}`,
      jsonPath: null,
      pointId: p.point_id,
      attempt: stored.attempt,
      problem: `the stored result of attempt ${stored.attempt} is kept: the run directory no longer yields a usable result (${p.reason})`,
    });
  }

  const points: PointsTable[] = [];
  const results: ResultsTable[] = [];
  const attempts: AttemptsTable[] = [];
  const pointCols = colsOf(rows.points[0]);
  const attemptCols = colsOf(rows.attempts[0]);
  const resultCols = colsOf(rows.results[0]);
  const changed = new Set<string>();
  for (const p of rows.points) {
    const old = oldPoints.get(p.point_id);
    if (!kept.has(p.point_id) && (!old || sig(old, pointCols) !== sig(p, pointCols))) {
      points.push(p);
      changed.add(p.point_id);
    }
    const r = newResults.get(p.point_id);
    const oldR = oldResults.get(p.point_id);
    if (r && (!oldR || sig(oldR, resultCols) !== sig(r, resultCols))) {
      results.push(r);
      changed.add(p.point_id);
    }
  }
  for (const a of rows.attempts) {
    const old = oldAttempts.get(`${a.point_id}#${a.attempt}`);
    const kind: ChangeKind = !old
      ? 'new'
      : sig(old, attemptCols) !== sig(a, attemptCols)
        ? 'updated'
        : 'unchanged';
    out.attempts[kind]++;
    if (kind !== 'unchanged') {
      attempts.push(a);
      changed.add(a.point_id);
    }
  }
  for (const p of rows.points)
    out.pointChanges.set(
      p.point_id,
      !oldPoints.has(p.point_id) ? 'new' : changed.has(p.point_id) ? 'updated' : 'unchanged',
    );

  // The manifest's hash stands for the manifest itself.
  const runCols = colsOf(run).filter((c) => c !== 'manifest_json');
  const statusChanged = storedRun !== undefined && storedRun.status !== status;
  // The run row is rewritten (with a new ingested_at) whenever the ingest changed anything of the run.
  const changedAny = points.length + attempts.length + results.length > 0;
  if (!storedRun || statusChanged || changedAny || sig(storedRun, runCols) !== sig(run, runCols)) {
    const row: RunsTable = { ...run, status, ingested_at: opts.now };
    await bulkWrite(t, 'runs', [row], 'update');
  }
  if (!storedRun || statusChanged)
    await appendStatusEvent(db, runId, {
      at: opts.now,
      action: storedRun ? 'status-set' : 'ingested',
      from: (storedRun?.status as RunStatus | undefined) ?? null,
      to: status,
      actor: opts.actor,
      reason: storedRun
        ? `infx ingest --status ${status}`
        : opts.status
          ? `infx ingest --status ${status}`
          : status === 'unofficial' && rows.evalsBelow.length > 0
            ? `infx ingest: ${rows.evalsBelow.length} point(s) below their eval threshold, so unofficial unless --status says`
            : status === 'unofficial'
              ? 'infx ingest: served by the simulated engine, so unofficial unless --status says'
              : 'infx ingest',
    });
  // In key order, as every ingest writes them: concurrent ingests of runs that share configs lock the same
  // rows in the same order (no deadlock between them on PostgreSQL).
  const configs = [...rows.configs].sort((a, b) =>
    a.config_key < b.config_key ? -1 : a.config_key > b.config_key ? 1 : 0,
  );
  await bulkWrite(t, 'configs', configs, 'nothing');
  await bulkWrite(t, 'points', points, 'update');
  await bulkWrite(t, 'attempts', attempts, 'update');
  await bulkWrite(t, 'results', results, 'update');
  const documents = byPoint(rows.documents);
  const docs = results.map((r) => documents.get(r.point_id)!);
  await bulkWrite(t, 'result_documents', docs, 'update');
  for (const pointId of await writeEvals(t, runId, rows.evals, rows.evalSamples))
    if (out.pointChanges.get(pointId) === 'unchanged') out.pointChanges.set(pointId, 'updated');
  if (statusChanged) await rebuildLatestFor(db, runId, RESULT_COLUMNS);
  else if (status === 'official') await offerLatest(t, results);
  return out;
}
