import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PointResultSchema } from '../src/schema/point-result.ts';
import { IngestReportSchema, VerifyReportSchema } from '../src/schema/store.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { curvePoints, pointOutcomes, runById, storedResult } from '../src/store/queries.ts';
import { verifyRun } from '../src/store/verify.ts';
import { runCli, tmpDir } from './helpers.ts';
import { BACKENDS, freshStore, requirePostgres, tableCounts } from './store-helpers.ts';
import { FAST, infx, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * End to end: a real sweep on the simulated engine (conc 1 ok; conc 2 crashes in attempt 1 and passes in
 * attempt 2; conc 4 never starts) ingested into SQLite and PostgreSQL, ingested again, verified, tampered.
 * Its results are simulated: stored as unofficial unless asked, on the simulated curve of the config.
 */

let runDir = '';
const id = (conc: number) =>
  `llama8b_256_64_bf16_vllm_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc${conc}_h100`;

beforeAll(async () => {
  const out = tmpDir();
  const matrix = writeMatrix(out, [smallRow({ conc: [1, 2, 4] })]);
  const r = await infx([
    'sweep',
    '--matrix',
    matrix,
    '--out',
    out,
    '--run-id',
    'sweep1',
    ...FAST,
    '--retries',
    '1',
    '--sim-fault',
    'conc2=crash-after:4@1',
    '--sim-fault',
    'conc4=no-start',
  ]);
  expect(r.code, r.stderr).toBe(1);
  runDir = join(out, 'sweep1');
}, 60_000);

requirePostgres();

describe.each(BACKENDS)('ingest a real sweep (%s)', (backend) => {
  it('stores every point with its outcome, every attempt, and the retried point from attempt 2', async () => {
    const store = await freshStore(backend);
    const report = await ingestRunDir(store, runDir);
    expect(IngestReportSchema.parse(report)).toEqual(report);
    expect(report).toMatchObject({
      runId: 'sweep1',
      // Served by the simulated engine: not official unless asked.
      status: 'unofficial',
      engine: { kind: 'simulated', simulated: 2, real: 0 },
      warnings: [],
      planned: 3,
      ingested: 2,
      failed: 1,
      missing: 0,
    });
    expect(report.points).toEqual({ new: 3, updated: 0, unchanged: 0 });
    expect(report.attempts).toEqual({ new: 5, updated: 0, unchanged: 0 });
    expect(report.issues).toEqual([]);
    expect(report.ok).toBe(false);

    const retried = report.details.find((d) => d.pointId === id(2))!;
    expect(retried).toMatchObject({ outcome: 'ingested', attempt: 2 });
    expect(retried.attempts.map((a) => [a.attempt, a.status, a.phase])).toEqual([
      [1, 'failed', 'benchmark'],
      [2, 'ok', null],
    ]);
    const file = PointResultSchema.parse(
      JSON.parse(readFileSync(join(runDir, 'points', id(2), 'attempt-2/result.json'), 'utf8')),
    );
    expect(await storedResult(store, 'sweep1', id(2))).toEqual(file);

    const points = await curvePoints(store, { runId: 'sweep1' });
    expect(points.map((p) => [p.conc, p.attempt])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    const p2 = points[1]!;
    expect(file.engine.kind).toBe('simulated');
    expect(file.engine.simulator).toMatch(/^infx-sim\//);
    expect(p2.engine).toEqual({ kind: 'simulated', simulator: file.engine.simulator });
    expect(p2.configKey).toMatch(/^llama8b\|h100\|vllm\|bf16\|.*\|256\|64\|sim$/);
    expect(p2.metrics.tputPerGpu).toBe(file.throughput.perGpu.total);
    expect(p2.metrics.interactivity.median).toBe(file.interactivity.median);
    expect(p2.metrics.ttftMs.p99).toBe(file.latency.ttftMs.p99);
    expect(p2.metrics.joulesPerOutputToken).toBeNull();
    expect(p2.config).toMatchObject({
      model: 'llama8b',
      hardware: 'h100',
      framework: 'vllm',
      isl: 256,
      osl: 64,
    });
    expect(p2.config.prefill).toEqual({
      tp: 1,
      ep: 1,
      dpAttn: false,
      pp: 1,
      dcp: 1,
      pcp: 1,
      workers: 0,
      gpus: 1,
    });

    const outcomes = await pointOutcomes(store, 'sweep1');
    expect(outcomes.find((o) => o.conc === 4)).toMatchObject({
      outcome: 'failed',
      attempt: null,
      attempts: 2,
      phase: 'setup',
      reason: expect.stringContaining('exited before it was ready'),
    });
    expect(await runById(store, 'sweep1')).toMatchObject({
      planned: 3,
      ingested: 2,
      failed: 1,
      missing: 0,
      status: 'unofficial',
      engine: { kind: 'simulated', simulated: 2, real: 0 },
    });
    expect(await curvePoints(store, { official: true })).toEqual([]);

    // Again: nothing changes, and the report says so.
    const before = await tableCounts(store);
    const again = await ingestRunDir(store, runDir);
    expect(again.points).toEqual({ new: 0, updated: 0, unchanged: 3 });
    expect(again.attempts).toEqual({ new: 0, updated: 0, unchanged: 5 });
    expect(again.status).toBe('unofficial');
    expect(await tableCounts(store)).toEqual(before);
    expect(before).toMatchObject({
      runs: 1,
      configs: 1,
      points: 3,
      attempts: 5,
      results: 2,
      latest_results: 0,
    });
    // Official on purpose: allowed, with a warning; the latest view then holds its simulated curve.
    const official = await ingestRunDir(store, runDir, { status: 'official' });
    expect(official.warnings).toEqual([expect.stringContaining("2 of the run's 2 results are simulated")]);
    expect((await curvePoints(store, { official: true })).map((p) => p.engine.kind)).toEqual([
      'simulated',
      'simulated',
    ]);

    const verified = await verifyRun(store, 'sweep1', runDir);
    expect(VerifyReportSchema.parse(verified)).toEqual(verified);
    expect(verified.differences).toEqual([]);
    expect(verified.checked).toEqual({
      runs: 1,
      configs: 1,
      points: 3,
      attempts: 5,
      results: 2,
      point_evals: 0,
      eval_samples: 0,
    });

    // Tampering with a stored result's file shows as differences.
    const copy = join(tmpDir(), 'sweep1');
    cpSync(runDir, copy, { recursive: true });
    const path = join(copy, 'points', id(1), 'attempt-1/result.json');
    const tampered = JSON.parse(readFileSync(path, 'utf8'));
    tampered.throughput.perGpu.total *= 2;
    writeFileSync(path, JSON.stringify(tampered));
    const bad = await verifyRun(store, 'sweep1', copy);
    expect(bad.ok).toBe(false);
    expect(bad.differences.map((d) => [d.table, d.key, d.column])).toEqual(
      expect.arrayContaining([
        ['results', id(1), 'tput_per_gpu'],
        ['results', id(1), 'result_sha256'],
        ['attempts', `${id(1)}#1`, 'result_sha256'],
      ]),
    );
  });

  it('infx ingest and infx verify: exit codes, text and JSON', async () => {
    const store = await freshStore(backend);
    const db = store.rawUrl;
    const first = await runCli(['ingest', runDir, '--db', db]);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toContain(`run sweep1 (unofficial) → `);
    expect(first.stdout).toContain('3 planned: 2 ingested, 1 failed, 0 missing');
    expect(first.stdout).toContain("simulated: every result from infx's simulated engine");
    expect(first.stdout).toContain(`retried  ${id(2)}: attempt 2 stored (attempt 1 failed in benchmark)`);
    expect(first.stdout).toMatch(new RegExp(`failed +${id(4)} in setup: attempt 2: `));
    const asOfficial = await runCli(['ingest', runDir, '--db', db, '--status', 'official']);
    expect(asOfficial.stdout).toContain("warning: 2 of the run's 2 results are simulated");
    expect(await curvePoints(store, { official: true })).toHaveLength(2);
    const json = await runCli(['ingest', runDir, '--db', db, '--format', 'json', '--status', 'staged']);
    const report = IngestReportSchema.parse(JSON.parse(json.stdout));
    expect(report).toMatchObject({ status: 'staged', points: { new: 0, updated: 0, unchanged: 3 } });
    // No longer official: the latest view drops it.
    expect(await curvePoints(store, { official: true })).toEqual([]);

    const ok = await runCli(['verify', 'sweep1', '--run-dir', runDir, '--db', db]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('ok: the database holds exactly what the run directory holds');
    const wrong = await runCli(['verify', 'other', '--run-dir', runDir, '--db', db]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("holds run 'sweep1', not 'other'");
  });
});

describe('infx ingest: usage errors', () => {
  it('names --db and the accepted forms for an unsupported URL (exit 2)', async () => {
    const r = await runCli(['ingest', runDir, '--db', 'mysql://u:secret@host/db']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--db: unsupported database 'mysql://u:***@host/db'");
    expect(r.stderr).toContain('sqlite:PATH');
    expect(r.stderr).not.toContain('secret');
  });

  it('verify does not create a database that is not there (exit 1)', async () => {
    const db = join(tmpDir(), 'none.db');
    const r = await runCli(['verify', 'sweep1', '--run-dir', runDir, '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no database at ${db}: ingest a run into it first`);
    expect(existsSync(db)).toBe(false);
  });

  it('says what a run directory is when given something else (exit 1)', async () => {
    const r = await runCli(['ingest', tmpDir(), '--db', join(tmpDir(), 'x.db')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not a run directory: no manifest.json/);
  });
});
