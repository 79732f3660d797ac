import { describe, expect, it } from 'vitest';
import { curve, curvePoint, identity } from '../../test/support/curve-points.ts';
import { buildChart, PALETTE } from './chart.ts';

const fp4 = identity({ precision: 'fp4' });
const runA = {
  label: 'runs/a',
  runIds: ['a'],
  points: [
    ...curve(
      [
        [100, 500],
        [80, 1200],
        [90, 900],
      ],
      { runId: 'a', e2elMs: 1000, ttftMs: 40 },
    ),
    ...curve(
      [
        [60, 4000],
        [50, 5000],
      ],
      { runId: 'a', config: fp4 },
    ),
  ],
};

describe('buildChart', () => {
  it('one series per config, points sorted by x, the front, the palette', () => {
    const c = buildChart([runA]);
    expect(c.series.map((s) => s.label)).toEqual(['h200 sglang fp4 tp8', 'h200 sglang fp8 tp8']);
    expect(c.series.map((s) => s.color)).toEqual([PALETTE[0], PALETTE[1]]);
    const fp8 = c.series[1]!;
    expect(fp8.id).toBe(`a|${runA.points[0]!.configKey}`);
    expect(fp8.points.map((p) => [p.x, p.y, p.conc])).toEqual([
      [80, 1200, 2],
      [90, 900, 4],
      [100, 500, 1],
    ]);
    expect(fp8.front).toEqual([
      { x: 80, y: 1200 },
      { x: 90, y: 900 },
      { x: 100, y: 500 },
    ]);
    expect(c.title).toBe('Throughput per GPU vs. Interactivity');
    expect(c.subtitle).toBe('dsr1 1k/1k · median interactivity · runs/a');
    expect(c.x).toMatchObject({
      label: 'Interactivity',
      unit: 'tok/s/user',
      scale: 'linear',
      direction: 'max',
    });
    expect(c.y).toMatchObject({ label: 'Throughput per GPU', unit: 'tok/s', domain: [0, 6000] });
  });

  it('axis domains come from visible series only (pitfall 8)', () => {
    const all = buildChart([runA]);
    const hideFp4 = buildChart([runA], { hidden: [all.series[0]!.id] });
    expect(all.y.domain[1]).toBeGreaterThanOrEqual(5000);
    expect(hideFp4.y.domain[1]).toBeLessThan(2000);
    expect(hideFp4.x.domain[0]).toBeGreaterThan(60);
    expect(hideFp4.series[0]!.hidden).toBe(true);
  });

  it('runs overlay: the run id joins the label, ids stay unique', () => {
    const b = { label: 'runs/b', runIds: ['b'], points: curve([[95, 700]], { runId: 'b' }) };
    const c = buildChart([runA, b, runA]);
    expect(c.series.map((s) => s.label)).toContain('h200 sglang fp8 tp8 (b)');
    expect(new Set(c.series.map((s) => s.id)).size).toBe(c.series.length);
  });

  it('a simulated series says so in its label and the notes; it never merges with the real one', () => {
    const sim = { kind: 'simulated', simulator: 'infx-sim/0.1.0+m2' } as const;
    const pts = [...curve([[80, 900]]), ...curve([[80, 1000]], { engine: sim })];
    const c = buildChart([{ label: 'r', runIds: ['run'], points: pts }]);
    expect(c.series.map((s) => [s.label, s.engine, s.simulators])).toEqual([
      ['h200 sglang fp8 tp8', 'real', []],
      ['h200 sglang fp8 tp8 (simulated)', 'simulated', ['infx-sim/0.1.0+m2']],
    ]);
    expect(c.notes).toContain(
      "1 of 2 series simulated (infx's simulated engine infx-sim/0.1.0+m2), not measured on real hardware",
    );
    const b = { label: 'runs/b', runIds: ['b'], points: curve([[95, 700]], { runId: 'b', engine: sim }) };
    expect(buildChart([b, b]).series[0]!.label).toBe('h200 sglang fp8 tp8 (b, simulated)');
  });

  it('latency x axis in seconds; log y drops non-positive values; invalid points are not drawn', () => {
    const pts = [
      curvePoint({ conc: 1, intvty: 100, tput: 500, e2elMs: 900 }),
      curvePoint({ conc: 2, intvty: 90, tput: 0, e2elMs: 1000 }),
      curvePoint({ conc: 4, intvty: 80, tput: 1500, e2elMs: 1800, valid: false }),
    ];
    const c = buildChart([{ label: 'r', runIds: ['run'], points: pts }], { x: 'e2el', yScale: 'log' });
    expect(c.x).toMatchObject({ label: 'End-to-end latency', unit: 's', direction: 'min' });
    expect(c.series[0]!.points.map((p) => p.x)).toEqual([0.9]);
    expect(c.y.scale).toBe('log');
    expect(c.y.domain[0]).toBeGreaterThan(0);
    expect(c.notes[0]).toBe('2 points not drawn: 1 invalid, 1 without e2el or a positive throughput');
    expect(c.leftOut).toMatchObject({ invalid: 1, noValue: 1 });
  });

  it('several workloads: the workload joins the label', () => {
    const other = identity({ isl: 8192 });
    const c = buildChart([
      { label: 'r', runIds: ['r'], points: [...curve([[50, 1]]), ...curve([[50, 2]], { config: other })] },
    ]);
    expect(c.series.map((s) => s.label)).toEqual([
      'dsr1 1k/1k h200 sglang fp8 tp8',
      'dsr1 8k/1k h200 sglang fp8 tp8',
    ]);
    expect(c.subtitle).not.toContain('1k/1k');
  });

  it('an empty chart still has axes and says why', () => {
    const c = buildChart([{ label: 'r', runIds: ['r'], points: [] }]);
    expect(c.series).toEqual([]);
    expect(c.notes).toContain('no valid points to draw');
    expect(c.x.domain).toEqual([0, 1]);
  });

  it('past the palette, colours repeat with dashed fronts', () => {
    const pts = Array.from({ length: PALETTE.length + 1 }, (_, k) =>
      curvePoint({ intvty: 50, tput: 100 + k, config: identity({ osl: 100 + k }) }),
    );
    const c = buildChart([{ label: 'r', runIds: ['run'], points: pts }]);
    expect(c.series.at(-1)).toMatchObject({ color: PALETTE[0], dashed: true });
  });

  it('compare style: a config keeps its colour in every run, each run its own line', () => {
    const side = (runId: string, configs: ReturnType<typeof identity>[]) => ({
      label: runId,
      runIds: [runId],
      points: configs.map((config, k) => curvePoint({ runId, intvty: 50 + k, tput: 100, config })),
    });
    const bf16 = identity();
    // The baseline lists its configs in another order and has one the run lacks: colours still pair up.
    const inputs = [side('run', [fp4, bf16]), side('base', [bf16, fp4]), side('third', [fp4])];
    const c = buildChart(inputs, { styleBy: 'config-and-run' });
    const style = (runId: string, key: string) => {
      const s = c.series.find((x) => x.runId === runId && x.configKey === key);
      return s && { color: s.color, line: s.line };
    };
    const [a, b] = [c.series[0]!.configKey, c.series[1]!.configKey];
    expect(style('run', a)).toEqual({ color: PALETTE[0], line: 'solid' });
    expect(style('base', a)).toEqual({ color: PALETTE[0], line: 'dashed' });
    expect(style('third', a)).toEqual({ color: PALETTE[0], line: 'dotted' });
    expect(style('run', b)).toEqual({ color: PALETTE[1], line: 'solid' });
    expect(style('base', b)).toEqual({ color: PALETTE[1], line: 'dashed' });
    // The default colours each series on its own.
    const plain = buildChart(inputs);
    expect(new Set(plain.series.map((s) => s.color)).size).toBe(plain.series.length);
    expect(plain.series.every((s) => s.line === 'solid')).toBe(true);
  });
});
