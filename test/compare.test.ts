import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompareReportSchema } from '../src/schema/compare-report.ts';
import { smallSweep, syntheticRun } from './analysis-helpers.ts';
import { runCli, tmpDir } from './helpers.ts';

/** `infx compare` on real run directories (a small simulated sweep) and on copies with hand-set metrics. */

let real: string;
let other: string;
beforeAll(async () => {
  [real, other] = await Promise.all([smallSweep('base'), smallSweep('new', ['--seed', '7'])]);
}, 90_000);

const LABEL = 'llama8b 256/64 h100 vllm bf16 tp1';

describe('infx compare', () => {
  it('two real runs of the same config: a table, JSON that fits its schema, Markdown', async () => {
    const table = await runCli(['compare', other, '--baseline', real]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(`${other} vs baseline ${real} (median interactivity)`);
    expect(table.stdout).toContain(`== ${LABEL}`);
    expect(table.stdout).toContain('At equal concurrency:');

    const json = await runCli(['compare', other, '--baseline', real, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const report = CompareReportSchema.parse(JSON.parse(json.stdout));
    expect(report.run.runIds).toEqual(['new']);
    expect(report.baseline.runIds).toEqual(['base']);
    expect(report.configs).toHaveLength(1);
    expect(report.configs[0]?.equalConcurrency.map((r) => r.conc)).toEqual([1, 2, 4]);
    expect(report.configs[0]?.price).toEqual({ perGpuHour: 2.35, source: 'catalog' });

    const md = await runCli([
      'compare',
      other,
      '--baseline',
      real,
      '--format',
      'md',
      '--interactivity',
      'p90',
    ]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^### Performance vs baseline\n/);
    expect(md.stdout).toContain(`#### ${LABEL}`);
    expect(md.stdout).toContain('matched p90 interactivity');
  });

  it('hand-set metrics: the gain at matched interactivity, computed by hand', async () => {
    // Baseline knots (80, 1400), (100, 900), (120, 500): h = 20, s0 = −25, s1 = −20,
    //   p1 = (−25·20 − 20·20)/40 = −22.5, m1 = −2·min(25, 20, 11.25) = −22.5, m2 = (3·(−20) + 22.5)/2 = −18.75;
    //   at 110 (t = ½): 0.5·900 + 0.125·20·(−22.5) + 0.5·500 − 0.125·20·(−18.75) = 690.625.
    // Run knots (80, 1700), (100, 1100), (120, 600): s0 = −30, s1 = −25, p1 = −27.5, m1 = −27.5, m2 = −23.75;
    //   at 110: 550 − 68.75 + 300 + 59.375 = 840.625.  Gain = 100·150/690.625 = 21.7195…%.
    // At 100 both are knots: 100·(1100 − 900)/900 = 22.22…%. At 130 both fronts end at 120: not compared.
    // Maximum: 1700 vs 1400 → +21.43%.
    const base = syntheticRun(real, 'old', { 1: [120, 500], 2: [100, 900], 4: [80, 1400] });
    const run = syntheticRun(real, 'pr', { 1: [120, 600], 2: [100, 1100], 4: [80, 1700] });
    const out = await runCli([
      'compare',
      run,
      '--baseline',
      base,
      '--at',
      '100,110',
      '--at',
      '130',
      '--format',
      'json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    const c = CompareReportSchema.parse(JSON.parse(out.stdout)).configs[0]!;
    expect(c.matched.map((m) => m.status)).toEqual(['ok', 'ok', 'outside-both']);
    expect(c.matched[0]?.gainPct).toBeCloseTo((100 * 200) / 900, 9);
    expect(c.matched[1]?.baseline.tputPerGpu).toBeCloseTo(690.625, 9);
    expect(c.matched[1]?.run.tputPerGpu).toBeCloseTo(840.625, 9);
    expect(c.matched[1]?.gainPct).toBeCloseTo((100 * 150) / 690.625, 9);
    expect(c.matched[2]?.gainPct).toBeNull();
    expect(c.maxTputChangePct).toBeCloseTo((100 * 300) / 1400, 9);
    expect(c.covers).toBe(true);
    expect(c.dominates).toBe(true);

    const md = await runCli(['compare', run, '--baseline', base, '--at', '100,110', '--format', 'md']);
    expect(md.stdout).toContain(
      '**At matched interactivity this config beats the baseline by 22.0% on average (+21.7% to +22.2%); ' +
        'its maximum is 21.4% above the old maximum. It is at least as good across the whole baseline curve.**',
    );
    expect(md.stdout).toContain('| 110 | 691 | 841 | +21.7% |');
  });

  it('a price override changes the cost columns', async () => {
    const out = await runCli([
      'compare',
      other,
      '--baseline',
      real,
      '--format',
      'json',
      '--price-per-gpu-hour',
      '1',
    ]);
    const c = CompareReportSchema.parse(JSON.parse(out.stdout)).configs[0]!;
    expect(c.price).toEqual({ perGpuHour: 1, source: 'flag' });
    const m = c.matched.find((x) => x.status === 'ok');
    if (m?.run.tputPerGpu != null)
      expect(m.run.costPerMTokens).toBeCloseTo(1e6 / (m.run.tputPerGpu * 3600), 9);
  });

  it('runs stored in the database: by run id, and official as the baseline', async () => {
    const db = join(tmpDir(), 'infx.db');
    expect((await runCli(['ingest', real, '--db', db])).code).toBe(0);
    expect((await runCli(['ingest', other, '--db', db, '--status', 'unofficial'])).code).toBe(0);
    const byId = await runCli(['compare', 'new', '--baseline', 'base', '--db', db, '--format', 'json']);
    expect(byId.code, byId.stderr).toBe(0);
    const fromDirs = await runCli(['compare', other, '--baseline', real, '--format', 'json']);
    const strip = (out: string) => {
      const r = CompareReportSchema.parse(JSON.parse(out));
      return { configs: r.configs, onlyInRun: r.onlyInRun, onlyInBaseline: r.onlyInBaseline };
    };
    // Same numbers from the store as from the run directories.
    expect(strip(byId.stdout)).toEqual(strip(fromDirs.stdout));
    const official = await runCli([
      'compare',
      other,
      '--baseline',
      'official',
      '--db',
      db,
      '--format',
      'json',
    ]);
    expect(official.code, official.stderr).toBe(0);
    const o = CompareReportSchema.parse(JSON.parse(official.stdout));
    expect(o.baseline).toEqual({ label: 'official', runIds: ['base'] });
    expect(o.configs).toHaveLength(1);
    const unknown = await runCli(['compare', 'nope', '--baseline', 'base', '--db', db]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("'nope' is neither a run directory nor a run id in sqlite:");
    expect(unknown.stderr).toContain('newest runs: ');
    const plot = await runCli(['plot', 'base', 'new', '--db', db, '--out', join(tmpDir(), 'db.svg')]);
    expect(plot.code, plot.stderr).toBe(0);
    expect(plot.stdout).toContain('2 series');
  });

  it('bad input exits 1 naming the run and the fix; bad flags exit 2', async () => {
    const noDb = ['--db', join(tmpDir(), 'none.db')];
    const missing = await runCli(['compare', '/nonexistent/run', '--baseline', real, ...noDb]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("'/nonexistent/run' is not a run directory");
    expect(missing.stderr).toContain('runs/<run-id>');
    const notRun = await runCli(['compare', `${real}/points`, '--baseline', real]);
    expect(notRun.code).toBe(1);
    expect(notRun.stderr).toContain('is not a run directory: no manifest.json');
    const official = await runCli(['compare', real, '--baseline', 'official', ...noDb]);
    expect(official.code).toBe(1);
    expect(official.stderr).toContain('no results database');
    expect((await runCli(['compare', real, '--baseline', 'official', '--db', 'mysql://x'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--format', 'xml'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--at', '50,abc'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--price-per-gpu-hour', '0'])).code).toBe(2);
    expect((await runCli(['compare', real])).code).toBe(2);
  });
});
