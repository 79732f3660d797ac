import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { tmpDir } from './helpers.ts';
import { FAST, infx, renameRun, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * A dashboard's worth of data from real sweeps: run `r1` (official) of two configs of Llama-3.1-8B on H100
 * — bf16 tp1 at concurrency 1, 2, 4 (4 never starts: a failed point) and fp8 tp2 at 1, 2, 4 — and `r2`
 * (unofficial), a copy of r1 made later with every throughput 20% higher and every point ok. Both ran on
 * the simulated engine: their results are labelled simulated, and r1 is official only because it is
 * stored with `--status official` (as a dashboard of simulated results would be).
 */

export const FAILED_POINT =
  'llama8b_256_64_bf16_vllm_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc4_h100';

// biome-ignore lint/suspicious/noExplicitAny: result.json edited in place, as the files are.
type Json = any;

export interface WebData {
  /** The folder holding the run directories (r1/, r2/). */
  runs: string;
  db: string;
}

/** A later copy of a run directory under another id: all points ok, throughputs × `factor`. */
export function copyRun(from: string, out: string, runId: string, createdAt: string, factor: number): string {
  const dir = join(out, runId);
  cpSync(from, dir, { recursive: true });
  renameRun(dir, runId, { createdAt });
  for (const point of readdirSync(join(dir, 'points'))) {
    const attempts = join(dir, 'points', point);
    for (const a of readdirSync(attempts).filter((n) => n.startsWith('attempt-'))) {
      const resultPath = join(attempts, a, 'result.json');
      const statusPath = join(attempts, a, 'status.json');
      let result: Json;
      try {
        result = JSON.parse(readFileSync(resultPath, 'utf8'));
      } catch {
        // The failed point: borrow the result of the same config at concurrency 2, as if it had run.
        const twin = join(dir, 'points', point.replace(/_conc\d+_/, '_conc2_'), a, 'result.json');
        result = JSON.parse(readFileSync(twin, 'utf8'));
        result.load.concurrency = 4;
        result.interactivity.median *= 0.8;
        const status = JSON.parse(readFileSync(statusPath, 'utf8'));
        Object.assign(status, {
          status: 'ok',
          phase: null,
          reason: null,
          valid: true,
          engineExit: null,
          logTail: [],
        });
        writeFileSync(statusPath, JSON.stringify(status));
      }
      const t = result.throughput;
      for (const k of ['total', 'output', 'input'] as const) t.perGpu[k] *= factor;
      result.valid = true;
      writeFileSync(resultPath, JSON.stringify(result));
    }
  }
  return dir;
}

/**
 * Marks every result of a run directory valid: on a loaded 2-core machine the client's health gate may
 * reject a point of a test sweep, and these suites test the dashboard, not the gate.
 */
function forceValid(runDir: string): void {
  for (const point of readdirSync(join(runDir, 'points')))
    for (const a of readdirSync(join(runDir, 'points', point)).filter((n) => n.startsWith('attempt-'))) {
      const path = join(runDir, 'points', point, a, 'result.json');
      let result: Json;
      try {
        result = JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        continue;
      }
      result.valid = true;
      writeFileSync(path, JSON.stringify(result));
    }
}

/** Sweeps r1, copies r2, ingests both into a fresh SQLite file. */
export async function webData(): Promise<WebData> {
  const out = tmpDir('infx-web-');
  const matrix = writeMatrix(out, [
    smallRow({ conc: [1, 2, 4] }),
    smallRow({ conc: [1, 2, 4], tp: 2, precision: 'fp8' }),
  ]);
  const runs = join(out, 'runs');
  const r = await infx([
    'sweep',
    '--matrix',
    matrix,
    '--out',
    runs,
    '--run-id',
    'r1',
    ...FAST,
    '--sim-fault',
    'tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc4=no-start',
  ]);
  if (r.code !== 1) throw new Error(`sweep r1 should fail one point (exit 1), got ${r.code}: ${r.stderr}`);
  forceValid(join(runs, 'r1'));
  const created = JSON.parse(readFileSync(join(runs, 'r1', 'manifest.json'), 'utf8')).createdAt as string;
  const later = new Date(Date.parse(created) + 3_600_000).toISOString();
  copyRun(join(runs, 'r1'), runs, 'r2', later, 1.2);
  const db = join(out, 'infx.db');
  const store = await openStore(db);
  try {
    await ingestRunDir(store, join(runs, 'r1'), { status: 'official' });
    await ingestRunDir(store, join(runs, 'r2'), { status: 'unofficial' });
  } finally {
    await store.close();
  }
  return { runs, db };
}

/** A fresh build of the UI (src/web/ui) in a temporary folder, so a test never sees a stale dist/web. */
export async function buildUi(): Promise<string> {
  const { build } = await import('vite');
  const { REPO_ROOT } = await import('./helpers.ts');
  const outDir = tmpDir('infx-web-ui-');
  await build({
    configFile: join(REPO_ROOT, 'vite.web.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  return outDir;
}

/** Where the dashboard's browser tests find Chromium, and whether CI requires it (INFX_REQUIRE_CHROMIUM=1). */
export const CHROMIUM_PATH = process.env.INFX_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_REQUIRED = process.env.INFX_REQUIRE_CHROMIUM === '1';

/**
 * A headless Chromium with one 1280×800 page, for a browser test of the dashboard: page errors and console
 * errors go to `errors`, so a test can assert the page raised none.
 */
export async function openPage(errors: string[]): Promise<{ browser: Browser; page: Page }> {
  const { chromium } = await import('playwright-core');
  const args = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args, headless: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return { browser, page };
}
