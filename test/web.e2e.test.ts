import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangelogEntrySchema } from '../src/schema/changelog-entry.ts';
import type { CurvePoint } from '../src/schema/curve.ts';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { startWebServer, type WebServer } from '../src/web/server.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import type { PageDocument } from './page-dom.ts';
import { syntheticRow, writeSyntheticRun } from './support/synthetic.ts';
import { buildUi, FAILED_POINT, webData } from './web-helpers.ts';

// In page.evaluate callbacks only: they run in Chromium.
declare const document: PageDocument;
declare const window: Record<string, unknown>;

/**
 * The dashboard in a real Chromium (playwright-core, headless), against real sweeps stored in SQLite: the
 * inference view's series and points, a filter and the x axis changed and the view reproduced from its URL,
 * tooltips, legend toggles, the CSV and PNG exports, the run view's failed point, the compare view. Skips,
 * saying so, where /usr/bin/chromium is missing, unless INFX_REQUIRE_CHROMIUM=1 (CI).
 */

export const CHROMIUM = process.env.INFX_CHROMIUM ?? '/usr/bin/chromium';
const REQUIRED = process.env.INFX_REQUIRE_CHROMIUM === '1';
const available = existsSync(CHROMIUM);
if (!available && !REQUIRED)
  console.warn(
    `skipping the dashboard browser tests: no Chromium at ${CHROMIUM} (set INFX_CHROMIUM to its path)`,
  );

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const OUTPUT = join(REPO_ROOT, 'test-output');

let server: WebServer;
/** A store holding unofficial results only (what the demo leaves): the default view falls back. */
let unofficialOnly: WebServer;
let browser: Browser;
let page: Page;
let base = '';
const errors: string[] = [];

beforeAll(async () => {
  if (!available && !REQUIRED) return;
  const [data, ui] = await Promise.all([webData(), buildUi()]);
  // A model whose image would run script if it were ever parsed as HTML (pitfall 20).
  const evil = writeSyntheticRun(tmpDir('infx-web-evil-'), 'evil', [
    {
      row: syntheticRow({
        'model-prefix': 'evil',
        image: '<img src=x onerror="window.__xss=1">',
        runner: 'h200',
      }),
      conc: 1,
      attempts: [{ kind: 'ok' }],
    },
  ]);
  const store = await openStore(data.db);
  await ingestRunDir(store, evil, {
    status: 'staged',
    actor: 'mallory',
    changelog: {
      base_ref: 'origin/main',
      head_ref: 'pr-7',
      entries: [
        ChangelogEntrySchema.parse({
          'config-keys': ['evil-*'],
          description: ['<b>bold</b> claims'],
          'pr-link': 'javascript:alert(1)',
        }),
        ChangelogEntrySchema.parse({
          'config-keys': ['evil-fp8-h200-vllm'],
          description: ['retune'],
          'pr-link': 'https://github.com/o/r/pull/7',
        }),
      ],
    },
  });
  await store.close();
  server = await startWebServer({ db: data.db, port: 0, runsDirs: [data.runs], uiDir: ui });
  const onlyDb = join(tmpDir('infx-web-unofficial-'), 'infx.db');
  const only = await openStore(onlyDb);
  await ingestRunDir(only, join(data.runs, 'r2'));
  await only.close();
  unofficialOnly = await startWebServer({ db: onlyDb, port: 0, runsDirs: [], uiDir: ui });
  base = server.url.replace(/\/$/, '');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  mkdirSync(OUTPUT, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await unofficialOnly?.close();
});

/** Series and points the chart draws (the panel's own counts and the SVG's groups and circles). */
async function drawn(p: Page) {
  await p.waitForSelector('[data-testid=chart] svg');
  return p.evaluate(() => {
    const host = document.querySelector('[data-testid=chart]')!;
    return {
      series: host.querySelectorAll('g.series').length,
      points: host.querySelectorAll('circle.point').length,
      counted: Number(host.dataset.points),
      legend: [...document.querySelectorAll('.legend-item')].map((e) => ({
        label: e.querySelector('.legend-label')?.textContent,
        engine: e.getAttribute('data-engine'),
        pressed: e.getAttribute('aria-pressed'),
        count: Number(e.querySelector('.legend-count')?.textContent),
      })),
      xTitle: host.querySelectorAll('text.axis-title')[0]?.textContent,
      yTitle: host.querySelectorAll('text.axis-title')[1]?.textContent,
    };
  });
}

const settle = (p: Page) => p.waitForFunction(() => !document.querySelector('.status')?.textContent);

describe.skipIf(!available && !REQUIRED)('the dashboard in Chromium', () => {
  it('the inference view: both configs with their points, labelled simulated; the screenshot', async () => {
    await page.goto(`${base}/`);
    await settle(page);
    const d = await drawn(page);
    // The sweeps ran on the simulated engine: the legend says so.
    expect(d.legend).toEqual([
      { label: 'h100 vllm bf16 tp1 (simulated)', engine: 'simulated', pressed: 'true', count: 2 },
      { label: 'h100 vllm fp8 tp2 (simulated)', engine: 'simulated', pressed: 'true', count: 3 },
    ]);
    expect(await page.locator('.chart-notes').textContent()).toContain(
      "every series simulated (infx's simulated engine infx-sim/",
    );
    expect(await page.locator('.note.fallback').isVisible()).toBe(false);
    expect(d).toMatchObject({ series: 2, points: 5, counted: 5, xTitle: 'Interactivity (tok/s/user)' });
    expect(d.yTitle).toBe('Throughput per GPU (tok/s)');
    expect(await page.locator('select[name=model]').inputValue()).toBe('llama8b');
    expect(await page.locator('.summary').textContent()).toContain('5 points of 2 configs from 1 run');
    await page.screenshot({ path: join(OUTPUT, 'inference-view.png') });
  });

  it('a filter and the x axis change the view and the URL; a reload gives the same view', async () => {
    await page.click('.chip-group[data-filter=precision] .chip[data-value=fp8]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=chart] g.series').length === 1);
    await page.selectOption('select[name=x]', 'e2el');
    await page.check('input[name=log]');
    const d = await drawn(page);
    expect(d).toMatchObject({ series: 1, points: 3, xTitle: 'End-to-end latency (s)' });
    expect(d.yTitle).toBe('Throughput per GPU (tok/s), log');
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ precision: 'fp8', x: 'e2el', log: '1' });
    expect(url.search).toBe('?precision=fp8&x=e2el&log=1');

    await page.reload();
    await settle(page);
    expect(await drawn(page)).toEqual(d);
    expect(await page.locator('select[name=x]').inputValue()).toBe('e2el');
    expect(await page.locator('input[name=log]').isChecked()).toBe(true);
    expect(await page.locator('.chip[data-value=fp8]').getAttribute('aria-pressed')).toBe('true');

    // The other metrics: cost per million tokens (lower is better) from the catalog's H100 price.
    await page.selectOption('select[name=y]', 'cost');
    const cost = await drawn(page);
    expect(cost.yTitle).toBe('Cost per million tokens ($/M tokens), log');
    expect(new URL(page.url()).searchParams.get('y')).toBe('cost');
  });

  it('the CSV export is the API’s rows for the view', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('a[data-action=csv]')]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    const head = lines[0]!.split(',');
    const rows = lines.slice(1).map((l) => l.split(','));
    const api = (await (
      await fetch(`${base}/api/points?model=llama8b&isl=256&osl=64&precision=fp8`)
    ).json()) as CurvePoint[];
    expect(rows.map((r) => r[head.indexOf('point_id')])).toEqual(api.map((p) => p.pointId));
    expect(rows.map((r) => Number(r[head.indexOf('tput_per_gpu_tok_s')]))).toEqual(
      api.map((p) => p.metrics.tputPerGpu),
    );
    expect(csv).toBe(
      await (
        await fetch(`${base}${new URL(download.url()).pathname}${new URL(download.url()).search}`)
      ).text(),
    );
  });

  it('tooltips follow the pointer and pin on click; legend items toggle series; PNG export', async () => {
    await page.goto(`${base}/`);
    await settle(page);
    const circle = page.locator('circle.point').first();
    await circle.hover();
    const tip = page.locator('.tooltip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.locator('.tip-head strong').textContent()).toMatch(/^h100 vllm .* \(simulated\)$/);
    expect(await tip.locator('.tip-row.engine dd').textContent()).toMatch(/^simulated · infx-sim\//);
    await circle.click();
    expect(await tip.getAttribute('class')).toContain('pinned');
    expect(await tip.locator('a', { hasText: 'result.json' }).count()).toBe(1);
    await page.keyboard.press('Escape');
    expect(await tip.isVisible()).toBe(false);

    await page.click('.legend-item >> nth=0');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=chart] g.series').length === 1);
    expect(new URL(page.url()).searchParams.get('hide')).toMatch(/^[0-9a-z]+$/);
    expect((await drawn(page)).legend[0]!.pressed).toBe('false');

    const [png] = await Promise.all([page.waitForEvent('download'), page.click('button[name=png]')]);
    const bytes = readFileSync((await png.path())!);
    expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(bytes.readUInt32BE(16)).toBe(2560);
  });

  it('text from the store is never markup (pitfall 20)', async () => {
    await page.goto(`${base}/?status=staged`);
    await settle(page);
    await page.locator('circle.point').first().hover();
    const tip = page.locator('.tooltip');
    await expect.poll(() => tip.textContent()).toContain('<img src=x onerror="window.__xss=1">');
    expect(await page.evaluate(() => window.__xss)).toBeUndefined();
    expect(await page.locator('.tooltip img').count()).toBe(0);
  });

  it('the run view: the failed point with its phase, reason, engine command and server log', async () => {
    await page.goto(`${base}/runs/r1`);
    const row = page.locator(`tr[data-point="${FAILED_POINT}"]`);
    await row.waitFor();
    expect(await row.locator('.badge.failed').first().textContent()).toBe('failed');
    const failure = await row.locator('td.failure').textContent();
    expect(failure).toContain('setup:');
    expect(failure).toContain("the engine's server process exited before it was ready");
    await row.locator('details.engine summary').click();
    expect(await row.locator('pre.cmd').textContent()).toContain('sim serve');
    expect(await row.locator('pre.cmd').textContent()).toContain('--fault-no-start');
    const href = await row.locator('td.links a', { hasText: 'server log' }).getAttribute('href');
    const log = await (await fetch(`${base}${href}`)).text();
    expect(log).toContain('simulated start-up failure');
    expect(await page.locator('tr.point').count()).toBe(6);
    expect(await page.locator('.run-head h1 .badge.simulated').textContent()).toBe('simulated');
    expect(await page.locator('.facts').textContent()).toContain(
      "simulated: all 5 results from infx's simulated engine (infx-sim/",
    );
    expect(await row.locator('td').first().textContent()).toContain('h100 vllm bf16 tp1 (simulated)');
    // The cause is on the page as it is, with the engine's last words: no hover, nothing to open.
    const cause = row.locator('td.failure .cause');
    expect(await cause.isVisible()).toBe(true);
    expect(await cause.textContent()).toMatch(
      /exited before it was ready \(exit code \d+\): .*simulated start-up failure \(--fault-no-start\)/,
    );
    expect(await row.locator('td.metric').allTextContents()).toEqual(['', '', '', '', '']);
    // An ingested point: its metrics in numbers, its requests all ok.
    const ok = page.locator('tr.point.ingested').first();
    const metric = (k: string) => ok.locator(`td[data-metric=${k}]`).textContent();
    for (const k of ['tput', 'interactivity', 'ttft', 'e2el'])
      expect(Number((await metric(k))?.replaceAll(',', ''))).toBeGreaterThan(0);
    expect(await metric('requests')).toBe('8 / 0');
    expect(await page.locator('table.points thead th').allTextContents()).toEqual([
      'Point',
      'Conc',
      'GPUs',
      'Outcome',
      'tok/s/GPU',
      'tok/s/user',
      'TTFT ms',
      'E2E s',
      'Requests ok / failed',
      'Failure',
      'Attempts',
      'Files',
    ]);
    // Long ids and paths wrap at their separators instead of widening the page.
    expect(await row.locator('td').first().locator('.path wbr').count()).toBeGreaterThan(5);
    expect(await page.locator('.facts .path.mono wbr').count()).toBeGreaterThan(2);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(1280);
    await page.click('.tabs .chip[data-outcome=failed]');
    expect(await page.locator('tr.point').count()).toBe(1);
    await page.screenshot({ path: join(OUTPUT, 'run-view.png'), fullPage: true });
  });

  it('the run view: its provenance, the changelog entries that selected it and its status history', async () => {
    await page.goto(`${base}/runs/evil`);
    const changes = page.locator('.run-changes');
    await changes.waitFor();
    expect(await changes.locator('h3').first().textContent()).toBe('Changelog entries (origin/main..pr-7)');
    const rows = changes.locator('table.changelog tbody tr');
    expect(await rows.count()).toBe(2);
    // A stored link is a link only when it is a web address; markup in a description stays text.
    expect(await rows.nth(0).locator('a').count()).toBe(0);
    expect(await rows.nth(0).textContent()).toContain('javascript:alert(1)');
    expect(await rows.nth(0).textContent()).toContain('<b>bold</b> claims');
    expect(await rows.nth(1).locator('a').getAttribute('href')).toBe('https://github.com/o/r/pull/7');
    expect(await rows.nth(1).locator('a').textContent()).toBe('o/r/pull/7');
    const history = await changes.locator('ol.status-history li').allTextContents();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatch(/ingested: — → staged · by mallory · infx ingest --status staged$/);
    expect(await changes.textContent()).toContain('Provenance: not recorded');
    await page.goto(`${base}/runs/r1`);
    await page.locator('.run-changes').waitFor();
    expect(await page.locator('.run-changes .changelog-empty').textContent()).toContain(
      'No changelog entries are linked to this run',
    );
  });

  it('the compare view: both runs in the chart, the matched-interactivity table', async () => {
    await page.goto(`${base}/compare?run=r2&baseline=r1`);
    await page.locator('table.matched').first().waitFor();
    const d = await drawn(page);
    expect(d.series).toBe(4);
    expect(d.legend.map((l) => l.label)).toEqual([
      'h100 vllm bf16 tp1 (r2, simulated)',
      'h100 vllm fp8 tp2 (r2, simulated)',
      'h100 vllm bf16 tp1 (r1, simulated)',
      'h100 vllm fp8 tp2 (r1, simulated)',
    ]);
    // Colour by config (the same on both sides), line style by run: the run solid, the baseline dashed.
    const fronts = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid=chart] g.series')].map((g) => {
        const path = g.querySelector('path.front');
        return {
          series: g.getAttribute('data-series'),
          color: path?.getAttribute('stroke'),
          dash: path?.getAttribute('stroke-dasharray') ?? null,
        };
      }),
    );
    const style = (run: string, precision: string) => {
      const f = fronts.find((x) => x.series?.startsWith(`${run}|`) && x.series.includes(`|${precision}|`));
      return f && { color: f.color, dashed: f.dash !== null };
    };
    expect(style('r2', 'bf16')?.dashed).toBe(false);
    expect(style('r1', 'bf16')?.dashed).toBe(true);
    expect(style('r1', 'bf16')?.color).toBe(style('r2', 'bf16')?.color);
    expect(style('r1', 'fp8')?.color).toBe(style('r2', 'fp8')?.color);
    expect(style('r2', 'fp8')?.color).not.toBe(style('r2', 'bf16')?.color);
    expect(await page.locator('.legend-item .swatch.dashed').count()).toBe(2);
    expect(await page.locator('section.config h2').allTextContents()).toEqual([
      'llama8b 256/64 h100 vllm bf16 tp1 (simulated)',
      'llama8b 256/64 h100 vllm fp8 tp2 (simulated)',
    ]);
    expect(await page.locator('.report .summary').textContent()).toMatch(
      /^Run r2 \(simulated\) against r1 \(simulated\): /,
    );
    const fp8 = page.locator('section.config').nth(1);
    // r2 is r1 with 20% more throughput at the same interactivities: +20% wherever both are defined.
    const gains = await fp8.locator('table.matched tbody tr td:nth-child(4)').allTextContents();
    expect(gains.length).toBeGreaterThan(0);
    for (const g of gains) expect(g).toBe('+20.0%');
    expect(await fp8.locator('.headline').textContent()).toContain('beats the baseline by 20.0%');
    await page.screenshot({ path: join(OUTPUT, 'compare-view.png'), fullPage: true });
  });

  it('the runs list says what served each run; no official results: the default view says so', async () => {
    await page.goto(`${base}/runs`);
    await page.locator('table.table').waitFor();
    expect(await page.locator('thead th').allTextContents()).toContain('Engine');
    const engines = await page.evaluate(() =>
      [...document.querySelectorAll('tbody tr')].map((tr) => [
        tr.querySelector('td a')?.textContent,
        tr.querySelector('td.engine')?.textContent,
      ]),
    );
    expect(engines).toEqual([
      ['r2', 'simulated'],
      ['r1', 'simulated'],
      ['evil', 'real'],
    ]);

    const other = unofficialOnly.url.replace(/\/$/, '');
    await page.goto(`${other}/`);
    await settle(page);
    const notice = page.locator('.note.fallback');
    await notice.waitFor();
    expect(await notice.textContent()).toContain(
      'No official results are stored, so this shows the latest unofficial results instead, labelled simulated',
    );
    expect(await notice.locator('a').getAttribute('href')).toBe('/?status=unofficial');
    const d = await drawn(page);
    expect(d.legend.map((l) => l.label)).toEqual([
      'h100 vllm bf16 tp1 (simulated)',
      'h100 vllm fp8 tp2 (simulated)',
    ]);
    await notice.locator('a').click();
    await settle(page);
    expect(new URL(page.url()).search).toBe('?status=unofficial');
    expect(await page.locator('.note.fallback').isVisible()).toBe(false);
    expect(await page.locator('select[name=status]').inputValue()).toBe('unofficial');
  });

  it('deep links land on their view; unknown pages say so; no errors in the console', async () => {
    await page.goto(`${base}/runs`);
    await page.locator('table.table').waitFor();
    expect(await page.locator('tbody tr').count()).toBe(3);
    await page.click('a:text("r1")');
    await page.locator(`tr[data-point="${FAILED_POINT}"]`).waitFor();
    expect(new URL(page.url()).pathname).toBe('/runs/r1');
    await page.goto(`${base}/nowhere`);
    expect(await page.locator('h1').textContent()).toBe('Not found');
    expect(errors).toEqual([]);
  });
});
