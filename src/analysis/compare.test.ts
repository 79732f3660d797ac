import { describe, expect, it } from 'vitest';
import { curve, curvePoint, identity } from '../../test/support/curve-points.ts';
import { CompareReportSchema } from '../schema/compare-report.ts';
import { compareConfig, compareRuns, evenlySpaced } from './compare.ts';

describe('compareConfig at matched interactivity', () => {
  // Baseline front: (50, 3000), (100, 1500) — two knots, a straight line.
  // Run front: (50, 4000), (150, 1000) — a straight line.
  const base = curve([
    [100, 1500],
    [50, 3000],
  ]);
  const run = curve([
    [150, 1000],
    [50, 4000],
  ]);

  it('gains, maximum change, cover and dominance, computed by hand', () => {
    const c = compareConfig(run, base, { at: [75, 100, 120], pricePerGpuHour: 3.6 });
    // At 75: baseline 3000 − 1500·(25/50) = 2250; run 4000 − 3000·(25/100) = 3250;
    //        gain 100·(3250 − 2250)/2250 = 44.444…%.
    // At 100: baseline 1500; run 4000 − 3000·(50/100) = 2500; gain 100·1000/1500 = 66.666…%.
    // At 120: above the baseline's front (max 100): outside, not compared.
    expect(c.matched.map((m) => m.status)).toEqual(['ok', 'ok', 'outside-baseline']);
    expect(c.matched[0]?.run.tputPerGpu).toBeCloseTo(3250, 9);
    expect(c.matched[0]?.baseline.tputPerGpu).toBeCloseTo(2250, 9);
    expect(c.matched[0]?.gainPct).toBeCloseTo(44.4444444444, 8);
    expect(c.matched[1]?.gainPct).toBeCloseTo(66.6666666667, 8);
    expect(c.matched[2]).toMatchObject({ gainPct: null, baseline: { tputPerGpu: null } });
    expect(c.matched[2]?.run.tputPerGpu).toBeCloseTo(4000 - 3000 * 0.7, 9);
    expect(c.gainPct.mean).toBeCloseTo((44.4444444444 + 66.6666666667) / 2, 8);
    expect(c.gainPct.min).toBeCloseTo(44.4444444444, 8);
    // Cost at 75: $3.6/GPU-h / (3250 × 3600 / 1e6 M tok/h) = 3.6 / 11.7 = $0.30769/M tokens.
    expect(c.matched[0]?.run.costPerMTokens).toBeCloseTo(3.6 / 11.7, 12);
    // Maximum: run 4000 vs baseline 3000 → +33.33%.
    expect(c.maxTputChangePct).toBeCloseTo(33.3333333333, 8);
    expect(c.overlap).toEqual([50, 100]);
    expect(c.covers).toBe(true);
    expect(c.dominates).toBe(true);
    expect(c.notes.join('\n')).toContain('outside a front, not compared (never extrapolated): 120');
  });

  it('a 3-knot front against a linear one, the Steffen tangents worked by hand', () => {
    // Run knots x = [40, 60, 100], y = [3000, 2000, 1000]: h0 = 20, h1 = 40, s0 = −50, s1 = −25.
    // p1 = (s0·h1 + s1·h0)/(h0 + h1) = (−2000 − 500)/60 = −125/3
    // m1 = (−1 − 1)·min(50, 25, 125/6) = −125/3;  m0 = (3·(−50) + 125/3)/2 = −325/6
    // At 50 (t = 0.5, h = 20): y = 0.5·3000 + 0.125·20·m0 + 0.5·2000 − 0.125·20·m1
    //                           = 2500 + 2.5·(−325/6 + 250/6) = 2500 − 31.25 = 2468.75
    // Baseline (40, 2000)–(60, 1600) at 50: 1800. Gain = 100·(2468.75 − 1800)/1800 = 37.1527…%.
    const r = curve([
      [40, 3000],
      [60, 2000],
      [100, 1000],
    ]);
    const b = curve([
      [40, 2000],
      [60, 1600],
    ]);
    const c = compareConfig(r, b, { at: [50] });
    expect(c.matched[0]?.run.tputPerGpu).toBeCloseTo(2468.75, 9);
    expect(c.matched[0]?.gainPct).toBeCloseTo((100 * 668.75) / 1800, 9);
  });

  it('default targets: 5 evenly spaced over the overlap', () => {
    const c = compareConfig(run, base);
    expect(c.matched.map((m) => m.interactivity)).toEqual([50, 62.5, 75, 87.5, 100]);
    expect(c.matched.every((m) => m.status === 'ok')).toBe(true);
    expect(evenlySpaced(3, 3, 5)).toEqual([3]);
  });

  it('a run that does not cover the baseline range neither covers nor dominates', () => {
    const narrow = curve([
      [60, 5000],
      [90, 4000],
    ]);
    const c = compareConfig(narrow, base, { at: [55, 70, 40] });
    expect(c.covers).toBe(false);
    expect(c.dominates).toBe(false);
    expect(c.matched[0]?.status).toBe('outside-run');
    expect(c.matched[1]?.status).toBe('ok');
    expect(c.matched[2]?.status).toBe('outside-both');
  });

  it('a run below the baseline somewhere does not dominate', () => {
    const crossing = curve([
      [50, 5000],
      [100, 1000],
    ]);
    const c = compareConfig(crossing, base);
    expect(c.covers).toBe(true);
    expect(c.dominates).toBe(false);
    expect(c.gainPct.min).toBeLessThan(0);
    expect(c.gainPct.max).toBeGreaterThan(0);
  });

  it('disjoint fronts: no overlap, a note, no targets', () => {
    const far = curve([
      [200, 500],
      [300, 200],
    ]);
    const c = compareConfig(far, base);
    expect(c.overlap).toBeNull();
    expect(c.matched).toEqual([]);
    expect(c.notes.join('\n')).toContain('do not overlap');
  });

  it('invalid points stay out of fronts and maxima', () => {
    const withInvalid = [...run, curvePoint({ conc: 64, intvty: 20, tput: 99_999, valid: false })];
    const c = compareConfig(withInvalid, base);
    expect(c.run).toMatchObject({ points: 3, validPoints: 2, frontPoints: 2, maxTputPerGpu: 4000 });
    expect(c.notes[0]).toContain('1 invalid point of the run');
  });

  it('uses the p90 interactivity when asked', () => {
    // p90 = 0.9 × median in the test points: the baseline front spans 45–90.
    expect(compareConfig(run, base, { stat: 'p90' }).overlap).toEqual([45, 90]);
  });
});

describe('equal-concurrency table', () => {
  it('delta and pct with direction; N/A for missing values and a zero baseline', () => {
    const r = [curvePoint({ conc: 4, intvty: 80, tput: 1100, ttftMs: 90, e2elMs: 2000 })];
    const b = [curvePoint({ conc: 4, intvty: 100, tput: 1000, ttftMs: 0, e2elMs: null })];
    const row = compareConfig(r, b).equalConcurrency[0];
    expect(row?.conc).toBe(4);
    const by = new Map(row?.metrics.map((m) => [m.metric, m]));
    expect(by.get('tput/GPU')).toMatchObject({
      run: 1100,
      baseline: 1000,
      delta: 100,
      pct: 10,
      improved: true,
    });
    expect(by.get('median interactivity')).toMatchObject({ delta: -20, pct: -20, improved: false });
    expect(by.get('median TTFT')).toMatchObject({ delta: 90, pct: null, improved: false });
    expect(by.get('median E2EL')).toMatchObject({
      run: 2,
      baseline: null,
      delta: null,
      pct: null,
      improved: null,
    });
  });

  it('only concurrencies measured on both sides', () => {
    const r = curve([
      [100, 1000],
      [90, 1800],
    ]);
    const b = curve([[100, 900]]);
    expect(compareConfig(r, b).equalConcurrency.map((x) => x.conc)).toEqual([1]);
  });
});

describe('compareRuns', () => {
  it('matches configs by key and lists the ones on one side only; the report fits its schema', () => {
    const tp4 = identity({
      prefill: { ...identity().prefill, tp: 4, gpus: 4 },
      decode: { ...identity().decode, tp: 4, gpus: 4 },
    });
    const b200 = identity({ hardware: 'b200' });
    const run = [
      ...curve([[50, 3000]], { runId: 'new' }),
      ...curve([[40, 100]], { runId: 'new', config: tp4 }),
    ];
    const base = [
      ...curve([[50, 2000]], { runId: 'old' }),
      ...curve([[40, 100]], { runId: 'old', config: b200 }),
    ];
    const report = compareRuns(
      { label: 'runs/new', runIds: ['new'], points: run },
      { label: 'runs/old', runIds: ['old'], points: base },
    );
    expect(CompareReportSchema.parse(report)).toEqual(report);
    expect(report.configs).toHaveLength(1);
    expect(report.configs[0]?.label).toBe('dsr1 1k/1k h200 sglang fp8 tp8');
    expect(report.configs[0]?.matched[0]?.gainPct).toBeCloseTo(50, 9);
    expect(report.onlyInRun.map((c) => c.label)).toEqual(['dsr1 1k/1k h200 sglang fp8 tp4']);
    expect(report.onlyInBaseline.map((c) => c.label)).toEqual(['dsr1 1k/1k b200 sglang fp8 tp8']);
  });
});
