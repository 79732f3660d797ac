import { InfxError } from '../schema/errors.ts';
import type { VerifyDifference, VerifyReport } from '../schema/store.ts';
import type { Store } from './db.ts';
import { readEvalFiles } from './eval-files.ts';
import { type RunRows, runRows } from './rows.ts';
import { RUN_FILES, readRunDirFast, sha256 } from './run-dir-reader.ts';

/**
 * `infx verify`: does the store hold exactly what the run directory holds? The run directory is read and
 * turned into rows exactly as ingest would, then compared with the stored rows column by column: the run,
 * its configs, every point (outcome, chosen attempt), every attempt, every result (hot columns and the
 * SHA-256 of result.json; the stored JSON is re-hashed too, so an edit on either side shows). A damaged run
 * directory (a truncated requests.jsonl, an impossible value) fails it too.
 */

export class VerifyError extends InfxError {}

/** Issues that say the run directory is damaged: truncated request records, impossible values. */
const damaged = (i: { file: string; problem: string }) =>
  i.file.endsWith(`/${RUN_FILES.requests}`) || i.problem.startsWith('impossible value');

const show = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

type Row = object;
const get = (r: Row, col: string) => (r as Record<string, unknown>)[col];

function compare(
  table: string,
  expected: readonly Row[],
  stored: readonly Row[],
  keyOf: (r: Row) => string,
  skip: readonly string[],
  out: VerifyDifference[],
): number {
  const have = new Map(stored.map((r) => [keyOf(r), r]));
  const want = new Map(expected.map((r) => [keyOf(r), r]));
  for (const [key, w] of want) {
    const h = have.get(key);
    if (!h) {
      out.push({ table, key, column: null, db: null, runDir: 'present' });
      continue;
    }
    for (const col of Object.keys(w)) {
      if (skip.includes(col)) continue;
      const a = show(get(w, col) ?? null);
      const b = show(get(h, col) ?? null);
      if (a !== b) out.push({ table, key, column: col, db: b, runDir: a });
    }
  }
  for (const key of have.keys())
    if (!want.has(key)) out.push({ table, key, column: null, db: 'present', runDir: null });
  return want.size;
}

async function stored(store: Store, rows: RunRows) {
  const runId = rows.run.run_id;
  const db = store.db;
  const keys = rows.configs.map((c) => c.config_key);
  return Promise.all([
    db.selectFrom('runs').selectAll().where('run_id', '=', runId).execute(),
    keys.length === 0 ? [] : db.selectFrom('configs').selectAll().where('config_key', 'in', keys).execute(),
    db.selectFrom('points').selectAll().where('run_id', '=', runId).execute(),
    db.selectFrom('attempts').selectAll().where('run_id', '=', runId).execute(),
    db.selectFrom('results').selectAll().where('run_id', '=', runId).execute(),
    db.selectFrom('result_documents').selectAll().where('run_id', '=', runId).execute(),
    db.selectFrom('point_evals').selectAll().where('run_id', '=', runId).execute(),
    db.selectFrom('eval_samples').selectAll().where('run_id', '=', runId).execute(),
  ]);
}

export async function verifyRun(store: Store, runId: string, runDir: string): Promise<VerifyReport> {
  const contents = await readRunDirFast(runDir);
  if (contents.manifest.runId !== runId)
    throw new VerifyError(
      `${runDir} holds run '${contents.manifest.runId}', not '${runId}'; give that run's folder`,
    );
  const rows = runRows(contents);
  const evalFiles = readEvalFiles(runDir, rows.evals);
  const [runs, configs, points, attempts, results, documents, evals, samples] = await stored(store, rows);
  const diffs: VerifyDifference[] = [];
  const point = (r: Row) => String(get(r, 'point_id'));
  const checked: Record<string, number> = {
    runs: compare('runs', [rows.run], runs, () => runId, ['manifest_json'], diffs),
    configs: compare('configs', rows.configs, configs, (r) => String(get(r, 'config_key')), [], diffs),
    points: compare('points', rows.points, points, point, [], diffs),
    attempts: compare(
      'attempts',
      rows.attempts,
      attempts,
      (r) => `${get(r, 'point_id')}#${get(r, 'attempt')}`,
      [],
      diffs,
    ),
    results: compare('results', rows.results, results, point, [], diffs),
    point_evals: compare('point_evals', evalFiles.evals, evals, point, [], diffs),
    eval_samples: compare(
      'eval_samples',
      evalFiles.samples,
      samples,
      (r) => `${get(r, 'point_id')}#${get(r, 'doc_id')}`,
      [],
      diffs,
    ),
  };
  // The stored JSON itself must still be what its hash says (an edit in the database shows here).
  for (const r of runs)
    if (sha256(r.manifest_json) !== r.manifest_sha256)
      diffs.push({
        table: 'runs',
        key: runId,
        column: 'manifest_json',
        db: 'edited (hash mismatch)',
        runDir: null,
      });
  const hashes = new Map(results.map((r) => [r.point_id, r.result_sha256]));
  for (const d of documents)
    if (sha256(d.result_json) !== hashes.get(d.point_id))
      diffs.push({
        table: 'result_documents',
        key: d.point_id,
        column: 'result_json',
        db: 'edited (hash mismatch)',
        runDir: null,
      });
  const documented = new Set(documents.map((d) => d.point_id));
  for (const r of results)
    if (!documented.has(r.point_id))
      diffs.push({ table: 'result_documents', key: r.point_id, column: null, db: null, runDir: 'present' });
  const issues = [...contents.issues, ...rows.issues, ...evalFiles.issues];
  return {
    kind: 'verify-report',
    runId,
    runDir,
    db: store.url,
    checked,
    differences: diffs,
    issues,
    // A damaged directory fails verification even where the store agrees with it (it never took the result).
    ok: diffs.length === 0 && !issues.some(damaged),
  };
}
