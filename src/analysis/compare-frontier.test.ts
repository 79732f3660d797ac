import { describe, expect, it } from 'vitest';
import { curvePoint, identity } from '../../test/support/curve-points.ts';
import type { AgenticConfig, AgenticCurvePoint } from '../schema/agentic-curve.ts';
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

describe('compareToFrontier on agentic configs (user thread 000: AgentX at matched generation interactivity)', () => {
  const { isl: _isl, osl: _osl, ...deployment } = identity();
  const agenticConfig = (over: Partial<AgenticConfig> = {}): AgenticConfig => ({
    ...deployment,
    benchmarkType: 'agentic_traces',
    kvOffload: 'none',
    ...over,
  });
  const agentic = (
    config: AgenticConfig,
    runId: string,
    pts: [users: number, genIntvtyP90: number, tput: number][],
  ): AgenticCurvePoint[] =>
    pts.map(([users, intvty, tput]) => ({
      runId,
      pointId: `${runId}-${users}`,
      attempt: 1,
      configKey: `${config.hardware}|${config.decode.tp}|${config.disagg}|agentic_traces|kv${config.kvOffload}`,
      config,
      engine: { kind: 'real', simulator: null },
      users,
      gpus: 8,
      image: 'img',
      createdAt: '2026-10-09T00:00:00Z',
      valid: true,
      metrics: {
        // Far from the generation interactivity, so a comparison on the wrong axis cannot pass.
        e2eNormIntvty: { p50: intvty / 10, p90: intvty / 20 },
        intvtyP90: intvty,
        ttftP90Ms: 1000,
        tputPerGpu: tput,
        outputTputPerGpu: tput / 10,
        inputTputPerGpu: (9 * tput) / 10,
        theoreticalCacheHitRate: 0.9,
        serverCacheHitRate: 0.8,
        submissionValid: true,
      },
    }));
  // The published curve: TP8 and packed TP4 aggregation, the fixture's numbers (frontier-fixture.ts):
  // knots (20, 3000), (40, 2400), (60, 1600), (80, 1000); Steffen gives 2000 at 50 and 1281.25 at 70.
  const tp8 = agenticConfig();
  const packed = agenticConfig({ decode: pool(4), prefill: pool(4), kvOffload: 'dram' });
  const published = [
    ...agentic(tp8, 'base', [
      [64, 20, 3000],
      [32, 40, 2400],
      [16, 50, 1500],
    ]),
    ...agentic(packed, 'base', [
      [64, 30, 2000],
      [16, 60, 1600],
      [4, 80, 1000],
    ]),
  ];
  // P4/3D4: one TP4 prefill worker, three TP4 decode workers.
  const disagg = agenticConfig({
    disagg: true,
    multiNode: true,
    prefill: { ...pool(4), workers: 1 },
    decode: { ...pool(4), workers: 3 },
  });

  it('gives the interpolated gain at each point, says where it would extrapolate, and never mixes workloads', () => {
    const run = agentic(disagg, 'pr', [
      [64, 50, 2760],
      [32, 70, 2242.1875],
      [8, 100, 900],
    ]);
    // A fixed-seq-len baseline config of the same deployment: never on an agentic frontier.
    const fixed = at(identity(), 'base', [[50, 99_999]]);
    const r = compareToFrontier(
      { label: 'pr', runIds: ['pr'], points: [], agentic: run },
      { label: 'base', runIds: ['base'], points: fixed, agentic: published },
    );
    expect(FrontierCompareReportSchema.parse(r)).toEqual(r);
    expect(r.configs).toHaveLength(1);
    const c = r.configs[0]!;
    expect(c.group).toMatchObject({ workload: 'agentic_traces', isl: null, osl: null });
    expect(c.axis).toEqual({ metric: 'generation-interactivity', stat: 'p90' });
    expect(c.label).toBe('dsr1 agentic h200 sglang fp8 1×tp4+3×tp4 disagg kvnone');
    expect(c.frontier?.configs.map((k) => k.frontPoints).sort()).toEqual([2, 2]);
    const [p64, p32, p8] = [...c.points].sort((a, b) => b.conc - a.conc);
    expect(p64?.frontierTputPerGpu).toBeCloseTo(2000, 9);
    expect(p64?.gainPct).toBeCloseTo(38, 9);
    expect(p32?.frontierTputPerGpu).toBeCloseTo(1281.25, 9);
    expect(p32?.gainPct).toBeCloseTo(75, 9);
    expect(p8).toMatchObject({ status: 'outside-frontier', side: 'above', gainPct: null });
    expect(c.maxTputChangePct).toBeCloseTo(-8, 9);
  });

  it('the official baseline narrows to the run’s agentic groups, fixed and agentic apart', () => {
    const other = agenticConfig({ hardware: 'b200' });
    const pool = [...published, ...agentic(other, 'old', [[8, 10, 10]])];
    const run = agentic(disagg, 'pr', [[64, 50, 2760]]);
    expect(frontierPoolOf(run, pool)).toEqual(published);
    expect(frontierPoolOf(run, at(identity(), 'base', [[50, 1]]))).toEqual([]);
  });
});
