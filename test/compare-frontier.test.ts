import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FrontierCompareReport, FrontierCompareReportSchema } from '../src/schema/frontier-compare.ts';
import { handSetConfigs } from './analysis-helpers.ts';
import { tmpDir } from './helpers.ts';
import { L, prRun, publishedRun } from './support/frontier-fixture.ts';
import { syntheticRow } from './support/synthetic.ts';
import { infx } from './sweep-helpers.ts';

/**
 * `infx compare RUN --baseline RUN2 --against frontier` through bin/infx.js (`npm run build` first), on
 * test/support/frontier-fixture.ts, built like user thread 000: a disaggregated config
 * (P4/3D4: one TP4 prefill worker, three TP4 decode workers) and a new TP8 aggregate point set against the
 * published curve of a baseline holding TP8 and TP4 aggregate configs. Run directories are written with
 * hand-set metrics (no engine), and stored in a real SQLite file for the `official` case.
 *
 * The baseline (interactivity tok/s/user, throughput tok/s/GPU):
 *   TP8: c64 (20, 3000), c32 (40, 2400), c16 (50, 1500)
 *   TP4: c64 (30, 2000), c16 (60, 1600), c4 (80, 1000)
 * Its frontier (no other valid point has both more interactivity and more throughput): (20, 3000) TP8,
 * (40, 2400) TP8, (60, 1600) TP4, (80, 1000) TP4. TP4 at 30 is under (40, 2400); TP8 at 50 under (60, 1600).
 *
 * Steffen tangents (interpolate.ts) on it: h = 20 everywhere, slopes s0 = −30, s1 = −40, s2 = −30.
 *   m1: p1 = (s0·h + s1·h)/(2h) = −35, m1 = (−1 − 1)·min(30, 40, ½·35) = −35; m2 likewise −35.
 *   m0 = (3·s0 − m1)/2 = (−90 + 35)/2 = −27.5; m3 = (3·s2 − m2)/2 = −27.5.
 * Hermite at the middle of a segment (t = ½: h00 = h01 = ½, h10 = ⅛, h11 = −⅛, times h = 20 → ±2.5):
 *   at 50: ½·2400 + 2.5·(−35) + ½·1600 − 2.5·(−35) = 2000
 *   at 70: ½·1600 + 2.5·(−35) + ½·1000 − 2.5·(−27.5) = 800 − 87.5 + 500 + 68.75 = 1281.25
 * At t = ¼ (h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = −0.046875):
 *   at 25: 0.84375·3000 + 0.140625·20·(−27.5) + 0.15625·2400 − 0.046875·20·(−35)
 *        = 2531.25 − 77.34375 + 375 + 32.8125 = 2861.71875
 *
 * The run:
 *   P4/3D4 disagg: c64 (50, 2760): +38% (2760/2000); c32 (70, 2242.1875): +75% (2242.1875/1281.25);
 *                  c8 (100, 900): above the frontier's 80, outside it (never extrapolated, no percentage).
 *                  Max 2760 against the frontier's max 3000: −8%.
 *   TP8 new:       c128 (10, 2895): below the frontier's 20, outside it; c64 (25, 2800): 100·(2800 −
 *                  2861.71875)/2861.71875 = −2.1567%; c32 (40, 2300): a knot, 100·(2300 − 2400)/2400 =
 *                  −4.1667%. Max 2895 against 3000: −3.5% ("3.5% below the older published maximum").
 *   TP8 on B200:   no baseline config of dsr1 1k/1k b200 fp8: says so.
 */

async function json(args: string[]): Promise<FrontierCompareReport> {
  const out = await infx(['compare', ...args, '--against', 'frontier', '--format', 'json']);
  expect(out.code, out.stderr).toBe(0);
  return FrontierCompareReportSchema.parse(JSON.parse(out.stdout));
}

let published: string;
let pr: string;
beforeAll(() => {
  published = publishedRun();
  pr = prRun();
});

describe('infx compare --against frontier (thread 000)', () => {
  it('the disaggregated config against the TP8 + TP4 frontier: +38% and +75%, and outside it', async () => {
    const r = await json([pr, '--baseline', published]);
    expect(r).toMatchObject({
      kind: 'frontier-compare-report',
      against: 'frontier',
      interactivityStat: 'median',
    });
    // By config key: b200 before h200, and on h200 `agg` before `disagg`.
    expect(r.configs.map((c) => c.label)).toEqual([L.b200, L.tp8, L.disagg]);
    const d = r.configs.find((c) => c.label === L.disagg)!;
    expect(d.group).toEqual({
      model: 'dsr1',
      precision: 'fp8',
      hardware: 'h200',
      workload: 'fixed_seq_len',
      isl: 1024,
      osl: 1024,
      engine: 'real',
    });
    expect(d.axis).toEqual({ metric: 'interactivity', stat: 'median' });
    // The frontier built by hand above.
    expect(d.frontier?.knots.map((k) => [k.interactivity, k.tputPerGpu, k.label, k.conc])).toEqual([
      [20, 3000, L.tp8, 64],
      [40, 2400, L.tp8, 32],
      [60, 1600, L.tp4, 16],
      [80, 1000, L.tp4, 4],
    ]);
    expect(d.frontier?.interactivity).toEqual([20, 80]);
    expect(d.frontier?.maxTputPerGpu).toBe(3000);
    expect(d.frontier?.configs.map((c) => [c.label, c.points, c.frontPoints])).toEqual(
      expect.arrayContaining([
        [L.tp8, 3, 2],
        [L.tp4, 3, 2],
      ]),
    );
    expect(d.points.map((p) => [p.conc, p.interactivity, p.status, p.side])).toEqual([
      [64, 50, 'ok', null],
      [32, 70, 'ok', null],
      [8, 100, 'outside-frontier', 'above'],
    ]);
    expect(d.points[0]?.frontierTputPerGpu).toBeCloseTo(2000, 9);
    expect(d.points[0]?.gainPct).toBeCloseTo(38, 9);
    expect(d.points[1]?.frontierTputPerGpu).toBeCloseTo(1281.25, 9);
    expect(d.points[1]?.gainPct).toBeCloseTo(75, 9);
    expect(d.points.map((p) => p.atKnot)).toEqual([false, false, false]);
    expect(d.points[2]).toMatchObject({ frontierTputPerGpu: null, gainPct: null });
    expect(d.gainPct.min).toBeCloseTo(38, 9);
    expect(d.gainPct.max).toBeCloseTo(75, 9);
    expect(d.maxTputChangePct).toBeCloseTo(-8, 9);
    expect(d.notes).toEqual([
      'outside the frontier (20–80 tok/s/user), not compared (never extrapolated): 100 tok/s/user',
    ]);

    const t = r.configs.find((c) => c.label === L.tp8)!;
    expect(t.points.map((p) => [p.conc, p.status, p.side, p.atKnot])).toEqual([
      [128, 'outside-frontier', 'below', false],
      [64, 'ok', null, false],
      [32, 'ok', null, true],
    ]);
    expect(t.points[1]?.frontierTputPerGpu).toBeCloseTo(2861.71875, 9);
    expect(t.points[1]?.gainPct).toBeCloseTo((100 * (2800 - 2861.71875)) / 2861.71875, 9);
    expect(t.points[2]?.gainPct).toBeCloseTo((100 * (2300 - 2400)) / 2400, 9);
    // The new aggregate maximum: 3.5% below the older published maximum.
    expect(t.maxTputChangePct).toBeCloseTo(-3.5, 9);

    const b = r.configs.find((c) => c.label === L.b200)!;
    expect(b.frontier).toBeNull();
    expect(b.points).toEqual([
      expect.objectContaining({ status: 'outside-frontier', side: null, gainPct: null }),
    ]);
    expect(b.maxTputChangePct).toBeNull();
    expect(b.notes).toEqual([
      'the baseline has no config of dsr1 1k/1k b200 fp8: no frontier to compare with',
    ]);
  });

  it('the text and Markdown say these are interpolation estimates, and print outside without a percentage', async () => {
    const text = await infx(['compare', pr, '--baseline', published, '--against', 'frontier']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${pr} vs the frontier of baseline ${published} (median interactivity)\n`);
    expect(text.stdout).toContain(
      "These are interpolation estimates on the baseline's frontier (monotone interpolation between its " +
        'measured points, never extrapolated), not measured matched-latency comparisons.',
    );
    expect(text.stdout).toContain(
      `== ${L.disagg}\nAgainst the baseline's interpolated frontier: +38.0% to +75.0% at 2 of 3 points ` +
        "(interpolation estimates); its maximum, 2,760 tok/s/GPU, is 8.0% below the frontier's maximum.\n" +
        `Frontier of 2 baseline configs (${L.tp4}: 2 points on it; ${L.tp8}: 2 points on it), 20–80 ` +
        `tok/s/user (median interactivity), max 3,000 tok/s/GPU (${L.tp8}).\n`,
    );
    expect(text.stdout).toMatch(/\n +64 +50 +2,760 +2,000 \* +\+38\.0%\n/);
    expect(text.stdout).toMatch(/\n +32 +70 +2,242 +1,281 \* +\+75\.0%\n/);
    expect(text.stdout).toMatch(/\n +8 +100 +900 +N\/A +outside the frontier \(above it\)\n/);
    expect(text.stdout).toMatch(/\n +32 +40 +2,300 +2,400 +−4\.2%\n/);
    expect(text.stdout).toContain("its maximum, 2,895 tok/s/GPU, is 3.5% below the frontier's maximum.");
    expect(text.stdout).toContain(
      `== ${L.b200}\nNot compared: no baseline frontier.\nFrontier: none (see the note).\n`,
    );
    expect(text.stdout).toContain(
      'note: the baseline has no config of dsr1 1k/1k b200 fp8: no frontier to compare with',
    );
    expect(text.stdout).not.toMatch(/outside the frontier[^\n]*%/);

    const md = await infx([
      'compare',
      pr,
      '--baseline',
      published,
      '--against',
      'frontier',
      '--format',
      'md',
    ]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^### Performance vs the baseline frontier\n/);
    expect(md.stdout).toContain("**These are interpolation estimates on the baseline's frontier");
    expect(md.stdout).toContain(`#### ${L.disagg}\n`);
    expect(md.stdout).toContain('| 32 | 70 | 2,242 | 1,281 * | +75.0% |');
    expect(md.stdout).toContain('| 8 | 100 | 900 | N/A | outside the frontier (above it) |');
  });

  it('official from a SQLite store: every official config of the group makes the frontier', async () => {
    const db = join(tmpDir(), 'infx.db');
    // Another model's official run: in `official`, but in no frontier of the run's configs.
    const other = handSetConfigs('other-model', [
      { row: syntheticRow({ 'model-prefix': 'llama8b' }), metrics: { 1: [50, 9000] } },
    ]);
    for (const [dir, status] of [
      [published, 'official'],
      [other, 'official'],
      [pr, 'unofficial'],
    ] as const) {
      const ingest = await infx(['ingest', dir, '--db', db, '--status', status]);
      expect(ingest.code, ingest.stderr).toBe(0);
    }
    const r = await json(['pr', '--baseline', 'official', '--db', db]);
    expect(r.baseline).toMatchObject({ label: 'official', runIds: ['published'], engine: 'real' });
    const d = r.configs.find((c) => c.label === L.disagg)!;
    expect(d.points.map((p) => p.gainPct?.toFixed(6) ?? null)).toEqual(['38.000000', '75.000000', null]);
    // The same numbers from the store as from the run directories.
    const fromDirs = await json([pr, '--baseline', published]);
    expect(r.configs).toEqual(fromDirs.configs);
    // The default stays one to one: the disaggregated config has no baseline of its own key.
    const oneToOne = await infx(['compare', 'pr', '--baseline', 'official', '--db', db, '--format', 'json']);
    expect(oneToOne.code, oneToOne.stderr).toBe(0);
    const o = JSON.parse(oneToOne.stdout);
    expect(o.kind).toBe('compare-report');
    expect(o.onlyInRun.map((c: { label: string }) => c.label)).toContain(L.disagg);
  });

  it('simulated runs are labelled simulated and never meet a real frontier', async () => {
    const sim = { engine: 'simulated' } as const;
    const simBase = publishedRun('sim-base', sim);
    const simRun = prRun('sim-run', { ...sim, configs: 1 });
    const s = await json([simRun, '--baseline', simBase]);
    const d = s.configs[0]!;
    expect(d.label).toBe(`${L.disagg} (simulated)`);
    expect(d.points[1]?.gainPct).toBeCloseTo(75, 9);
    expect(d.notes).toContain(
      'simulated on both sides (infx-sim/synthetic in the run, infx-sim/synthetic in the baseline): the gains ' +
        "are the performance model's, not measured on real hardware",
    );
    const text = await infx(['compare', simRun, '--baseline', simBase, '--against', 'frontier']);
    expect(text.stdout).toContain(`${simRun} (simulated) vs the frontier of baseline ${simBase} (simulated)`);
    expect(text.stdout).toContain(`== ${L.disagg} (simulated)\n`);

    const cross = await json([simRun, '--baseline', published]);
    expect(cross.configs[0]?.frontier).toBeNull();
    expect(cross.configs[0]?.notes).toEqual([
      'the baseline has configs of dsr1 1k/1k h200 fp8 only from real engines and this config is simulated: a ' +
        'simulated curve is only ever compared with a simulated one, so there is no frontier to compare with',
    ]);
  });

  it('flags of the one-to-one comparison are refused with --against frontier (exit 2)', async () => {
    for (const extra of [
      ['--at', '50'],
      ['--noise', '1'],
      ['--price-per-gpu-hour', '2'],
    ]) {
      const r = await infx(['compare', pr, '--baseline', published, '--against', 'frontier', ...extra]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `--against frontier compares each of the run's measured points and takes no ${extra[0]}`,
      );
    }
    expect((await infx(['compare', pr, '--baseline', published, '--against', 'curve'])).code).toBe(2);
  });

  it('infx schema frontier-compare-report exports the JSON Schema of the report', async () => {
    const out = await infx(['schema', 'frontier-compare-report']);
    expect(out.code, out.stderr).toBe(0);
    const schema = JSON.parse(out.stdout);
    expect(schema.properties.kind).toMatchObject({ const: 'frontier-compare-report' });
    expect(schema.properties.against).toMatchObject({ const: 'frontier' });
  });
});
