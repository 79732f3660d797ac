import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvalDetailSchema, EvalsResponseSchema } from '../src/schema/web-evals.ts';
import { startWebServer, type WebServer } from '../src/web/server.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import type { PageDocument } from './page-dom.ts';
import { writeGsmFile } from './support/eval-server.ts';
import { FAST, infx, smallRow, writeMatrix } from './sweep-helpers.ts';
import { buildUi, CHROMIUM_PATH, CHROMIUM_REQUIRED, openPage } from './web-helpers.ts';

// In page.evaluate callbacks only: they run in Chromium.
declare const document: PageDocument;

/**
 * An eval sweep on the simulated engine → the store → the evaluation page, in a real Chromium: two sweeps of
 * a run-eval row (the built binary: npm run build first), one whose simulated engine answers every question
 * right (pass) and one that answers every one wrong (below the 0.9 default threshold), ingested into SQLite;
 * the page lists both verdicts, labelled simulated, with the rule that chose the threshold; a row drills down
 * to its samples (question, response, extracted answers), the wrong filter and the pager work; a run's page
 * links to its evals. Skips where /usr/bin/chromium is missing, unless INFX_REQUIRE_CHROMIUM=1.
 */

const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));
const available = built && (existsSync(CHROMIUM_PATH) || CHROMIUM_REQUIRED);
const QUESTIONS = 30;

let server: WebServer;
let browser: Browser;
let page: Page;
let base = '';
const errors: string[] = [];

beforeAll(async () => {
  if (!available) return;
  const out = tmpDir('infx-web-eval-');
  const test = writeGsmFile(out, 'test.jsonl', QUESTIONS);
  const train = writeGsmFile(out, 'train.jsonl', 8, 100);
  const matrix = writeMatrix(out, [
    smallRow({ conc: 2, 'run-eval': true, 'exp-name': 'llama8b_256_64_eval' }),
  ]);
  const db = join(out, 'infx.db');
  for (const [runId, accuracy] of [
    ['right', '1'],
    ['wrong', '0'],
  ] as const) {
    const r = await infx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--run-id',
      runId,
      ...FAST,
      '--eval-dataset',
      test,
      '--eval-fewshot-dataset',
      train,
      '--accuracy',
      accuracy,
    ]);
    if (r.code !== 0) throw new Error(`sweep ${runId}: ${r.stderr}`);
    const ingest = await infx(['ingest', join(out, runId), '--db', db]);
    if (ingest.code !== 0) throw new Error(`ingest ${runId}: ${ingest.stderr}`);
  }
  const ui = await buildUi();
  server = await startWebServer({ db, port: 0, runsDirs: [out], uiDir: ui });
  base = server.url.replace(/\/$/, '');
  ({ browser, page } = await openPage(errors));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const rowOf = (p: Page, runId: string) =>
  p.evaluate((id) => {
    const tr = document.querySelector(`table.evals tr[data-run="${id}"]`);
    return tr ? [...tr.querySelectorAll('td')].map((td) => td.textContent) : null;
  }, runId);

describe.skipIf(!available)(
  `the evaluation page in Chromium${built ? '' : ' (not built: run npm run build)'}`,
  () => {
    it('the API lists both verdicts with their scores, thresholds and labels', async () => {
      const evals = EvalsResponseSchema.parse(await (await fetch(`${base}/api/evals`)).json());
      expect(evals.map((v) => [v.runId, v.pass, v.simulated, v.strictMatch.value, v.threshold])).toEqual(
        expect.arrayContaining([
          ['right', true, true, 1, 0.9],
          ['wrong', false, true, 0, 0.9],
        ]),
      );
      expect(evals.every((v) => v.thresholdRule === 'default' && v.samples === QUESTIONS)).toBe(true);
      const one = EvalsResponseSchema.parse(await (await fetch(`${base}/api/evals?run=wrong`)).json());
      expect(one.map((v) => v.runId)).toEqual(['wrong']);
      const bad = await fetch(`${base}/api/evals?color=blue`);
      expect(bad.status).toBe(400);
    });

    it('lists every eval against its threshold, labelled simulated', async () => {
      await page.goto(`${base}/evaluation`);
      await page.locator('table.evals tbody tr').first().waitFor();
      expect(await page.locator('table.evals tbody tr').count()).toBe(2);
      const right = (await rowOf(page, 'right')) as string[];
      const wrong = (await rowOf(page, 'wrong')) as string[];
      expect(right[0]).toBe('llama8b');
      expect(right[1]).toContain('simulated');
      expect(right[5]).toMatch(/^1\.0000 ± 0\.0000$/);
      expect(right[7]).toBe('0.9 (default)');
      expect(right[8]).toBe('pass');
      expect(wrong[5]).toMatch(/^0\.0000/);
      expect(wrong[8]).toBe('below threshold');
      expect(await page.locator('.simulated-note').textContent()).toContain('simulated engine');
      expect(errors).toEqual([]);
    });

    it('drills down to the samples: question, response, extracted answers; filters and pages', async () => {
      await page.goto(`${base}/evaluation`);
      await page.locator('table.evals tr[data-run="wrong"] a', { hasText: 'samples' }).click();
      await page.locator('article.sample').first().waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/evaluation\/wrong\/llama8b_256_64_eval/);
      expect(await page.locator('article.sample').count()).toBe(25);
      const first = page.locator('article.sample').first();
      expect(await first.locator('pre.question').textContent()).toMatch(/^Question: Q0\?\nEnd your response/);
      expect(await first.locator('pre.response').textContent()).toMatch(/\S/);
      expect(await first.locator('[data-correct]').first().getAttribute('data-correct')).toBe('0');
      expect(await page.locator('[role=status]').last().textContent()).toBe(`Samples 1–25 of ${QUESTIONS}`);
      await page.locator('a', { hasText: 'next →' }).click();
      await page.waitForFunction(() => document.querySelectorAll('article.sample').length === 5);
      expect(await page.locator('article.sample').first().getAttribute('data-doc')).toBe('25');
      // Every answer of the right run is right: its wrong filter shows none.
      await page.goto(`${base}/evaluation?run=right`);
      await page.locator('table.evals a', { hasText: 'samples' }).click();
      await page.locator('article.sample').first().waitFor();
      await page.locator('[data-filter-chip=wrong]').click();
      await page.waitForFunction(() => document.querySelectorAll('article.sample').length === 0);
      expect(await page.locator('[role=status]').last().textContent()).toBe('No wrong samples.');
      expect(errors).toEqual([]);
    });

    it("a run's page links to its evals", async () => {
      await page.goto(`${base}/runs/wrong`);
      const link = page.locator('[data-evals-link]');
      await link.waitFor();
      expect(await link.textContent()).toBe('accuracy evals (1, 1 below threshold)');
      await link.click();
      await page.locator('table.evals tbody tr').first().waitFor();
      expect(new URL(page.url()).search).toBe('?run=wrong');
      expect(await page.locator('table.evals tbody tr').count()).toBe(1);
    });

    it('the samples API pages and filters', async () => {
      const evals = EvalsResponseSchema.parse(await (await fetch(`${base}/api/evals?run=wrong`)).json());
      const url = `${base}/api/runs/wrong/points/${encodeURIComponent(evals[0]!.pointId)}/eval`;
      const d = EvalDetailSchema.parse(await (await fetch(`${url}?filter=wrong&offset=28&limit=5`)).json());
      expect([d.total, d.samples.map((s) => s.docId)]).toEqual([QUESTIONS, [28, 29]]);
      expect((await fetch(`${base}/api/runs/wrong/points/nope/eval`)).status).toBe(404);
      expect((await fetch(`${url}?limit=1000`)).status).toBe(400);
    });
  },
);
