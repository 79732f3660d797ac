import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { startWebServer, type WebServer } from '../src/web/server.ts';
import { tmpDir } from './helpers.ts';
import type { PageDocument } from './page-dom.ts';
import { agenticFigures, writeAgenticRun } from './support/agentic-run.ts';
import { buildUi } from './web-helpers.ts';

// In page.evaluate callbacks only: they run in Chromium.
declare const document: PageDocument;

/**
 * The agentic view and the run page's session timeline in Chromium, on a hand-built agentic run stored in
 * SQLite. Skips where /usr/bin/chromium is missing, unless INFX_REQUIRE_CHROMIUM=1.
 */

const CHROMIUM = process.env.INFX_CHROMIUM ?? '/usr/bin/chromium';
const REQUIRED = process.env.INFX_REQUIRE_CHROMIUM === '1';
const available = existsSync(CHROMIUM);
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];

let server: WebServer;
let browser: Browser;
let page: Page;
let base = '';
const errors: string[] = [];

beforeAll(async () => {
  if (!available && !REQUIRED) return;
  const out = tmpDir('infx-web-agentic-e2e-');
  const dir = writeAgenticRun(out, 'ag1', [4, 8, 16]);
  const db = join(out, 'infx.db');
  const store = await openStore(db);
  await ingestRunDir(store, dir, { status: 'official' });
  await store.close();
  const ui = await buildUi();
  server = await startWebServer({ db, port: 0, runsDirs: [out], uiDir: ui });
  base = server.url.replace(/\/$/, '');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(e.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!available && !REQUIRED)('the agentic dashboard in Chromium', () => {
  it('draws the agentic curve on E2E-normalized interactivity P90, labelled simulated, and switches axis', async () => {
    await page.goto(`${base}/agentic`);
    await page.waitForSelector('[data-testid=agentic-chart] circle.point');
    const drawn = await page.evaluate(() => ({
      points: document.querySelectorAll('[data-testid=agentic-chart] circle.point').length,
      series: document.querySelectorAll('[data-testid=agentic-chart] g.series').length,
      xTitle: document.querySelectorAll('[data-testid=agentic-chart] text.axis-title')[0]?.textContent,
      legend: document.querySelector('.agentic-legend .legend-label')?.textContent,
      tooltip: document.querySelector('[data-testid=agentic-chart] circle.point title')?.textContent,
      badges: document.querySelectorAll('table.agentic-points .badge.simulated').length,
      hit: document.querySelector('table.agentic-points td[data-col=theoretical-hit]')?.textContent,
    }));
    expect(drawn).toMatchObject({ points: 3, series: 1, badges: 3, hit: '90.0%' });
    expect(drawn.xTitle).toBe('E2E-normalized interactivity P90 (tok/s/user)');
    expect(drawn.legend).toContain('(simulated)');
    expect(drawn.tooltip).toContain(`E2E-norm. interactivity P50 ${agenticFigures(4).e2eP50.toFixed(1)}`);
    expect(drawn.tooltip).toContain('theoretical cache hit 90.0% · server cache hit —');

    await page.selectOption('[data-testid=agentic-x]', 'ttft');
    const ttft = await page.evaluate(
      () => document.querySelectorAll('[data-testid=agentic-chart] text.axis-title')[0]?.textContent,
    );
    expect(ttft).toBe('TTFT P90 (ms)');
    expect(page.url()).toContain('x=ttft');
  });

  it('the run page draws a lane: the root row first, then the subagent, a bar per request; another lane', async () => {
    await page.goto(`${base}/runs/ag1`);
    await page.waitForSelector('[data-testid=timeline-link]');
    const runPage = await page.evaluate(() => ({
      links: document.querySelectorAll('[data-testid=timeline-link]').length,
      text: document.body.textContent ?? '',
    }));
    expect(runPage.links).toBe(3);
    expect(runPage.text).toContain('x agentic b300 sglang fp8');
    expect(runPage.text).not.toContain('0/0');
    await page.click('[data-testid=timeline-link]');
    await page.waitForSelector('[data-testid=timeline] rect.request');
    expect(page.url()).toContain('timeline=x_agentic_tp8_users4');
    const rows = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('[data-testid=timeline] g.conversation')].map((g) => ({
          kind: g.getAttribute('data-kind'),
          bars: g.querySelectorAll('rect.request').length,
        })),
      );
    expect(await rows()).toEqual([
      { kind: 'root', bars: 3 },
      { kind: 'subagent', bars: 2 },
    ]);
    await page.selectOption('[data-testid=timeline] select', '1');
    await page.waitForSelector('[data-testid=timeline][data-lane="1"]');
    expect(await rows()).toEqual([{ kind: 'root', bars: 1 }]);
    expect(errors).toEqual([]);
  });
});
