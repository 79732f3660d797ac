import { describe, expect, it } from 'vitest';
import { curve, curvePoint } from '../../test/support/curve-points.ts';
import { CompareReportSchema } from '../schema/compare-report.ts';
import { compareConfig, compareRuns } from './compare.ts';
import {
  configNoise,
  configVerdict,
  measureSpread,
  overallVerdict,
  pointVerdict,
  sameRunOf,
} from './compare-noise.ts';

/** The run-to-run spread and the verdicts, on hand-set points (no measurement, no host load). */

// Baseline front (40, 3000)–(100, 1000): a straight line.
const base = curve(
  [
    [100, 1000],
    [40, 3000],
  ],
  { runId: 'old' },
);
/** The baseline with throughput scaled by `f`, as run `runId`. */
const scaled = (f: number, runId: string) =>
  curve(
    [
      [100, 1000 * f],
      [40, 3000 * f],
    ],
    { runId },
  );

describe('measureSpread', () => {
  it('the largest (max − min)/mean over groups of one conc and image from two or more runs', () => {
    const pts = [
      curvePoint({ conc: 1, intvty: 100, tput: 1000, runId: 'a' }),
      curvePoint({ conc: 1, intvty: 100, tput: 1030, runId: 'b' }),
      curvePoint({ conc: 1, intvty: 100, tput: 970, runId: 'c' }),
      // conc 2: 2000 vs 2020 → 20/2010 = 0.995%.
      curvePoint({ conc: 2, intvty: 50, tput: 2000, runId: 'a' }),
      curvePoint({ conc: 2, intvty: 50, tput: 2020, runId: 'b' }),
      // conc 4: one run only; an invalid point and a null throughput never count.
      curvePoint({ conc: 4, intvty: 30, tput: 2500, runId: 'a' }),
      curvePoint({ conc: 4, intvty: 30, tput: 9999, runId: 'b', valid: false }),
      curvePoint({ conc: 4, intvty: 30, tput: null, runId: 'c' }),
    ];
    // conc 1: (1030 − 970)/1000 = 6%.
    const s = measureSpread(pts);
    expect(s?.pct).toBeCloseTo(6, 12);
    expect(s).toMatchObject({ repeats: 5, runs: 3, concs: [1, 2] });
  });

  it('another image is another measurement, not a repeat', () => {
    const a = curvePoint({ conc: 1, intvty: 100, tput: 1000, runId: 'a' });
    const b = { ...curvePoint({ conc: 1, intvty: 100, tput: 1500, runId: 'b' }), image: 'img:v2' };
    expect(measureSpread([a, b])).toBeNull();
  });

  it('another simulator version is another model, not a repeat', () => {
    const sim = (simulator: string) => ({ kind: 'simulated', simulator }) as const;
    const a = curvePoint({ conc: 1, intvty: 100, tput: 1000, runId: 'a', engine: sim('infx-sim/1+m1') });
    const b = curvePoint({ conc: 1, intvty: 100, tput: 1500, runId: 'b', engine: sim('infx-sim/1+m2') });
    const c = curvePoint({ conc: 1, intvty: 100, tput: 1010, runId: 'c', engine: sim('infx-sim/1+m1') });
    expect(measureSpread([a, b])).toBeNull();
    expect(measureSpread([a, b, c])?.pct).toBeCloseTo((100 * 10) / 1005, 9);
  });
});

describe('configNoise', () => {
  const repeat = scaled(1.03, 'old2'); // 3% above the baseline at both concurrencies.
  it('measured from the baseline and stored repeats; the run itself never counts', () => {
    // 30/1015 = 2.9557% at conc 1 (and at conc 2).
    const n = configNoise([...base, ...repeat, ...scaled(1.2, 'new')], new Set(['new']), null);
    expect(n.source).toBe('measured');
    expect(n.thresholdPct).toBeCloseTo((100 * 30) / 1015, 12);
    expect(n).toMatchObject({ repeats: 4, runs: 2, concs: [1, 2] });
  });

  it('assumed without repeats; the flag wins but the measurement is kept', () => {
    expect(configNoise(base, new Set(['new']), null)).toEqual({
      thresholdPct: 2,
      source: 'assumed',
      measuredPct: null,
      repeats: 0,
      runs: 0,
      concs: [],
    });
    const f = configNoise([...base, ...repeat], new Set(['new']), 0.5);
    expect(f).toMatchObject({ thresholdPct: 0.5, source: 'flag', repeats: 4 });
    expect(f.measuredPct).toBeCloseTo((100 * 30) / 1015, 12);
  });
});

describe('verdicts', () => {
  it('a point: beyond the threshold better or worse, inside or on it no difference', () => {
    expect(pointVerdict(2.01, 2, false)).toBe('better');
    expect(pointVerdict(2, 2, false)).toBe('within-noise');
    expect(pointVerdict(-2, 2, false)).toBe('within-noise');
    expect(pointVerdict(-2.01, 2, false)).toBe('worse');
    expect(pointVerdict(null, 2, false)).toBe('not-compared');
    expect(pointVerdict(0, 2, true)).toBe('same-run');
  });

  it('a config and the report', () => {
    expect(configVerdict(['better', 'within-noise', 'not-compared'], false)).toBe('better');
    expect(configVerdict(['better', 'worse'], false)).toBe('mixed');
    expect(configVerdict(['within-noise'], false)).toBe('no-difference');
    expect(configVerdict(['not-compared'], false)).toBe('not-comparable');
    expect(configVerdict(['same-run'], true)).toBe('same-run');
    expect(overallVerdict(['better', 'no-difference', 'not-comparable'], false)).toBe('better');
    expect(overallVerdict(['better', 'worse'], false)).toBe('mixed');
    expect(overallVerdict(['worse', 'mixed'], false)).toBe('mixed');
    expect(overallVerdict(['same-run', 'no-difference'], false)).toBe('no-difference');
    expect(overallVerdict(['same-run'], false)).toBe('same-run');
    expect(overallVerdict([], true)).toBe('same-run');
    expect(overallVerdict(['not-comparable'], false)).toBe('not-comparable');
  });

  it('same run: the same run ids and the same results; same ids with other results are two runs', () => {
    expect(sameRunOf(base, base)).toBe('same');
    expect(sameRunOf(base, base.slice(1))).toBe('same');
    expect(sameRunOf(base, scaled(1, 'other'))).toBe('different');
    expect(sameRunOf(base, scaled(1.1, 'old'))).toBe('conflict');
  });
});

describe('compareConfig against the spread', () => {
  it('a gain inside the assumed 2% is reported but is no difference', () => {
    const c = compareConfig(scaled(1.015, 'new'), base, { at: [40, 70, 100] });
    expect(c.matched.map((m) => m.gainPct?.toFixed(6))).toEqual(['1.500000', '1.500000', '1.500000']);
    expect(c.matched.map((m) => m.verdict)).toEqual(['within-noise', 'within-noise', 'within-noise']);
    expect(c.verdict).toBe('no-difference');
    expect(c.noise.source).toBe('assumed');
  });

  it('--noise below the gain makes it better; a measured spread above it makes it no difference', () => {
    const run = scaled(1.025, 'new');
    expect(compareConfig(run, base, { at: [70], noisePct: 1 }).verdict).toBe('better');
    expect(compareConfig(run, base, { at: [70] }).verdict).toBe('better');
    // Repeats of the baseline 3% apart: +2.5% is inside that.
    const c = compareConfig(run, base, { at: [70], repeats: scaled(1.03, 'old2') });
    expect(c.noise).toMatchObject({ source: 'measured', repeats: 4, runs: 2 });
    expect(c.verdict).toBe('no-difference');
  });

  it('mixed: clearly better at low interactivity, clearly worse at high', () => {
    const run = curve(
      [
        [100, 900],
        [40, 3300],
      ],
      { runId: 'new' },
    );
    const c = compareConfig(run, base, { at: [40, 70, 100] });
    // At 70: baseline 2000, run 2100 → +5%; at 40 +10%, at 100 −10%: the mean (+1.7%) would hide it.
    expect(c.matched.map((m) => m.verdict)).toEqual(['better', 'better', 'worse']);
    expect(c.verdict).toBe('mixed');
  });

  it('same run: gains of zero, no point better, verdict same-run', () => {
    const c = compareConfig(base, base);
    expect(c.verdict).toBe('same-run');
    expect(c.matched.every((m) => m.verdict === 'same-run' && m.gainPct === 0)).toBe(true);
  });
});

describe('compareRuns', () => {
  it('the run’s own results are dropped from the repeats; the report says what was searched', () => {
    const stored = [...scaled(1.03, 'old2'), ...scaled(1.2, 'new')];
    const r = compareRuns(
      { label: 'new', runIds: ['new'], points: scaled(1.2, 'new') },
      { label: 'old', runIds: ['old'], points: base },
      { repeats: stored },
    );
    expect(CompareReportSchema.parse(r)).toEqual(r);
    expect(r.noise).toEqual({ flagPct: null, assumedPct: 2, storedRuns: true });
    expect(r.configs[0]?.noise.thresholdPct).toBeCloseTo((100 * 30) / 1015, 12);
    expect(r.verdict).toBe('better');
    const same = compareRuns(
      { label: 'runs/old', runIds: ['old'], points: base },
      { label: 'old', runIds: ['old'], points: base },
    );
    expect(same.verdict).toBe('same-run');
    expect(same.noise.storedRuns).toBe(false);
  });
});
