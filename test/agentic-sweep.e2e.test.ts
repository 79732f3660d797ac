import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FrontierCompareReportSchema } from '../src/schema/frontier-compare.ts';
import { startWebServer } from '../src/web/server.ts';
import { tmpDir } from './helpers.ts';
import type { PageDocument } from './page-dom.ts';
import { AGENTIC_SIM_CONFIG } from './support/agentic-config.ts';
import { infx } from './sweep-helpers.ts';
import { buildUi } from './web-helpers.ts';

// In page.evaluate callbacks only: they run in Chromium.
declare const document: PageDocument;

/**
 * AgentX end to end, as CI runs it: `infx trace synth` writes a corpus, `infx sweep --traces` runs an
 * agentic-coding config on the simulated engine (a fresh engine per point, the replay against it), `infx
 * ingest` stores it, and the dashboard draws the point on /agentic and its session timeline in Chromium.
 * Skips where /usr/bin/chromium is missing, unless INFX_REQUIRE_CHROMIUM=1.
 */

const CHROMIUM = process.env.INFX_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM) || process.env.INFX_REQUIRE_CHROMIUM === '1';

const CONFIG = AGENTIC_SIM_CONFIG;

describe.skipIf(!available)('an agentic sweep → ingest → dashboard', () => {
  it('sweeps an agentic config on the simulated engine, stores it and draws it with its timeline', async () => {
    const dir = tmpDir('infx-agentic-e2e-');
    const corpus = join(dir, 'traces.jsonl');
    const config = join(dir, 'agentic.yaml');
    writeFileSync(config, CONFIG);
    const synth = await infx([
      'trace',
      'synth',
      '--traces',
      '3',
      '--seed',
      '5',
      '--max-context',
      '256k',
      '--out',
      corpus,
    ]);
    expect(synth.code, synth.stderr).toBe(0);

    // Without --traces and the public corpus not in the HF cache, the row is listed as not run, with the ways to give one.
    const dry = await infx(
      ['sweep', '--config-files', config, '--runner-config', 'examples/runners.yaml', '--dry-run'],
      { HF_HOME: join(dir, 'hf'), HF_HUB_CACHE: '' },
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout + dry.stderr).toContain(
      'huggingface-cli download --repo-type dataset semianalysisai/cc-traces-weka-062126',
    );
    expect(dry.stdout + dry.stderr).toContain('infx sweep --traces FILE');

    const sweep = await infx([
      'sweep',
      '--config-files',
      config,
      '--runner-config',
      'examples/runners.yaml',
      '--traces',
      corpus,
      '--agentx-fast',
      '--agentic-duration',
      '60',
      '--out',
      join(dir, 'runs'),
      '--run-id',
      'ag',
    ]);
    // The shortened replay is measured but never a valid submission: the sweep says so and exits 1.
    const said = sweep.stdout + sweep.stderr;
    expect(said).toMatch(/attempt 1 ok \(not valid\)/);
    expect(said).toContain('duration_below_submission_minimum');
    const db = join(dir, 'infx.db');
    const ingest = await infx(['ingest', join(dir, 'runs', 'ag'), '--db', db]);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout + ingest.stderr).toContain('1 ingested');
    // The frontier comparison reads agentic points from a run directory and from the store alike.
    const vs = await infx([
      'compare',
      join(dir, 'runs', 'ag'),
      '--baseline',
      'ag',
      '--db',
      db,
      '--against',
      'frontier',
      '--format',
      'json',
    ]);
    expect(vs.code, vs.stderr).toBe(0);
    const [cmp] = FrontierCompareReportSchema.parse(JSON.parse(vs.stdout)).configs;
    expect(cmp?.group.workload).toBe('agentic_traces');
    expect(cmp?.axis).toEqual({ metric: 'generation-interactivity', stat: 'p90' });
    expect(cmp?.frontier?.configs.map((c) => [c.points, c.validPoints])).toEqual([[1, 0]]);
    expect(cmp?.notes).toContain('1 invalid point of the run left out (failed the validity gate)');

    const server = await startWebServer({
      db,
      port: 0,
      runsDirs: [join(dir, 'runs')],
      uiDir: await buildUi(),
    });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
      headless: true,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const base = server.url.replace(/\/$/, '');
      // The dashboard's compare view reads the same report from /api/compare.
      const api = await fetch(`${base}/api/compare?run=ag&baseline=ag&against=frontier`);
      expect(api.status).toBe(200);
      const report = FrontierCompareReportSchema.parse(await api.json());
      expect(report.configs.map((c) => c.group.workload)).toEqual(['agentic_traces']);
      await page.goto(`${base}/agentic?status=unofficial`);
      await page.waitForSelector('[data-testid=agentic-chart] circle.point');
      const chart = await page.evaluate(() => ({
        points: document.querySelectorAll('[data-testid=agentic-chart] circle.point').length,
        text: document.body.textContent ?? '',
      }));
      expect(chart.points).toBe(1);
      expect(chart.text).toContain('simulated');

      await page.goto(`${base}/runs/ag`);
      await page.waitForSelector('[data-testid=timeline-link]');
      await page.click('[data-testid=timeline-link]');
      await page.waitForSelector('[data-testid=timeline] rect.request');
      const timeline = await page.evaluate(() => ({
        bars: document.querySelectorAll('[data-testid=timeline] rect.request').length,
        roots: document.querySelectorAll('[data-testid=timeline] g.conversation[data-kind=root]').length,
      }));
      expect(timeline.bars).toBeGreaterThan(1);
      expect(timeline.roots).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await server.close();
    }
  }, 240_000);
});
