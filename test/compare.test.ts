import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CompareReport, CompareReportSchema } from '../src/schema/compare-report.ts';
import { HAND_SET_LABEL, handSetRun, smallSweep, syntheticRun } from './analysis-helpers.ts';
import { runCli, tmpDir } from './helpers.ts';

/**
 * `infx compare` on run directories. One small simulated sweep gives a real run directory; its numbers
 * depend on the host, so it is used for structure only (the JSON fits its schema, the tables are there,
 * a run against itself is the same run). Every gain and verdict is asserted on run directories written
 * with hand-set metrics (handSetRun: no sweep, no engine), which nothing the host does can move.
 */

/** The sweep's config: its results come from the simulated engine, and its label says so. */
const LABEL = 'llama8b 256/64 h100 vllm bf16 tp1 (simulated)';

/** The baseline of the hand-set cases: knots (80, 1400), (100, 900), (120, 500) at conc 4, 2, 1. */
const BASE = { 1: [120, 500], 2: [100, 900], 4: [80, 1400] } as Record<number, [number, number]>;
/** BASE with throughput scaled by `f` (same interactivities). */
const scaled = (f: number) =>
  Object.fromEntries(Object.entries(BASE).map(([c, [i, t]]) => [c, [i, t * f]])) as Record<
    number,
    [number, number]
  >;

async function json(args: string[]): Promise<CompareReport> {
  const out = await runCli(['compare', ...args, '--format', 'json']);
  expect(out.code, out.stderr).toBe(0);
  return CompareReportSchema.parse(JSON.parse(out.stdout));
}

describe('infx compare: structure, on a real run', () => {
  let real: string;
  beforeAll(async () => {
    real = await smallSweep('real');
  }, 90_000);

  it('a table, JSON that fits its schema, Markdown; no sign or size of a gain asserted', async () => {
    // Copies keep the measured metrics and mark every point valid, so both fronts and tables exist.
    const a = syntheticRun(real, 'a');
    const b = syntheticRun(real, 'b');
    const table = await runCli(['compare', b, '--baseline', a]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(
      `${b} (simulated) vs baseline ${a} (simulated) (median interactivity)\nVerdict: `,
    );
    expect(table.stdout).toContain(`== ${LABEL}`);
    expect(table.stdout).toMatch(/tok\/s\/user +baseline tok\/s\/GPU +run tok\/s\/GPU +gain +verdict/);
    expect(table.stdout).toContain('At equal concurrency:');

    const report = await json([b, '--baseline', a]);
    expect(report.schemaVersion).toBe(2);
    expect(report.run.runIds).toEqual(['b']);
    expect(report.baseline.runIds).toEqual(['a']);
    expect(report.configs).toHaveLength(1);
    expect(report.configs[0]?.equalConcurrency.map((r) => r.conc)).toEqual([1, 2, 4]);
    expect(report.configs[0]?.price).toEqual({ perGpuHour: 2.35, source: 'catalog' });
    expect(report.configs[0]?.noise.source).toBe('assumed');
    expect(report.configs[0]?.engine.kind).toBe('simulated');
    expect(report.configs[0]?.engine.simulators.run[0]).toMatch(/^infx-sim\//);
    expect(report.run.engine).toBe('simulated');

    const md = await runCli(['compare', b, '--baseline', a, '--format', 'md', '--interactivity', 'p90']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^### Performance vs baseline\n/);
    expect(md.stdout).toContain(`#### ${LABEL}`);
    expect(md.stdout).toContain('matched p90 interactivity');
    expect(md.stdout).toContain('**Verdict: ');
  });

  it('a run against itself: same run, and no gain called an improvement', async () => {
    const table = await runCli(['compare', real, '--baseline', real]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Verdict: same run: the run and the baseline are the same run (real).\n');
    expect(table.stdout).not.toMatch(/better|beats|✓/);
    const r = await json([real, '--baseline', real]);
    expect(r.verdict).toBe('same-run');
    for (const c of r.configs) {
      expect(c.verdict).toBe('same-run');
      expect(c.matched.every((m) => m.verdict !== 'better' && m.verdict !== 'worse')).toBe(true);
    }
  });
});

describe('infx compare: verdicts on hand-set metrics', () => {
  it('better: the gain at matched interactivity, computed by hand', async () => {
    // Baseline knots (80, 1400), (100, 900), (120, 500): h = 20, s0 = −25, s1 = −20,
    //   p1 = (−25·20 − 20·20)/40 = −22.5, m1 = −2·min(25, 20, 11.25) = −22.5, m2 = (3·(−20) + 22.5)/2 = −18.75;
    //   at 110 (t = ½): 0.5·900 + 0.125·20·(−22.5) + 0.5·500 − 0.125·20·(−18.75) = 690.625.
    // Run knots (80, 1700), (100, 1100), (120, 600): s0 = −30, s1 = −25, p1 = −27.5, m1 = −27.5, m2 = −23.75;
    //   at 110: 550 − 68.75 + 300 + 59.375 = 840.625.  Gain = 100·150/690.625 = 21.7195…%.
    // At 100 both are knots: 100·(1100 − 900)/900 = 22.22…%. At 130 both fronts end at 120: not compared.
    // Maximum: 1700 vs 1400 → +21.43%.
    const base = handSetRun('old', BASE);
    const run = handSetRun('pr', { 1: [120, 600], 2: [100, 1100], 4: [80, 1700] });
    const r = await json([run, '--baseline', base, '--at', '100,110', '--at', '130']);
    const c = r.configs[0]!;
    expect(c.label).toBe(HAND_SET_LABEL);
    expect(c.matched.map((m) => m.status)).toEqual(['ok', 'ok', 'outside-both']);
    expect(c.matched[0]?.gainPct).toBeCloseTo((100 * 200) / 900, 9);
    expect(c.matched[1]?.baseline.tputPerGpu).toBeCloseTo(690.625, 9);
    expect(c.matched[1]?.run.tputPerGpu).toBeCloseTo(840.625, 9);
    expect(c.matched[1]?.gainPct).toBeCloseTo((100 * 150) / 690.625, 9);
    expect(c.matched[2]?.gainPct).toBeNull();
    expect(c.matched.map((m) => m.verdict)).toEqual(['better', 'better', 'not-compared']);
    expect(c.maxTputChangePct).toBeCloseTo((100 * 300) / 1400, 9);
    expect(c.covers).toBe(true);
    expect(c.dominates).toBe(true);
    expect(c.verdict).toBe('better');
    expect(r.verdict).toBe('better');
    expect(c.noise).toEqual({
      thresholdPct: 2,
      source: 'assumed',
      measuredPct: null,
      repeats: 0,
      runs: 0,
      concs: [],
    });

    const md = await runCli(['compare', run, '--baseline', base, '--at', '100,110', '--format', 'md']);
    expect(md.stdout).toContain('**Verdict: better (1 config better).**');
    expect(md.stdout).toContain(
      '**Better: at matched interactivity this config beats the baseline by 21.7% to 22.2%, beyond the ±2.0% ' +
        'run-to-run spread (assumed, not measured); its maximum is 21.4% above the old maximum. It is at ' +
        'least as good across the whole baseline curve.**',
    );
    expect(md.stdout).toContain('| 110 | 691 | 841 | +21.7% | better |');
  });

  it('mixed: better at low interactivity, worse at high, never an average', async () => {
    // At 80: 1550 vs 1400 → +10.71%; at 100 both 900 → 0; at 120: 450 vs 500 → −10%.
    const base = handSetRun('old', BASE);
    const run = handSetRun('pr', { 1: [120, 450], 2: [100, 900], 4: [80, 1550] });
    const r = await json([run, '--baseline', base, '--at', '80,100,120']);
    const c = r.configs[0]!;
    expect(c.matched.map((m) => m.verdict)).toEqual(['better', 'within-noise', 'worse']);
    expect(c.verdict).toBe('mixed');
    expect(r.verdict).toBe('mixed');
    const table = await runCli(['compare', run, '--baseline', base, '--at', '80,100,120']);
    expect(table.stdout).toContain('Verdict: mixed (1 config mixed).');
    expect(table.stdout).toContain(
      'Mixed: +10.7% at 80 tok/s/user but −10.0% at 120, beyond the ±2.0% run-to-run spread (assumed, not ' +
        'measured); better at 1 point, worse at 1, within the spread at 1;',
    );
    expect(table.stdout).not.toContain('on average');
  });

  it('no difference inside the assumed 2%; --noise below the gain makes it better', async () => {
    const base = handSetRun('old', BASE);
    const run = handSetRun('pr', scaled(1.015));
    const r = await json([run, '--baseline', base, '--at', '90,110']);
    const c = r.configs[0]!;
    for (const m of c.matched) expect(m.gainPct).toBeCloseTo(1.5, 9);
    expect(c.matched.map((m) => m.verdict)).toEqual(['within-noise', 'within-noise']);
    expect(c.verdict).toBe('no-difference');
    const table = await runCli(['compare', run, '--baseline', base, '--at', '90,110']);
    expect(table.stdout).toContain(
      'No difference: every matched point is within the ±2.0% run-to-run spread (assumed, not measured) ' +
        '(gains +1.5%);',
    );
    expect(table.stdout).toMatch(/\+1\.5% +within spread/);

    const flagged = await json([run, '--baseline', base, '--at', '90,110', '--noise', '1']);
    expect(flagged.noise.flagPct).toBe(1);
    expect(flagged.configs[0]?.noise).toMatchObject({ thresholdPct: 1, source: 'flag' });
    expect(flagged.verdict).toBe('better');
  });

  it('noise measured from stored repeats of the baseline, assumed without them', async () => {
    // Two official runs of the baseline, 900 and 936 at conc 2 (equal elsewhere): a spread of
    // 36/918 = 3.92%. The run is 2.5% above the baseline: better against the assumed 2%, no difference
    // against the measured 3.92%. The run is stored too, but its own results never count.
    const db = join(tmpDir(), 'infx.db');
    const old = handSetRun('old', BASE);
    const old2 = handSetRun('old2', { ...BASE, 2: [100, 936] }, '2026-01-02T00:00:00.000Z');
    const pr = handSetRun('pr', scaled(1.025));
    for (const [dir, status] of [
      [old, 'official'],
      [old2, 'official'],
      [pr, 'unofficial'],
    ] as const) {
      const ingest = await runCli(['ingest', dir, '--db', db, '--status', status]);
      expect(ingest.code, ingest.stderr).toBe(0);
    }
    const assumed = await json([pr, '--baseline', old, '--at', '90,110']);
    expect(assumed.noise.storedRuns).toBe(false);
    expect(assumed.configs[0]?.noise.source).toBe('assumed');
    expect(assumed.verdict).toBe('better');

    const measured = await json([pr, '--baseline', old, '--at', '90,110', '--db', db]);
    expect(measured.noise.storedRuns).toBe(true);
    const n = measured.configs[0]!.noise;
    expect(n).toMatchObject({ source: 'measured', repeats: 6, runs: 2, concs: [1, 2, 4] });
    expect(n.thresholdPct).toBeCloseTo((100 * 36) / 918, 9);
    expect(measured.verdict).toBe('no-difference');
    const table = await runCli(['compare', 'pr', '--baseline', 'old', '--at', '90,110', '--db', db]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(
      'No difference: every matched point is within the ±3.9% run-to-run spread (measured from 6 results ' +
        'of 2 runs)',
    );

    // `official` as the baseline: the latest official result per concurrency (old2's), noise from both runs.
    const official = await json([pr, '--baseline', 'official', '--at', '90,110', '--db', db]);
    expect(official.baseline.runIds).toEqual(['old2']);
    expect(official.configs[0]?.noise).toMatchObject({ source: 'measured', repeats: 6 });

    // A stored run against itself, and against its own directory: the same run.
    expect((await json(['old', '--baseline', 'old', '--db', db])).verdict).toBe('same-run');
    expect((await json([old, '--baseline', 'old', '--db', db])).verdict).toBe('same-run');
  });
});

describe('infx compare: simulated and real', () => {
  it('simulated runs say so; a simulated run is never matched with a real one, and the report says why', async () => {
    const sim = { engine: 'simulated' } as const;
    const real = handSetRun('real', BASE);
    const simOld = handSetRun('sim-old', BASE, undefined, sim);
    const simNew = handSetRun('sim-new', scaled(1.1), undefined, sim);

    const both = await runCli(['compare', simNew, '--baseline', simOld, '--at', '100']);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain(`${simNew} (simulated) vs baseline ${simOld} (simulated)`);
    expect(both.stdout).toContain(`== ${HAND_SET_LABEL} (simulated)\n`);
    const md = await runCli(['compare', simNew, '--baseline', simOld, '--at', '100', '--format', 'md']);
    expect(md.stdout).toContain(`#### ${HAND_SET_LABEL} (simulated)\n`);

    const cross = await json([simNew, '--baseline', real]);
    expect(cross.configs).toEqual([]);
    expect(cross.verdict).toBe('not-comparable');
    expect(cross.onlyInRun).toEqual([
      expect.objectContaining({ label: `${HAND_SET_LABEL} (simulated)`, engine: 'simulated' }),
    ]);
    expect(cross.onlyInBaseline).toEqual([
      expect.objectContaining({ label: HAND_SET_LABEL, engine: 'real' }),
    ]);
    const text = await runCli(['compare', simNew, '--baseline', real]);
    expect(text.stdout).toContain(`${simNew} (simulated) vs baseline ${real} (real)`);
    expect(text.stdout).toContain(
      'note: 1 config is simulated in the run and real in the baseline, so they are not compared',
    );

    // Stored: the simulated runs are unofficial, so `official` (the real run) has nothing to match.
    const db = join(tmpDir(), 'infx.db');
    expect((await runCli(['ingest', real, '--db', db])).code).toBe(0);
    for (const dir of [simOld, simNew]) {
      const ingest = await runCli(['ingest', dir, '--db', db]);
      expect(ingest.stdout).toContain('(unofficial)');
    }
    const official = await json([simNew, '--baseline', 'official', '--db', db]);
    expect(official.baseline).toMatchObject({ runIds: [], engine: null });
    expect(official.notes).toEqual([
      expect.stringContaining('the run is simulated and the baseline has no results of its configs'),
    ]);
    // Against the stored simulated run: matched, with the spread from simulated repeats only.
    const stored = await json(['sim-new', '--baseline', 'sim-old', '--db', db, '--at', '100']);
    expect(stored.configs.map((c) => c.label)).toEqual([`${HAND_SET_LABEL} (simulated)`]);
    expect(stored.verdict).toBe('better');
  });
});

describe('infx compare: sources and errors', () => {
  it('runs stored in the database: by run id, and official as the baseline', async () => {
    const base = handSetRun('base', BASE);
    const other = handSetRun('new', scaled(1.1));
    const db = join(tmpDir(), 'infx.db');
    expect((await runCli(['ingest', base, '--db', db])).code).toBe(0);
    expect((await runCli(['ingest', other, '--db', db, '--status', 'unofficial'])).code).toBe(0);
    const byId = await json(['new', '--baseline', 'base', '--db', db]);
    const fromDirs = await json([other, '--baseline', base, '--db', db]);
    const strip = (r: CompareReport) => ({
      verdict: r.verdict,
      configs: r.configs,
      onlyInRun: r.onlyInRun,
      onlyInBaseline: r.onlyInBaseline,
    });
    // Same numbers from the store as from the run directories.
    expect(strip(byId)).toEqual(strip(fromDirs));
    const o = await json([other, '--baseline', 'official', '--db', db]);
    expect(o.baseline).toEqual({ label: 'official', runIds: ['base'], engine: 'real' });
    expect(o.configs).toHaveLength(1);
    const unknown = await runCli(['compare', 'nope', '--baseline', 'base', '--db', db]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("'nope' is neither a run directory nor a run id in sqlite:");
    expect(unknown.stderr).toContain('newest runs: ');
    const plot = await runCli(['plot', 'base', 'new', '--db', db, '--out', join(tmpDir(), 'db.svg')]);
    expect(plot.code, plot.stderr).toBe(0);
    expect(plot.stdout).toContain('2 series');
  });

  it('a price override changes the cost columns', async () => {
    const base = handSetRun('old', BASE);
    const run = handSetRun('pr', scaled(1.1));
    const c = (await json([run, '--baseline', base, '--price-per-gpu-hour', '1', '--at', '100'])).configs[0]!;
    expect(c.price).toEqual({ perGpuHour: 1, source: 'flag' });
    // At 100: 990 tok/s/GPU → $1 / (990 × 3600 / 1e6) per million tokens.
    expect(c.matched[0]?.run.costPerMTokens).toBeCloseTo(1e6 / (990 * 3600), 9);
  });

  it('bad input exits 1 naming the run and the fix; bad flags exit 2', async () => {
    const real = handSetRun('h', BASE);
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
    // Two run directories and a --db that does not exist: compared, the spread not searched there.
    const dirs = await runCli(['compare', handSetRun('pr', BASE), '--baseline', real, ...noDb]);
    expect(dirs.code, dirs.stderr).toBe(0);
    expect(dirs.stderr).toContain('no results database at');
    expect((await runCli(['compare', real, '--baseline', 'official', '--db', 'mysql://x'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--format', 'xml'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--at', '50,abc'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--price-per-gpu-hour', '0'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--noise', '-1'])).code).toBe(2);
    expect((await runCli(['compare', real, '--baseline', real, '--noise', 'lots'])).code).toBe(2);
    expect((await runCli(['compare', real])).code).toBe(2);
  });
});
