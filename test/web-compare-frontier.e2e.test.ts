import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrontierCompareReportSchema } from '../src/schema/frontier-compare.ts';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { startWebServer, type WebServer } from '../src/web/server.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import type { PageDocument } from './page-dom.ts';
import { L, prRun, publishedRun } from './support/frontier-fixture.ts';
import { buildUi, CHROMIUM_PATH, CHROMIUM_REQUIRED, openPage } from './web-helpers.ts';

// In page.evaluate callbacks only: they run in Chromium.
declare const document: PageDocument;

/**
 * The compare view against the baseline's frontier in a real Chromium, on the thread-000 fixture of
 * test/support/frontier-fixture.ts (its numbers worked by hand in test/compare-frontier.test.ts) stored in
 * SQLite: `published` official, `pr` unofficial. The control switches from the one-to-one comparison to
 * the frontier, the URL keeps it, and `GET /api/compare?against=frontier` answers the same report. Skips
 * where /usr/bin/chromium is missing, unless INFX_REQUIRE_CHROMIUM=1.
 */

const available = existsSync(CHROMIUM_PATH);

let server: WebServer;
let browser: Browser;
let page: Page;
let base = '';
const errors: string[] = [];

beforeAll(async () => {
  if (!available && !CHROMIUM_REQUIRED) return;
  const db = join(tmpDir('infx-web-frontier-'), 'infx.db');
  const store = await openStore(db);
  await ingestRunDir(store, publishedRun(), { status: 'official' });
  await ingestRunDir(store, prRun(), { status: 'unofficial' });
  await store.close();
  const ui = await buildUi();
  server = await startWebServer({ db, port: 0, runsDirs: [], uiDir: ui });
  base = server.url.replace(/\/$/, '');
  ({ browser, page } = await openPage(errors));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The rows of a config's table: conc, interactivity, run, frontier, vs frontier. */
const rowsOf = (p: Page, label: string) =>
  p.evaluate((l) => {
    const section = [...document.querySelectorAll('section.config')].find(
      (s) => s.querySelector('h2')?.textContent === l,
    );
    return [...(section?.querySelectorAll('table.frontier-points tbody tr') ?? [])].map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    );
  }, label);

describe.skipIf(!available && !CHROMIUM_REQUIRED)('the compare view against the frontier in Chromium', () => {
  it('the control switches to the frontier: +38% and +75%, outside the frontier, the maximum', async () => {
    await page.goto(`${base}/compare?run=pr&baseline=official`);
    // One to one first: the disaggregated config has no config of its own key in the baseline.
    await page.locator('.report .verdict').waitFor();
    expect(await page.locator('select[name=against]').inputValue()).toBe('config');
    expect(await page.locator('table.frontier-points').count()).toBe(0);

    await page.selectOption('select[name=against]', 'frontier');
    await page.locator('table.frontier-points').first().waitFor();
    expect(new URL(page.url()).searchParams.get('against')).toBe('frontier');
    expect(await page.locator('section.config h2').allTextContents()).toEqual([L.b200, L.tp8, L.disagg]);
    expect(await page.locator('.report .estimate').textContent()).toContain(
      'not measured matched-latency comparisons',
    );
    expect(await rowsOf(page, L.disagg)).toEqual([
      ['64', '50', '2,760', '2,000 *', '+38.0%'],
      ['32', '70', '2,242', '1,281 *', '+75.0%'],
      ['8', '100', '900', 'N/A', 'outside the frontier (above it)'],
    ]);
    expect(await rowsOf(page, L.tp8)).toEqual([
      ['128', '10', '2,895', 'N/A', 'outside the frontier (below it)'],
      ['64', '25', '2,800', '2,862 *', '−2.2%'],
      ['32', '40', '2,300', '2,400', '−4.2%'],
    ]);
    const tp8 = page.locator('section.config', { has: page.locator('h2', { hasText: L.tp8 }) }).first();
    expect(await tp8.locator('.headline').textContent()).toContain(
      "its maximum, 2,895 tok/s/GPU, is 3.5% below the frontier's maximum",
    );
    const b200 = page.locator('section.config').first();
    expect(await b200.locator('.notes').textContent()).toBe(
      'the baseline has no config of dsr1 1k/1k b200 fp8: no frontier to compare with',
    );
    // The chart draws the run's three configs and the baseline's two.
    expect(await page.locator('[data-testid=chart] g.series').count()).toBe(5);
    mkdirSync(join(REPO_ROOT, 'test-output'), { recursive: true });
    await page.screenshot({
      path: join(REPO_ROOT, 'test-output', 'compare-frontier-view.png'),
      fullPage: true,
    });

    // From the URL alone, the view comes back against the frontier.
    await page.goto(`${base}/compare?run=pr&baseline=official&against=frontier`);
    await page.locator('table.frontier-points').first().waitFor();
    expect(await page.locator('select[name=against]').inputValue()).toBe('frontier');
    expect(errors).toEqual([]);
  });

  it('GET /api/compare?against=frontier: the frontier-compare-report; flags of one to one refused', async () => {
    const res = await fetch(`${base}/api/compare?run=pr&against=frontier`);
    expect(res.status).toBe(200);
    const r = FrontierCompareReportSchema.parse(await res.json());
    const d = r.configs.find((c) => c.label === L.disagg)!;
    expect(d.points.map((p) => p.gainPct)).toEqual([expect.closeTo(38, 9), expect.closeTo(75, 9), null]);
    expect(d.maxTputChangePct).toBeCloseTo(-8, 9);
    const bad = await fetch(`${base}/api/compare?run=pr&against=frontier&at=50`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: {
        code: 'bad-request',
        message: "against=frontier compares each of the run's measured points and takes no 'at'",
        param: 'at',
      },
    });
    expect((await fetch(`${base}/api/compare?run=pr&against=curve`)).status).toBe(400);
  });
});
