import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.ts';
import { ingestRunDir } from '../../src/store/ingest.ts';
import { RunIdentityError } from '../../src/store/run-dir-reader.ts';
import { verifyRun } from '../../src/store/verify.ts';
import { runCli, tmpDir } from '../helpers.ts';
import { BACKENDS, freshStore, PG_URL, requirePostgres } from '../store-helpers.ts';
import { type SyntheticPoint, syntheticRow, writeSyntheticRun } from '../support/synthetic.ts';
import { infx } from '../sweep-helpers.ts';

/**
 * What ingest refuses and what it survives (issue 13 items 1, 4, 5): a run directory that is not one run
 * (a manifest from another run, a point.json of another run, a second run under a stored run's id),
 * impossible values and truncated request records (named by file and JSON path or line), and eight
 * ingests of different runs started at once into one fresh database, SQLite and PostgreSQL.
 */

requirePostgres();

const H200 = syntheticRow({ runner: 'h200-nv_0', precision: 'fp8', framework: 'sglang', tp: 8 });
const points = (tput: number): SyntheticPoint[] =>
  [1, 2, 4].map((conc) => ({ row: H200, conc, attempts: [{ kind: 'ok', tput: tput + conc }] }));
const POINT = 'dsr1_1k1k_fp8_sglang_tp8-ep1_h200-nv_0_conc2';
const attemptFile = (runDir: string, name: string, point = POINT) =>
  join(runDir, 'points', point, 'attempt-1', name);

describe.each(BACKENDS)('ingest refuses a directory that is not one run (%s)', (backend) => {
  it('a manifest.json copied from another run: refused naming the file and both ids; the stored run is untouched', async () => {
    const store = await freshStore(backend);
    const out = tmpDir();
    const stored = writeSyntheticRun(out, 'stored', points(900), '2026-01-01T00:00:00.000Z');
    const other = writeSyntheticRun(out, 'other', points(800), '2026-02-01T00:00:00.000Z');
    await ingestRunDir(store, stored);
    copyFileSync(join(stored, 'manifest.json'), join(other, 'manifest.json'));
    const err = await ingestRunDir(store, other).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunIdentityError);
    const message = (err as Error).message;
    expect(message).toContain(join(other, 'points'));
    expect(message).toMatch(/run 'other'.*run 'stored'/);
    expect(message).toContain('nothing was stored');
    expect((await verifyRun(store, 'stored', stored)).ok).toBe(true);
    const cli = await runCli(['ingest', other, '--db', store.rawUrl]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(
      /^error: .*spec\.json \(runId\) plans point .* of run 'other', but this run directory's manifest\.json is run 'stored'/,
    );
  });

  it('a point.json whose runId disagrees with the manifest: refused naming the file and both ids', async () => {
    const store = await freshStore(backend);
    const dir = writeSyntheticRun(tmpDir(), 'mine', points(900));
    const file = attemptFile(dir, 'point.json');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...doc, runId: 'theirs' }));
    const r = await runCli(['ingest', dir, '--db', store.rawUrl]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${file} (runId) is an attempt of run 'theirs', but this run directory's manifest.json is run 'mine'`,
    );
    const runs = await store.db.selectFrom('runs').select('run_id').execute();
    expect(runs).toEqual([]);
  });

  it('a second run under a stored run id (another creation time): refused, the stored one kept', async () => {
    const store = await freshStore(backend);
    const first = writeSyntheticRun(tmpDir(), 'nightly', points(905.9), '2026-01-01T00:00:00.000Z');
    const second = writeSyntheticRun(tmpDir(), 'nightly', points(833.1), '2026-01-02T00:00:00.000Z');
    await ingestRunDir(store, first);
    const r = await runCli(['ingest', second, '--db', store.rawUrl]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(second, 'manifest.json')} (runId) claims run 'nightly'`);
    expect(r.stderr).toMatch(
      /stored: created 2026-01-01T00:00:00\.000Z.*this one: created 2026-01-02T00:00:00\.000Z/,
    );
    const tput = await store.db.selectFrom('results').select('tput_per_gpu').where('conc', '=', 2).execute();
    expect(tput.map((t) => t.tput_per_gpu)).toEqual([expect.closeTo(907.9, 6)]);
    expect((await verifyRun(store, 'nightly', first)).ok).toBe(true);
  });
});

describe('ingest refuses impossible values and truncated request records', () => {
  const records = (n: number, phase: string) =>
    Array.from({ length: n }, (_, i) => JSON.stringify({ index: i, phase }));
  /** A requests.jsonl as the result counts it: 2 × conc warmup records, 10 × conc benchmark ones. */
  const wholeRequests = (dir: string) => {
    const r = JSON.parse(readFileSync(attemptFile(dir, 'result.json'), 'utf8'));
    return [...records(r.counts.warmupCompleted, 'warmup'), ...records(r.counts.scheduled, 'benchmark')];
  };

  it('a negative throughput, a latency of 1e999: the file and the JSON path', async () => {
    const store = await freshStore('sqlite');
    const dir = writeSyntheticRun(tmpDir(), 'values', points(900));
    const file = attemptFile(dir, 'result.json');
    const r = JSON.parse(readFileSync(file, 'utf8'));
    r.throughput.perGpu.total = -905.9;
    writeFileSync(file, JSON.stringify(r));
    const other = attemptFile(dir, 'result.json', POINT.replace('conc2', 'conc4'));
    writeFileSync(other, readFileSync(other, 'utf8').replace(/"median":\s*[0-9.]+/, '"median": 1e999'));
    const report = await ingestRunDir(store, dir);
    expect(report.ok).toBe(false);
    expect(report.ingested).toBe(1);
    expect(report.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file,
          jsonPath: 'throughput.perGpu.total',
          problem: expect.stringContaining('-905.9 is negative'),
        }),
        expect.objectContaining({ file: other, problem: expect.stringContaining('received Infinity') }),
      ]),
    );
    const text = await runCli(['ingest', dir, '--db', store.rawUrl]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `skipped  ${file}: impossible value: throughput.perGpu.total: -905.9 is negative`,
    );
  });

  it('a requests.jsonl cut off mid-line or short of records: found by ingest and by verify', async () => {
    const store = await freshStore('sqlite');
    const dir = writeSyntheticRun(tmpDir(), 'records', points(900));
    const file = attemptFile(dir, 'requests.jsonl');
    const lines = wholeRequests(dir);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const first = await ingestRunDir(store, dir);
    expect(first.issues).toEqual([]);
    expect(first.ingested).toBe(3);
    expect((await verifyRun(store, 'records', dir)).ok).toBe(true);

    // Cut off in the middle of its last line.
    const whole = readFileSync(file, 'utf8');
    writeFileSync(file, whole.slice(0, whole.length - 10));
    const v = await runCli(['verify', 'records', '--run-dir', dir, '--db', store.rawUrl]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`${file}: line ${lines.length} is cut off`);
    const again = await ingestRunDir(store, dir);
    expect(again.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file, problem: expect.stringMatching(/^line \d+ is cut off .*truncated/) }),
      ]),
    );
    // The stored result is kept (never deleted), and the report says why the directory no longer yields it.
    expect(again.ok).toBe(false);

    // Whole lines, but fewer records than result.json counts.
    writeFileSync(file, `${lines.slice(0, -3).join('\n')}\n`);
    const short = await ingestRunDir(store, dir);
    expect(short.issues.find((i) => i.file === file)?.problem).toMatch(
      /benchmark records .* but result\.json counts\.scheduled says \d+: requests\.jsonl is truncated/,
    );
    const fresh = await freshStore('sqlite');
    const none = await ingestRunDir(fresh, dir);
    expect(none.details.find((d) => d.pointId === POINT)).toMatchObject({ outcome: 'failed' });
    // The store agrees with the directory (it never took the result), yet verify still says it is damaged.
    const damaged = await verifyRun(fresh, 'records', dir);
    expect(damaged.differences).toEqual([]);
    expect(damaged.ok).toBe(false);
  });

  it('a large run (read by the reader thread) through the built CLI: the same findings', async () => {
    const rows = Array.from({ length: 100 }, (_, i) =>
      syntheticRow({
        runner: 'h200-nv_0',
        precision: 'fp8',
        framework: 'sglang',
        tp: 8,
        'exp-name': `big${i}_1k1k`,
      }),
    );
    const dir = writeSyntheticRun(
      tmpDir(),
      'big',
      rows.flatMap((row) => [1, 2, 4].map((conc) => ({ row, conc, attempts: [{ kind: 'ok' as const }] }))),
    );
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const [a, b] = [m.points[10].pointId, m.points[200].pointId] as [string, string];
    const fileA = attemptFile(dir, 'requests.jsonl', a);
    const fileB = attemptFile(dir, 'requests.jsonl', b);
    for (const [p, file] of [
      [a, fileA],
      [b, fileB],
    ] as const) {
      const r = JSON.parse(readFileSync(attemptFile(dir, 'result.json', p), 'utf8'));
      const lines = [
        ...records(r.counts.warmupCompleted, 'warmup'),
        ...records(r.counts.scheduled, 'benchmark'),
      ];
      writeFileSync(file, p === a ? `${lines.join('\n')}\n` : lines.join('\n'));
    }
    const db = join(tmpDir(), 'big.db');
    const r = await infx(['ingest', dir, '--db', db, '--format', 'json']);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.planned).toBe(300);
    expect(report.ingested).toBe(299);
    expect(report.issues).toEqual([
      expect.objectContaining({ file: fileB, problem: expect.stringMatching(/is cut off/) }),
    ]);
  }, 60_000);
});

/** A database nobody has opened yet (no tables), dropped after the file. */
const pgCreated: string[] = [];
async function emptyPostgres(): Promise<string> {
  const name = `infx_hostile_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  pgCreated.push(name);
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return u.toString();
}
afterAll(async () => {
  if (pgCreated.length === 0) return;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  for (const name of pgCreated) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

describe.each(BACKENDS)('eight ingests at once into one fresh database (%s)', (backend) => {
  it('all succeed and every run verifies', async () => {
    const out = tmpDir();
    const db = backend === 'sqlite' ? join(tmpDir(), 'fresh.db') : await emptyPostgres();
    const dirs = Array.from({ length: 8 }, (_, i) =>
      writeSyntheticRun(out, `run${i}`, points(100 * (i + 1)), `2026-01-0${i + 1}T00:00:00.000Z`),
    );
    const results = await Promise.all(dirs.map((d) => infx(['ingest', d, '--db', db])));
    for (const [i, r] of results.entries()) expect(r.code, `ingest ${i}: ${r.stdout}${r.stderr}`).toBe(0);
    const store = await openStore(db);
    try {
      for (const [i, d] of dirs.entries()) {
        const v = await verifyRun(store, `run${i}`, d);
        expect(v.differences).toEqual([]);
      }
      const n = await store.db
        .selectFrom('results')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n.n)).toBe(24);
    } finally {
      await store.close();
    }
  }, 120_000);
});
