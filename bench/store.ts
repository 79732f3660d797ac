/**
 * Speed of the results store (issue 6): ingest of a 10,000-point run directory (files read and validated,
 * rows written in one transaction) and the dashboard's main chart query over 200,000 stored results, each
 * next to a baseline measured in the same run (see bench/store-baselines.ts).
 *
 *   npm run bench:store                                    # SQLite (a temporary file)
 *   npm run bench:store -- --postgres postgres://infx:infx@127.0.0.1:5432/postgres   # and PostgreSQL
 *
 * Options: --points N (per run, a multiple of 1,000 is not needed; default 10000), --runs N (runs stored
 * for the query, default 20), --queries N (default 200), --repeat N (ingests timed, default 3).
 * With --postgres, a throwaway database is created through that URL and dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { chartPoints } from '../src/store/queries.ts';
import { runRows } from '../src/store/rows.ts';
import { readRunDirFast } from '../src/store/run-dir-reader.ts';
import { writeRun } from '../src/store/write.ts';
import { writeSyntheticRun } from '../test/support/synthetic.ts';
import { closeRaw, rawChart, rawHandle, rawInsert } from './store-baselines.ts';
import { asRun, benchPoints, MODELS, percentile, WORKLOADS } from './store-data.ts';

const INGEST_TARGET = 5000;
const CHART_P95_TARGET_MS = 50;

function flag(name: string, fallback: string | undefined): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const POINTS = Number(flag('points', '10000'));
const RUNS = Number(flag('runs', '20'));
const QUERIES = Number(flag('queries', '200'));
const REPEAT = Number(flag('repeat', '3'));
const PG = flag('postgres', undefined);

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const created = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString();

/** Fresh stores: SQLite files in a temporary folder, or PostgreSQL databases created through --postgres. */
async function makeBackend(kind: 'sqlite' | 'postgres', tmp: string) {
  const dbs: string[] = [];
  const { default: pg } = await import('pg');
  return {
    kind,
    async fresh(): Promise<{ store: Store; url: string }> {
      let url = join(tmp, `store-${dbs.length}.db`);
      if (kind === 'postgres') {
        const name = `infx_bench_${randomBytes(5).toString('hex')}`;
        const admin = new pg.Client({ connectionString: PG });
        await admin.connect();
        await admin.query(`create database ${name}`);
        await admin.end();
        const u = new URL(PG!);
        u.pathname = `/${name}`;
        url = u.toString();
        dbs.push(name);
      } else dbs.push(url);
      return { store: await openStore(url), url };
    },
    async cleanup() {
      if (kind !== 'postgres') return;
      const admin = new pg.Client({ connectionString: PG });
      await admin.connect();
      for (const name of dbs) await admin.query(`drop database if exists ${name}`);
      await admin.end();
    },
  };
}

async function benchBackend(kind: 'sqlite' | 'postgres', runDir: string, tmp: string): Promise<void> {
  const backend = await makeBackend(kind, tmp);
  console.log(`\n== ${kind} ==`);
  try {
    // Ingest: the real path (read + validate every file, one transaction), each into an empty store.
    const rates: number[] = [];
    let last: { store: Store; url: string } | undefined;
    for (let i = 0; i < REPEAT; i++) {
      await last?.store.close();
      last = await backend.fresh();
      const t0 = performance.now();
      const report = await ingestRunDir(last.store, runDir);
      const s = (performance.now() - t0) / 1000;
      if (report.ingested !== POINTS) throw new Error(`ingested ${report.ingested} of ${POINTS}`);
      rates.push(POINTS / s);
    }
    const t0 = performance.now();
    const rows = runRows(await readRunDirFast(runDir));
    const readS = (performance.now() - t0) / 1000;
    const baseStore = await backend.fresh();
    const raw = await rawHandle(baseStore.url);
    const rawS = await rawInsert(rows, raw);
    await closeRaw(raw);
    await baseStore.store.close();
    const rate = median(rates);
    const rawRate = POINTS / rawS;
    console.log(
      `ingest ${fmt(POINTS)} points: ${fmt(rate)} points/s (median of ${REPEAT}; ${rates.map(fmt).join(', ')}); ` +
        `target >= ${fmt(INGEST_TARGET)}: ${rate >= INGEST_TARGET ? 'met' : 'NOT met'}`,
    );
    console.log(
      `  of which reading and validating ${fmt(POINTS * 4 + 1)} files (and building rows): ${(readS * 1000).toFixed(0)} ms`,
    );
    console.log(
      `  baseline: raw driver insert loop of the same rows (no files, no validation): ${fmt(rawRate)} points/s; ` +
        `ratio ingest/baseline ${(rate / rawRate).toFixed(2)}`,
    );

    // Fill: more runs of the same configs, newer each, through the store's own bulk write path.
    const store = last!.store;
    const f0 = performance.now();
    for (let i = 1; i < RUNS; i++) {
      const run = asRun(rows, `bench-${String(i).padStart(2, '0')}`, created(i));
      await store.db.transaction().execute((trx) =>
        writeRun({ db: trx, backend: store.backend, sqlite: store.sqlite }, run, {
          now: created(i),
          actor: 'bench',
        }),
      );
    }
    const fillS = (performance.now() - f0) / 1000;
    console.log(
      `fill: ${RUNS} runs, ${fmt(RUNS * POINTS)} results stored (${fmt(((RUNS - 1) * POINTS) / fillS)} points/s without files)`,
    );

    // The main chart query: latest official results of one model on one workload, every hardware.
    const views = MODELS.flatMap((model) => WORKLOADS.map(([isl, osl]) => ({ model, isl, osl })));
    const newest = `bench-${String(RUNS - 1).padStart(2, '0')}`;
    const chartRaw = await rawHandle(last!.url);
    const times: number[] = [];
    const rawTimes: number[] = [];
    let points = 0;
    let rawPoints = 0;
    for (let i = -10; i < QUERIES; i++) {
      const v = views[(i + 10) % views.length]!;
      const a = performance.now();
      const got = await chartPoints(store, v);
      const b = performance.now();
      const n = await rawChart(chartRaw, newest, v.isl, v.osl, v.model);
      const c = performance.now();
      if (i < 0) continue;
      times.push(b - a);
      rawTimes.push(c - b);
      points = got.length;
      rawPoints = n;
    }
    await closeRaw(chartRaw);
    await store.close();
    times.sort((x, y) => x - y);
    rawTimes.sort((x, y) => x - y);
    const p95 = percentile(times, 0.95);
    console.log(
      `chart query (${fmt(points)} points of ${fmt(RUNS * POINTS)}), ${QUERIES} runs: p50 ${percentile(times, 0.5).toFixed(2)} ms, ` +
        `p95 ${p95.toFixed(2)} ms; target p95 < ${CHART_P95_TARGET_MS} ms: ${p95 < CHART_P95_TARGET_MS ? 'met' : 'NOT met'}`,
    );
    console.log(
      `  baseline: plain indexed SELECT of the same ${fmt(rawPoints)} rows, raw driver: p50 ${percentile(rawTimes, 0.5).toFixed(2)} ms, ` +
        `p95 ${percentile(rawTimes, 0.95).toFixed(2)} ms; ratio p95 ${(p95 / percentile(rawTimes, 0.95)).toFixed(2)}`,
    );
  } finally {
    await backend.cleanup();
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'infx-bench-store-'));
try {
  const t0 = performance.now();
  const all = benchPoints();
  const points = Array.from({ length: POINTS }, (_, i) => all[i % all.length]!);
  if (POINTS > all.length) throw new Error(`--points at most ${all.length}`);
  const runDir = writeSyntheticRun(tmp, 'bench-00', points, created(0));
  console.log(
    `store benchmark: a synthetic run of ${fmt(POINTS)} points (${fmt(POINTS / 10)} configs × 10 concurrencies) ` +
      `written in ${((performance.now() - t0) / 1000).toFixed(1)} s; Node ${process.version}`,
  );
  await benchBackend('sqlite', runDir, tmp);
  if (PG) await benchBackend('postgres', runDir, tmp);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
