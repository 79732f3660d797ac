import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PointResult } from '../src/schema/point-result.ts';
import { IngestReportSchema } from '../src/schema/store.ts';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { chartPoints, configResults, curvePoints, pointOutcomes, runs } from '../src/store/queries.ts';
import { runRows } from '../src/store/rows.ts';
import { readRunDir } from '../src/store/run-dir-reader.ts';
import { AGENTIC_COLUMNS } from '../src/store/tables.ts';
import { verifyRun } from '../src/store/verify.ts';
import { runCli, tmpDir } from './helpers.ts';
import { BACKENDS, freshStore, requirePostgres, tableCounts } from './store-helpers.ts';
import { type SyntheticPoint, syntheticRow, syntheticSpec, writeSyntheticRun } from './support/synthetic.ts';

/**
 * What served a result, in the store: simulated and real results of one deployment are two curves (the
 * simulated key ends in `|sim`), a simulated run is unofficial unless asked, the engine columns are stored,
 * queried and verified; result.json of schema 1 in a run directory is refused naming the file, and schema-1
 * results already stored are labelled by migration 0002. SQLite and PostgreSQL alike.
 */

const row = syntheticRow();
const points = (...concs: [number, number][]): SyntheticPoint[] =>
  concs.map(([conc, tput]) => ({ row, conc, attempts: [{ kind: 'ok', tput }] }));
const pid = (conc: number) => syntheticSpec('x', 0, row, conc).pointId;

const resultPath = (dir: string, conc: number) => join(dir, 'points', pid(conc), 'attempt-1/result.json');
const edit = (path: string, f: (r: PointResult) => unknown) =>
  writeFileSync(path, JSON.stringify(f(JSON.parse(readFileSync(path, 'utf8')) as PointResult)));

/** A result.json as infx wrote it at point-result schema 1: the time scale on the target, no engine. */
function schema1(r: PointResult): unknown {
  const { engine, wallClock: _, ...rest } = r;
  const { wallStartMs: _s, wallEndMs: _e, wallDurationS: _d, ...timing } = r.timing;
  return {
    ...rest,
    schemaVersion: 1,
    target: { ...r.target, timeScale: engine.kind === 'simulated' ? engine.timeScale : null },
    timing,
  };
}

requirePostgres();

describe.each(BACKENDS)('engine kinds in the store (%s)', (backend) => {
  it('a simulated and a real curve of one deployment never merge; simulated runs are unofficial by default', async () => {
    const store = await freshStore(backend);
    const out = tmpDir();
    const real = writeSyntheticRun(out, 'real', points([1, 500], [2, 450]), '2026-01-01T00:00:00.000Z');
    const sim = writeSyntheticRun(out, 'sim', points([1, 900], [2, 800]), '2026-02-01T00:00:00.000Z', {
      engine: 'simulated',
    });

    const r = await ingestRunDir(store, real);
    expect(r).toMatchObject({ status: 'official', engine: { kind: 'real', simulated: 0, real: 2 } });
    expect(r.warnings).toEqual([]);
    const s = await ingestRunDir(store, sim);
    expect(IngestReportSchema.parse(s)).toEqual(s);
    // No --status: simulated results are not official.
    expect(s).toMatchObject({ status: 'unofficial', engine: { kind: 'simulated', simulated: 2, real: 0 } });
    expect(s.warnings).toEqual([]);
    expect(s.details.map((d) => d.configKey.endsWith('|sim'))).toEqual([true, true]);

    const simPoints = await curvePoints(store, { runId: 'sim' });
    expect(simPoints.map((p) => p.engine)).toEqual([
      { kind: 'simulated', simulator: 'infx-sim/synthetic' },
      { kind: 'simulated', simulator: 'infx-sim/synthetic' },
    ]);
    const realPoints = await curvePoints(store, { runId: 'real' });
    expect(realPoints.map((p) => p.engine)).toEqual([
      { kind: 'real', simulator: null },
      { kind: 'real', simulator: null },
    ]);
    const realKey = realPoints[0]!.configKey;
    const simKey = simPoints[0]!.configKey;
    expect(simKey).toBe(`${realKey}|sim`);
    expect((await curvePoints(store, { official: true })).map((p) => p.runId)).toEqual(['real', 'real']);

    // Stored as official on purpose: warned about, and still its own curve beside the real one.
    const forced = await ingestRunDir(store, sim, { status: 'official' });
    expect(forced.status).toBe('official');
    expect(forced.warnings).toEqual([expect.stringContaining("2 of the run's 2 results are simulated")]);
    const latest = await chartPoints(store, { isl: 1024, osl: 1024 });
    expect(latest.map((p) => [p.configKey === simKey, p.conc, p.runId, p.metrics.tputPerGpu])).toEqual([
      [false, 1, 'real', 500],
      [false, 2, 'real', 450],
      [true, 1, 'sim', 900],
      [true, 2, 'sim', 800],
    ]);
    expect(await tableCounts(store)).toMatchObject({ configs: 2, results: 4, latest_results: 4 });

    // Runs say what served them; a run with both is mixed (and unofficial by default).
    const mixed = writeSyntheticRun(out, 'mixed', points([1, 510], [4, 300]), '2026-03-01T00:00:00.000Z');
    edit(resultPath(mixed, 4), (x) => ({
      ...x,
      engine: { ...x.engine, kind: 'simulated', simulator: 'infx-sim/0.1.0+m2', clock: 'engine' },
    }));
    const m = await ingestRunDir(store, mixed);
    expect(m).toMatchObject({ status: 'unofficial', engine: { kind: 'mixed', simulated: 1, real: 1 } });
    expect((await runs(store)).map((x) => [x.runId, x.engine])).toEqual([
      ['mixed', { kind: 'mixed', simulated: 1, real: 1 }],
      ['sim', { kind: 'simulated', simulated: 2, real: 0 }],
      ['real', { kind: 'real', simulated: 0, real: 2 }],
    ]);
    expect((await pointOutcomes(store, 'mixed')).map((p) => p.configKey)).toEqual([realKey, simKey]);

    // Every result of some configs across runs, any status, a run left out: one query, in order.
    const all = await configResults(store, { configKeys: [simKey, realKey] });
    expect(all.map((p) => [p.configKey === simKey, p.conc, p.runId])).toEqual([
      [false, 1, 'real'],
      [false, 1, 'mixed'],
      [false, 2, 'real'],
      [true, 1, 'sim'],
      [true, 2, 'sim'],
      [true, 4, 'mixed'],
    ]);
    const others = await configResults(store, { configKeys: [realKey], excludeRunIds: ['real'] });
    expect(others.map((p) => [p.runId, p.conc])).toEqual([['mixed', 1]]);
    expect(await configResults(store, { configKeys: [] })).toEqual([]);

    // Verify compares the engine columns too.
    expect((await verifyRun(store, 'mixed', mixed)).differences).toEqual([]);
    await store.db.updateTable('results').set({ simulator: 'edited' }).where('run_id', '=', 'sim').execute();
    const bad = await verifyRun(store, 'sim', sim);
    expect(bad.differences.map((d) => [d.table, d.column, d.db])).toEqual([
      ['results', 'simulator', '"edited"'],
      ['results', 'simulator', '"edited"'],
    ]);
  });

  it('a failed point of a simulated run is on the simulated curve; the CLI warns about --status official', async () => {
    const store = await freshStore(backend);
    const dir = writeSyntheticRun(
      tmpDir(),
      'simfail',
      [...points([1, 900]), { row, conc: 2, attempts: [{ kind: 'failed', phase: 'setup', reason: 'x' }] }],
      undefined,
      { engine: 'simulated' },
    );
    const text = await runCli(['ingest', dir, '--db', store.rawUrl]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('run simfail (unofficial) → ');
    expect(text.stdout).toContain(
      "  simulated: every result from infx's simulated engine, labelled simulated (stored as unofficial)",
    );
    expect((await pointOutcomes(store, 'simfail')).every((p) => p.configKey.endsWith('|sim'))).toBe(true);
    const official = await runCli(['ingest', dir, '--db', store.rawUrl, '--status', 'official']);
    expect(official.stdout).toContain("warning: 1 of the run's 1 results is simulated");
    const json = await runCli([
      'ingest',
      dir,
      '--db',
      store.rawUrl,
      '--status',
      'official',
      '--format',
      'json',
    ]);
    expect(JSON.parse(json.stdout).warnings).toHaveLength(1);
    expect(json.stderr).toContain("warning: 1 of the run's 1 results is simulated");
  });

  it('a result.json of schema 1 in a run directory: refused, naming the file and what to do', async () => {
    const store = await freshStore(backend);
    const dir = writeSyntheticRun(tmpDir(), 'old', points([1, 500], [2, 450]), undefined, {
      engine: 'simulated',
    });
    edit(resultPath(dir, 2), schema1);
    const report = await ingestRunDir(store, dir);
    expect(report).toMatchObject({ ingested: 1, failed: 1 });
    expect(report.issues).toEqual([
      expect.objectContaining({
        file: resultPath(dir, 2),
        jsonPath: 'schemaVersion',
        problem:
          'written by infx 0.1.0 (point-result schema version 1; this infx reads version 2, which records ' +
          'whether a simulated or a real engine served the point): it cannot be labelled honestly, so run the ' +
          'point again with this infx (a new infx sweep)',
      }),
    ]);
    expect(report.details.find((d) => d.conc === 2)?.reason).toMatch(
      /^attempt 1: ok, but its result.json is unusable: written by infx 0.1.0 \(point-result schema version 1/,
    );
  });

  it('migration 0002: results stored from schema 1 are labelled and split; the latest view is rebuilt', async () => {
    // A store at schema 0001 holding what an older infx ingested: a real run, then a newer simulated run
    // of the same config that (official, as the demo used to store it) replaced it in latest_results.
    const old = await freshStore(backend, { upTo: '0001_initial' });
    const out = tmpDir();
    const realDir = writeSyntheticRun(out, 'was-real', points([1, 500]), '2026-01-01T00:00:00.000Z');
    const simDir = writeSyntheticRun(
      out,
      'was-sim',
      [...points([1, 900]), { row, conc: 2, attempts: [{ kind: 'failed', phase: 'setup', reason: 'x' }] }],
      '2026-02-01T00:00:00.000Z',
      { engine: 'simulated' },
    );
    const strip = <T extends object>(r: T, cols: readonly string[]) =>
      Object.fromEntries(Object.entries(r).filter(([k]) => !cols.includes(k)));
    const db = old.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    for (const dir of [realDir, simDir]) {
      const rows = runRows(readRunDir(dir));
      await db
        .insertInto('runs')
        .values({
          ...strip(rows.run, [
            'simulated_results',
            'real_results',
            'provenance_json',
            'pr_number',
            'sweep_active',
          ]),
          status: 'official',
          ingested_at: '2026-03-01T00:00:00.000Z',
        })
        .execute();
      // 0001's keys had no engine: the plain key for every point.
      const plain = (k: string) => k.replace(/\|sim$/, '');
      await db
        .insertInto('configs')
        .values(
          rows.configs.map((c) => ({
            ...strip(c, ['engine_kind', 'benchmark_type', 'kv_offload']),
            config_key: plain(c.config_key),
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
      await db
        .insertInto('points')
        .values(rows.points.map((p) => ({ ...p, config_key: plain(p.config_key) })))
        .execute();
      await db
        .insertInto('attempts')
        .values(rows.attempts.map((a) => ({ ...a })) as Record<string, unknown>[])
        .execute();
      const results = rows.results.map((r) => ({
        ...strip(r, ['engine_kind', 'simulator', ...AGENTIC_COLUMNS]),
        config_key: plain(r.config_key),
      }));
      await db.insertInto('results').values(results).execute();
      await db
        .insertInto('result_documents')
        .values(
          rows.documents.map((d) => ({
            ...d,
            result_json: JSON.stringify(schema1(JSON.parse(d.result_json) as PointResult)),
          })),
        )
        .execute();
      await db.deleteFrom('latest_results').execute();
      await db.insertInto('latest_results').values(results).execute();
    }
    expect(await tableCounts(old)).toMatchObject({ configs: 1, results: 2, latest_results: 1 });

    const store = await openStore(old.rawUrl);
    try {
      const real = await curvePoints(store, { runId: 'was-real' });
      const sim = await curvePoints(store, { runId: 'was-sim' });
      expect(real.map((p) => p.engine)).toEqual([{ kind: 'real', simulator: null }]);
      // Schema 1 recorded no simulator version.
      expect(sim.map((p) => p.engine)).toEqual([{ kind: 'simulated', simulator: null }]);
      expect(sim[0]!.configKey).toBe(`${real[0]!.configKey}|sim`);
      // The failed point of the all-simulated run moved with it; the real key keeps its config row.
      expect((await pointOutcomes(store, 'was-sim')).map((p) => p.configKey)).toEqual([
        sim[0]!.configKey,
        sim[0]!.configKey,
      ]);
      expect(await tableCounts(store)).toMatchObject({ configs: 2, results: 2, latest_results: 2 });
      expect((await curvePoints(store, { official: true })).map((p) => [p.runId, p.engine.kind])).toEqual([
        ['was-real', 'real'],
        ['was-sim', 'simulated'],
      ]);
      expect((await runs(store)).map((r) => [r.runId, r.engine.kind])).toEqual([
        ['was-sim', 'simulated'],
        ['was-real', 'real'],
      ]);
      const configs = await store.db.selectFrom('configs').select(['config_key', 'engine_kind']).execute();
      expect(configs.map((c) => c.engine_kind).sort()).toEqual(['real', 'simulated']);
    } finally {
      await store.close();
    }
  });
});
