import { describe, expect, it } from 'vitest';
import { curvePoint, identity } from '../../test/support/curve-points.ts';
import type { ConfigIdentity } from '../schema/curve.ts';
import { FrontierCompareReportSchema } from '../schema/frontier-compare.ts';
import { compareToFrontier, frontierPoolOf } from './compare-frontier.ts';

/**
 * compareToFrontier on hand-made points: which baseline points make the frontier (invalid points and other
 * groups never do; other frameworks of the group do), a one-knot frontier, the p90 statistic.
 */

const TP4 = identity({ prefill: pool(4), decode: pool(4) });
function pool(tp: number) {
  return { tp, ep: 1, dpAttn: false, pp: 1, dcp: 1, pcp: 1, workers: 0, gpus: tp };
}
const at = (config: ConfigIdentity, runId: string, pts: [number, number, boolean?][]) =>
  pts.map(([intvty, tput, valid], k) => curvePoint({ config, runId, conc: 2 ** k, intvty, tput, valid }));
const side = (label: string, points: ReturnType<typeof at>) => ({
  label,
  runIds: [...new Set(points.map((p) => p.runId))],
  points,
});

describe('compareToFrontier', () => {
  // TP8 (20, 3000), (60, 1000): two knots, so a straight line (both tangents are the slope, −50).
  const tp8 = at(identity(), 'base', [
    [20, 3000],
    [60, 1000],
  ]);

  it('an invalid baseline point is not on the frontier, and an invalid run point is not compared', () => {
    // TP4's (40, 5000) failed the validity gate. Were it counted, 40 would be a knot at 5000 (−50%);
    // without it the frontier at 40 is 3000 − 50·20 = 2000, and the run's 2500 is +25%.
    const base = [...tp8, ...at(TP4, 'base', [[40, 5000, false]])];
    const run = at(identity({ disagg: true, multiNode: true }), 'pr', [
      [40, 2500],
      [50, 9999, false],
    ]);
    const r = compareToFrontier(side('pr', run), side('base', base));
    expect(FrontierCompareReportSchema.parse(r)).toEqual(r);
    const c = r.configs[0]!;
    expect(c.frontier?.knots.map((k) => [k.interactivity, k.tputPerGpu])).toEqual([
      [20, 3000],
      [60, 1000],
    ]);
    expect(c.frontier?.configs.map((k) => [k.validPoints, k.frontPoints])).toEqual(
      expect.arrayContaining([
        [0, 0],
        [2, 2],
      ]),
    );
    expect(c.points).toHaveLength(1);
    expect(c.points[0]?.frontierTputPerGpu).toBeCloseTo(2000, 9);
    expect(c.points[0]?.gainPct).toBeCloseTo(25, 9);
    // Max 2500 (the invalid 9999 left out) against 3000: −16.67%.
    expect(c.maxTputChangePct).toBeCloseTo((100 * (2500 - 3000)) / 3000, 9);
    expect(c.notes).toContain('1 invalid point of the run left out (failed the validity gate)');
  });

  it('other frameworks of the group are on the frontier; other precisions and workloads are not', () => {
    // vLLM TP8 at (40, 2400) is in the group: the frontier is (20, 3000), (40, 2400), (60, 1000), and 40 is
    // a knot. FP4 and 8k/1k at (40, 9000) are other groups.
    const base = [
      ...tp8,
      ...at(identity({ framework: 'vllm' }), 'base', [[40, 2400]]),
      ...at(identity({ precision: 'fp4' }), 'base', [[40, 9000]]),
      ...at(identity({ isl: 8192 }), 'base', [[40, 9000]]),
    ];
    const run = at(TP4, 'pr', [[40, 3000]]);
    expect(frontierPoolOf(run, base)).toHaveLength(3);
    const c = compareToFrontier(side('pr', run), side('base', base)).configs[0]!;
    expect(c.frontier?.knots.map((k) => k.interactivity)).toEqual([20, 40, 60]);
    expect(c.frontier?.configs).toHaveLength(2);
    expect(c.points[0]).toMatchObject({ atKnot: true, frontierTputPerGpu: 2400, status: 'ok' });
    expect(c.points[0]?.gainPct).toBeCloseTo(25, 9);
  });

  it('a one-point frontier: only its own interactivity is inside it', () => {
    const base = at(identity(), 'base', [[40, 2000]]);
    const run = at(TP4, 'pr', [
      [40, 2100],
      [41, 2000],
      [39, 2000],
    ]);
    const c = compareToFrontier(side('pr', run), side('base', base)).configs[0]!;
    expect(c.points.map((p) => [p.interactivity, p.status, p.side])).toEqual([
      [39, 'outside-frontier', 'below'],
      [40, 'ok', null],
      [41, 'outside-frontier', 'above'],
    ]);
    expect(c.points[1]?.gainPct).toBeCloseTo(5, 9);
    expect(c.notes).toContain(
      'outside the frontier (40–40 tok/s/user), not compared (never extrapolated): 39, 41 tok/s/user',
    );
  });

  it('p90 interactivity: the frontier and the points are read at p90', () => {
    // curvePoint's p90 is 0.9 × the median: the frontier is (18, 3000), (54, 1000), the run point is at 36,
    // half way: 2000, and 2500 is +25%.
    const run = at(TP4, 'pr', [[40, 2500]]);
    const r = compareToFrontier(side('pr', run), side('base', tp8), { stat: 'p90' });
    expect(r.interactivityStat).toBe('p90');
    const c = r.configs[0]!;
    expect(c.frontier?.interactivity).toEqual([18, 54]);
    expect(c.points[0]?.interactivity).toBeCloseTo(36, 9);
    expect(c.points[0]?.gainPct).toBeCloseTo(25, 9);
  });

  it('the run against itself says so', () => {
    const r = compareToFrontier(side('base', tp8), side('base', tp8));
    expect(r.notes).toEqual([
      'the run and the baseline are the same run: each config is compared with a frontier it is on or under',
    ]);
    expect(r.configs[0]?.points.map((p) => p.gainPct)).toEqual([0, 0]);
  });
});
