/**
 * Speed of the dashboard (issue 7), each figure next to a baseline measured in the same run:
 *
 * (a) the inference view's data request, `GET /api/points` for a typical selection (one model, one
 *     workload, every hardware: 1,000 points) with 200,000 results stored (20 runs × 10,000 points, as
 *     bench/store.ts), p95 over 100 requests from a client on loopback (gzip, body read and parsed);
 *     baseline: the store query alone (chartPoints), in this process. Target: p95 < 100 ms.
 * (b) the first render of a chart with 5,000 points in Chromium, read from the browser's performance timeline
 *     (`infx:chart-render`: chart definition, SVG, DOM insertion and layout; `infx:chart-paint`: until the
 *     next frame); baseline: Chromium inserting and laying out the same SVG markup alone. Target: < 1 s.
 *
 *   npm run bench:web                 # builds first (the UI in dist/web), then runs this
 *   npm run bench:web -- --requests 100 --runs 20
 *
 * (b) needs Chromium at /usr/bin/chromium (or INFX_CHROMIUM); without it, it is skipped with a note.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SingleNodeFixedRow } from '../src/schema/matrix-row.ts';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { chartPoints } from '../src/store/queries.ts';
import { runRows } from '../src/store/rows.ts';
import { readRunDir } from '../src/store/run-dir-reader.ts';
import { writeRun } from '../src/store/write.ts';
import { startWebServer } from '../src/web/server.ts';
import { findUiDir } from '../src/web/static.ts';
import type { PageDocument } from '../test/page-dom.ts';
import { type SyntheticPoint, syntheticRow, writeSyntheticRun } from '../test/support/synthetic.ts';
import { asRun, benchPoints, MODELS, percentile, RUNNERS, WORKLOADS } from './store-data.ts';

// In page.evaluate callbacks only: they run in Chromium.
declare const document: PageDocument;

const API_P95_TARGET_MS = 100;
const RENDER_TARGET_MS = 1000;

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const REQUESTS = Number(flag('requests', '100'));
const RUNS = Number(flag('runs', '20'));
const CHROMIUM = process.env.INFX_CHROMIUM ?? '/usr/bin/chromium';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(1)} ms`;
const created = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** 500 configs (10 GPUs × 2 engines × 5 topologies × 5 precisions) × 10 concurrencies: one 5,000-point chart. */
function renderPoints(): SyntheticPoint[] {
  const out: SyntheticPoint[] = [];
  for (const runner of RUNNERS)
    for (const framework of ['sglang', 'vllm'])
      for (const [tp, ep] of [
        [1, 1],
        [2, 1],
        [4, 1],
        [8, 1],
        [8, 8],
      ] as const)
        for (const precision of ['fp4', 'fp8', 'bf16', 'int4', 'mxfp4']) {
          const row: SingleNodeFixedRow = syntheticRow({
            'model-prefix': 'bench5k',
            runner: `${runner}-nv_0`,
            framework,
            precision,
            tp,
            ep,
            'exp-name': 'bench5k_1k1k',
          });
          for (const conc of [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
            out.push({ row, conc, attempts: [{ kind: 'ok', tput: 300 + 900 / Math.sqrt(conc) + tp * 7 }] });
        }
  return out;
}

async function fill(tmp: string): Promise<{ db: string; stored: number }> {
  const t0 = performance.now();
  const runDir = writeSyntheticRun(tmp, 'bench-00', benchPoints(), created(0));
  const rows = runRows(readRunDir(runDir));
  const db = join(tmp, 'web.db');
  const store = await openStore(db);
  try {
    for (let i = 0; i < RUNS; i++) {
      const run = i === 0 ? rows : asRun(rows, `bench-${String(i).padStart(2, '0')}`, created(i));
      // As bench/store.ts fills its store: the store's own bulk write path, without files.
      await store.db.transaction().execute((trx) =>
        writeRun({ db: trx, backend: store.backend, sqlite: store.sqlite }, run, {
          now: created(i),
          actor: 'bench',
        }),
      );
    }
    const render = writeSyntheticRun(tmp, 'render-5k', renderPoints(), created(RUNS));
    await ingestRunDir(store, render);
    const n = await store.db
      .selectFrom('results')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    console.log(
      `web benchmark: ${fmt(Number(n.n))} results stored (${RUNS} runs × ${fmt(rows.results.length)} points, ` +
        `plus a 5,000-point run for the render) in ${((performance.now() - t0) / 1000).toFixed(1)} s; Node ${process.version}`,
    );
    return { db, stored: Number(n.n) };
  } finally {
    await store.close();
  }
}

async function apiBench(db: string, base: string): Promise<void> {
  const views = MODELS.flatMap((model) => WORKLOADS.map(([isl, osl]) => ({ model, isl, osl })));
  const store = await openStore(db);
  const api: number[] = [];
  const query: number[] = [];
  const filters: number[] = [];
  let points = 0;
  let bytes = 0;
  try {
    for (let i = -10; i < REQUESTS; i++) {
      const v = views[(i + 10) % views.length]!;
      const a = performance.now();
      const res = await fetch(`${base}/api/points?model=${v.model}&isl=${v.isl}&osl=${v.osl}`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      const body = (await res.json()) as unknown[];
      const b = performance.now();
      const rows = await chartPoints(store, v);
      const c = performance.now();
      await (await fetch(`${base}/api/filters?model=${v.model}&isl=${v.isl}&osl=${v.osl}`)).json();
      const d = performance.now();
      if (res.status !== 200 || body.length !== rows.length)
        throw new Error(`got ${body.length} points, the store ${rows.length}`);
      if (i < 0) continue;
      api.push(b - a);
      query.push(c - b);
      filters.push(d - c);
      points = body.length;
      bytes = Number(res.headers.get('content-length') ?? 0);
    }
  } finally {
    await store.close();
  }
  const [sa, sq, sf] = [sorted(api), sorted(query), sorted(filters)];
  const p95 = percentile(sa, 0.95);
  console.log(
    `(a) GET /api/points (${fmt(points)} points, ${fmt(bytes / 1024)} KiB gzip), ${REQUESTS} requests: p50 ${ms(percentile(sa, 0.5))}, ` +
      `p95 ${ms(p95)}; target p95 < ${API_P95_TARGET_MS} ms: ${p95 < API_P95_TARGET_MS ? 'met' : 'NOT met'}`,
  );
  console.log(
    `    baseline: the store query alone (chartPoints, same rows): p50 ${ms(percentile(sq, 0.5))}, p95 ${ms(percentile(sq, 0.95))}; ` +
      `ratio p95 ${(p95 / percentile(sq, 0.95)).toFixed(2)} (the rest: JSON, gzip, HTTP, parse)`,
  );
  console.log(
    `    GET /api/filters (availability cascade, cached rows): p50 ${ms(percentile(sf, 0.5))}, p95 ${ms(percentile(sf, 0.95))}`,
  );
}

async function renderBench(base: string): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`(b) skipped: no Chromium at ${CHROMIUM} (set INFX_CHROMIUM)`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const first: number[] = [];
    const paint: number[] = [];
    const floor: number[] = [];
    let drawn = 0;
    for (let i = 0; i < 5; i++) {
      await page.goto(`${base}/?model=bench5k`);
      await page.waitForFunction(() => performance.getEntriesByName('infx:chart-paint').length > 0, null, {
        timeout: 60_000,
      });
      const r = await page.evaluate(() => {
        const host = document.querySelector('[data-testid=chart]')!;
        const render = performance.getEntriesByName('infx:chart-render')[0]!.duration;
        const painted = performance.getEntriesByName('infx:chart-paint')[0]!.duration;
        // Baseline: the same markup inserted and laid out by Chromium, nothing computed.
        const markup = host.innerHTML;
        const div = document.createElement('div');
        div.style.width = `${host.clientWidth}px`;
        document.body.append(div);
        const t0 = performance.now();
        div.innerHTML = markup;
        div.getBoundingClientRect();
        const t1 = performance.now();
        div.remove();
        return { render, painted, floor: t1 - t0, points: host.querySelectorAll('circle.point').length };
      });
      first.push(r.render);
      paint.push(r.painted);
      floor.push(r.floor);
      drawn = r.points;
    }
    const med = (xs: number[]) => percentile(sorted(xs), 0.5);
    const worst = Math.max(...first);
    console.log(
      `(b) first render of a ${fmt(drawn)}-point chart in Chromium (5 page loads): median ${ms(med(first))}, worst ${ms(worst)} ` +
        `(to the painted frame: median ${ms(med(paint))}); target < ${RENDER_TARGET_MS} ms: ${worst < RENDER_TARGET_MS ? 'met' : 'NOT met'}`,
    );
    console.log(
      `    baseline: Chromium inserting and laying out the same SVG markup alone: median ${ms(med(floor))}; ` +
        `ratio ${(med(first) / med(floor)).toFixed(2)}`,
    );
  } finally {
    await browser.close();
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'infx-bench-web-'));
try {
  const { db } = await fill(tmp);
  const uiDir = findUiDir();
  if (uiDir === null) console.log('note: dist/web is not built (npm run build); (b) needs it');
  const server = await startWebServer({ db, port: 0, uiDir, runsDirs: [] });
  try {
    const base = server.url.replace(/\/$/, '');
    await apiBench(db, base);
    if (uiDir !== null) await renderBench(base);
  } finally {
    await server.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
