import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangelogEntrySchema } from '../src/schema/changelog-entry.ts';
import { ingestChangelog, runChangelog } from '../src/store/changelog.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { chartPoints, curvePoints, pointOutcomes, runs } from '../src/store/queries.ts';
import { RunDirReadError, readRunDir, readRunDirFast } from '../src/store/run-dir-reader.ts';
import { verifyRun } from '../src/store/verify.ts';
import { tmpDir } from './helpers.ts';
import { BACKENDS, freshStore, requirePostgres, tableCounts } from './store-helpers.ts';
import { type SyntheticPoint, syntheticRow, syntheticSpec, writeSyntheticRun } from './support/synthetic.ts';

/** Ingest edge cases on synthetic run directories, the same suite on SQLite and PostgreSQL. */

const ok = { kind: 'ok' } as const;
const row = syntheticRow();
const pid = (conc: number, r = row) => syntheticSpec('x', 0, r, conc).pointId;
const point = (conc: number, ...attempts: SyntheticPoint['attempts']): SyntheticPoint => ({
  row,
  conc,
  attempts,
});

requirePostgres();

describe.each(BACKENDS)('ingest edge cases (%s)', (backend) => {
  it('reports failed, missing and skipped input with file, JSON path, phase and reason, and stores them', async () => {
    const store = await freshStore(backend);
    const dir = writeSyntheticRun(tmpDir(), 'edge', [
      point(1, ok),
      point(2, { kind: 'failed', phase: 'benchmark', reason: 'the engine died', withResult: true }),
      point(4), // never run
      point(
        8,
        { kind: 'failed', phase: 'setup', reason: 'no GPU' },
        { kind: 'interrupted', phase: 'warmup' },
      ),
      point(16, ok, { kind: 'no-status' }),
      point(32, ok),
      point(64, ok, ok),
    ]);
    // An invalid result.json on the newest ok attempt: the older valid one is used, and the bad file reported.
    const bad64 = join(dir, 'points', pid(64), 'attempt-2/result.json');
    const r64 = JSON.parse(readFileSync(bad64, 'utf8'));
    r64.throughput.perGpu.total = 'fast';
    writeFileSync(bad64, JSON.stringify(r64));
    // A damaged result.json on the only ok attempt: the point fails, the file is reported.
    writeFileSync(join(dir, 'points', pid(32), 'attempt-1/result.json'), '{"schemaVersion": 1,');
    writeSyntheticRun(join(dir, 'points'), 'stray', []); // a folder the manifest does not plan

    const report = await ingestRunDir(store, dir);
    const outcome = (conc: number) => report.details.find((d) => d.conc === conc)!;
    expect(report).toMatchObject({ planned: 7, ingested: 3, failed: 2, missing: 2, ok: false });
    expect(outcome(1)).toMatchObject({ outcome: 'ingested', attempt: 1 });
    expect(outcome(2)).toMatchObject({
      outcome: 'failed',
      phase: 'benchmark',
      reason: 'attempt 1: the engine died',
    });
    expect(outcome(4)).toMatchObject({ outcome: 'missing', phase: null, reason: 'no attempt was run' });
    expect(outcome(8)).toMatchObject({
      outcome: 'missing',
      phase: 'warmup',
      reason: expect.stringMatching(/^attempt 2 was interrupted/),
    });
    expect(outcome(16)).toMatchObject({ outcome: 'ingested', attempt: 1 });
    expect(outcome(32)).toMatchObject({
      outcome: 'failed',
      phase: null,
      reason: expect.stringMatching(/^attempt 1: ok, but its result.json is unusable: not JSON: /),
    });
    expect(outcome(64)).toMatchObject({ outcome: 'ingested', attempt: 1 });
    expect(outcome(64).attempts.map((a) => [a.status, a.result])).toEqual([
      ['ok', true],
      ['ok', false],
    ]);

    const issues = report.issues.map((i) => [i.file.slice(dir.length + 1), i.jsonPath, i.problem]);
    expect(issues).toEqual(
      expect.arrayContaining([
        [
          `points/${pid(64)}/attempt-2/result.json`,
          'throughput.perGpu.total',
          expect.stringMatching(/^not a valid point result: throughput.perGpu.total: .*number/),
        ],
        [`points/${pid(32)}/attempt-1/result.json`, null, expect.stringMatching(/^not JSON: /)],
        [
          `points/${pid(16)}/attempt-2/status.json`,
          null,
          expect.stringMatching(/^no status.json: the attempt was stopped/),
        ],
        ['points/stray', null, 'a point folder that manifest.json does not plan; ignored'],
      ]),
    );
    expect(report.issues).toHaveLength(4);

    // Stored, not silently absent: every planned point, every attempt.
    const stored = await pointOutcomes(store, 'edge');
    expect(stored.map((p) => [p.conc, p.outcome, p.phase])).toEqual([
      [1, 'ingested', null],
      [2, 'failed', 'benchmark'],
      [4, 'missing', null],
      [8, 'missing', 'warmup'],
      [16, 'ingested', null],
      [32, 'failed', null],
      [64, 'ingested', null],
    ]);
    expect(await tableCounts(store)).toMatchObject({ points: 7, attempts: 9, results: 3 });
    const attempts = await store.db
      .selectFrom('attempts')
      .select(['attempt', 'status', 'reason'])
      .where('point_id', '=', pid(16))
      .orderBy('attempt')
      .execute();
    expect(attempts.map((a) => a.status)).toEqual(['ok', 'incomplete']);
    expect((await verifyRun(store, 'edge', dir)).differences).toEqual([]);
  });

  it('re-ingest after a resume adds the new points and leaves the rest unchanged', async () => {
    const store = await freshStore(backend);
    const out = tmpDir();
    const points = [point(1, ok), point(2, { kind: 'interrupted', phase: 'benchmark' }), point(4)];
    const dir = writeSyntheticRun(out, 'resumed', points);
    const first = await ingestRunDir(store, dir);
    expect(first).toMatchObject({ ingested: 1, missing: 2 });
    expect(await curvePoints(store, { official: true })).toHaveLength(1);

    // What `infx sweep --resume` leaves: the interrupted point's next attempt and the missing point's first.
    writeSyntheticRun(out, 'resumed', [
      point(1, ok),
      point(2, { kind: 'interrupted', phase: 'benchmark' }, ok),
      point(4, ok),
    ]);
    const second = await ingestRunDir(store, dir);
    expect(second).toMatchObject({ ingested: 3, missing: 0, ok: true });
    expect(second.points).toEqual({ new: 0, updated: 2, unchanged: 1 });
    expect(second.attempts).toEqual({ new: 2, updated: 0, unchanged: 2 });
    expect((await curvePoints(store, { runId: 'resumed' })).map((p) => [p.conc, p.attempt])).toEqual([
      [1, 1],
      [2, 2],
      [4, 1],
    ]);
    expect(await runs(store)).toMatchObject([{ runId: 'resumed', planned: 3, ingested: 3, missing: 0 }]);
    expect((await ingestRunDir(store, dir)).points).toEqual({ new: 0, updated: 0, unchanged: 3 });

    // A result.json damaged after ingest never erases the stored measurement; the report says so.
    writeFileSync(join(dir, 'points', pid(4), 'attempt-1/result.json'), '');
    const damaged = await ingestRunDir(store, dir);
    expect(damaged.issues.map((i) => i.problem)).toEqual(
      expect.arrayContaining([expect.stringContaining('the stored result of attempt 1 is kept')]),
    );
    expect(await curvePoints(store, { runId: 'resumed' })).toHaveLength(3);
    expect((await verifyRun(store, 'resumed', dir)).ok).toBe(false);
  });

  it('latest official result per (config, concurrency): the newest run wins; the chart query filters', async () => {
    const store = await freshStore(backend);
    const out = tmpDir();
    const h100 = syntheticRow({ runner: 'cluster:h100-dgxc-slurm_03', 'exp-name': 'dsr1_h100' });
    const other = syntheticRow({ isl: 8192, 'exp-name': 'dsr1_8k1k' });
    const old = writeSyntheticRun(
      out,
      'old',
      [
        point(1, { kind: 'ok', tput: 100 }),
        point(2, { kind: 'ok', tput: 90 }),
        { row: h100, conc: 1, attempts: [ok] },
      ],
      '2026-01-01T00:00:00.000Z',
    );
    const neu = writeSyntheticRun(
      out,
      'new',
      [point(1, { kind: 'ok', tput: 200 }), { row: other, conc: 1, attempts: [ok] }],
      '2026-02-01T00:00:00.000Z',
    );
    const pr = writeSyntheticRun(
      out,
      'pr',
      [point(2, { kind: 'ok', tput: 999 })],
      '2026-03-01T00:00:00.000Z',
    );
    // Ingest out of order: the newest run still wins.
    await ingestRunDir(store, neu);
    await ingestRunDir(store, old);
    await ingestRunDir(store, pr, { status: 'unofficial' });

    const latest = await curvePoints(store, { official: true });
    expect(
      latest.map((p) => [p.config.hardware, p.config.isl, p.conc, p.runId, p.metrics.tputPerGpu]),
    ).toEqual([
      ['h100', 1024, 1, 'old', expect.any(Number)],
      ['h200', 1024, 1, 'new', 200],
      ['h200', 1024, 2, 'old', 90],
      ['h200', 8192, 1, 'new', expect.any(Number)],
    ]);
    const chart = await chartPoints(store, { isl: 1024, osl: 1024, model: 'dsr1', hardware: ['h200'] });
    expect(chart.map((p) => [p.conc, p.runId])).toEqual([
      [1, 'new'],
      [2, 'old'],
    ]);
    const key = chart[0]!.configKey;
    expect(await chartPoints(store, { isl: 1024, osl: 1024, configKeys: [key] })).toHaveLength(2);
    expect(await chartPoints(store, { isl: 1024, osl: 1024, configKeys: [] })).toEqual([]);
    expect(await curvePoints(store, { official: true, configKeys: [key] })).toHaveLength(2);

    // The PR run is signed off: it becomes official and its point the latest.
    await ingestRunDir(store, pr, { status: 'official' });
    expect(
      (await chartPoints(store, { isl: 1024, osl: 1024, hardware: ['h200'] })).map((p) => [p.conc, p.runId]),
    ).toEqual([
      [1, 'new'],
      [2, 'pr'],
    ]);
    // And back: the older official point is the latest again.
    await ingestRunDir(store, pr, { status: 'staged' });
    expect(
      (await chartPoints(store, { isl: 1024, osl: 1024, hardware: ['h200'] })).map((p) => p.runId),
    ).toEqual(['new', 'old']);
    expect((await runs(store)).map((r) => [r.runId, r.status])).toEqual([
      ['pr', 'staged'],
      ['new', 'official'],
      ['old', 'official'],
    ]);
  });

  it('keeps every changelog entry of a run, keyed by its index', async () => {
    const store = await freshStore(backend);
    await ingestRunDir(store, writeSyntheticRun(tmpDir(), 'cl', [point(1, ok)]));
    const entry = (k: string, d: string) =>
      ChangelogEntrySchema.parse({
        'config-keys': [k],
        description: [d, 'PR: https://github.com/o/r/pull/7'],
        'pr-link': '',
      });
    const entries = [
      entry('dsr1-fp8-h200-sglang', 'bump sglang'),
      entry('dsr1-fp8-h200-sglang', 'bump sglang'),
      entry('gptoss-*', 'new flags'),
    ];
    const meta = { base_ref: 'b1', head_ref: 'h1', entries };
    expect(await ingestChangelog(store, 'cl', meta)).toMatchObject({
      entries: 3,
      change: 'new',
      replaced: null,
    });
    expect(await ingestChangelog(store, 'cl', meta)).toMatchObject({ change: 'unchanged', replaced: null });
    const rows = await store.db.selectFrom('changelog_entries').selectAll().orderBy('entry_index').execute();
    expect(rows.map((r) => [r.entry_index, JSON.parse(r.config_keys), r.pr_link, r.head_ref])).toEqual([
      [0, ['dsr1-fp8-h200-sglang'], 'https://github.com/o/r/pull/7', 'h1'],
      [1, ['dsr1-fp8-h200-sglang'], 'https://github.com/o/r/pull/7', 'h1'],
      [2, ['gptoss-*'], 'https://github.com/o/r/pull/7', 'h1'],
    ]);
    // A merge run's metadata replaces the pull request's: the third entry goes with it.
    const merge = { base_ref: 'main~1', head_ref: 'main', entries: entries.slice(0, 2) };
    expect(await ingestChangelog(store, 'cl', merge)).toMatchObject({
      entries: 2,
      change: 'updated',
      replaced: { baseRef: 'b1', headRef: 'h1' },
    });
    expect((await runChangelog(store, 'cl')).map((e) => [e.index, e.headRef])).toEqual([
      [0, 'main'],
      [1, 'main'],
    ]);
  });
});

describe('reading run directories', () => {
  it('a large run read by the reader thread gives exactly what one thread reads, issues included', async () => {
    const tpOf = (i: number) => [1, 2, 4, 8][i % 4]!;
    const points = Array.from(
      { length: 320 },
      (_, i): SyntheticPoint => ({
        row: syntheticRow({ tp: tpOf(i), 'exp-name': `big${Math.floor(i / 20)}` }),
        conc: 2 ** (i % 10),
        attempts:
          i % 50 === 7
            ? []
            : i % 50 === 9
              ? [{ kind: 'no-status' }]
              : [{ kind: 'failed', phase: 'setup', reason: 'x' }, ok],
      }),
    );
    const dir = writeSyntheticRun(tmpDir(), 'big', points);
    const some = join(
      dir,
      'points',
      syntheticSpec('big', 0, points[3]!.row, points[3]!.conc).pointId,
      'attempt-2/result.json',
    );
    writeFileSync(some, '{"kind": "point-result"}');
    const slow = readRunDir(dir);
    const fast = await readRunDirFast(dir);
    expect(slow.points).toHaveLength(320);
    const plain = (c: typeof slow) =>
      JSON.parse(
        JSON.stringify({
          ...c,
          points: c.points.map((p) =>
            p.attempts.map((a) => ({ ...a, result: a.result && { ...a.result, data: undefined } })),
          ),
        }),
      );
    expect(plain(fast)).toEqual(plain(slow));
    expect(fast.issues.map((i) => i.file)).toEqual(expect.arrayContaining([some]));
    expect(fast.issues.length).toBeGreaterThan(6);
  });

  it('an invalid manifest stops the read, naming the file and the JSON path', async () => {
    const store = await freshStore('sqlite');
    const dir = writeSyntheticRun(tmpDir(), 'm', [point(1, ok)]);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    manifest.points[0].conc = 0;
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    await expect(ingestRunDir(store, dir)).rejects.toThrow(RunDirReadError);
    await expect(ingestRunDir(store, dir)).rejects.toThrow(
      /manifest.json: not a valid run manifest: points\[0\]\.conc: /,
    );
    rmSync(join(dir, 'manifest.json'));
    await expect(ingestRunDir(store, dir)).rejects.toThrow(/is not a run directory: no manifest.json/);
  });
});
