import { describe, expect, it } from 'vitest';
import { curve, curvePoint } from '../../test/support/curve-points.ts';
import { accelerator } from '../catalog/index.ts';
import { yAxisSpec } from './axes.ts';
import { buildChart } from './chart.ts';
import { renderSvg } from './svg.ts';

/** The chart's options for the dashboard: other y metrics, front-only points, run labels, SVG hooks. */

const points = curve(
  [
    [100, 500],
    [80, 1200],
    [90, 900],
    [95, 400],
  ],
  { runId: 'r1' },
);

describe('y metrics', () => {
  it('cost per million tokens: lower is better, the front flips, the catalog price or an override', () => {
    const c = buildChart([{ label: 'r', runIds: ['r1'], points }], { y: 'cost', pricePerGpuHour: 3.6 });
    expect(c.title).toBe('Cost per million tokens vs. Interactivity');
    expect(c.y).toMatchObject({ unit: '$/M tokens', direction: 'min', valueUnit: '$/M tokens' });
    const s = c.series[0]!;
    // $3.6/h at 1000 tok/s = $1/M tokens.
    expect(s.points.find((p) => p.conc === 2)!.y).toBeCloseTo((3.6 / (1200 * 3600)) * 1e6, 12);
    // Interactivity up, cost down: (95, 400 tok/s) is dominated by (100, 500 tok/s).
    expect(s.points.filter((p) => p.onFront).map((p) => p.x)).toEqual([80, 90, 100]);
    const h200 = accelerator('h200').pricePerGpuHour!;
    expect(yAxisSpec('cost').value(points[0]!, 'median')).toBeCloseTo((h200 / (500 * 3600)) * 1e6, 12);
  });

  it('output and input throughput; energy only where measured', () => {
    const out = buildChart([{ label: 'r', runIds: ['r1'], points }], { y: 'output' });
    expect(out.series[0]!.points.map((p) => p.y)).toEqual([600, 450, 200, 250]);
    const e = buildChart(
      [{ label: 'r', runIds: ['r1'], points: [curvePoint({ intvty: 50, tput: 100, joules: 2 }), ...points] }],
      { y: 'energy' },
    );
    expect(e.y.unit).toBe('J/token');
    expect(e.series[0]!.points).toHaveLength(1);
    expect(e.notes[0]).toBe('4 points not drawn: 4 without interactivity or energy per output token');
  });
});

describe('dashboard options', () => {
  it('front only, hidden configs, run labels off; points carry their run', () => {
    const c = buildChart([{ label: 'r', runIds: ['r1'], points }], { frontOnly: true });
    expect(c.series[0]!.points.map((p) => [p.x, p.runId])).toEqual([
      [80, 'r1'],
      [90, 'r1'],
      [100, 'r1'],
    ]);
    const hidden = buildChart([{ label: 'r', runIds: ['r1'], points }], {
      hiddenConfigs: [points[0]!.configKey],
    });
    expect(hidden.series[0]!.hidden).toBe(true);
    const other = curve([[50, 10]], { runId: 'r2' });
    const mixed = buildChart([{ label: 'latest', runIds: [], points: [...points, ...other] }], {
      runLabels: false,
    });
    expect(mixed.series[0]!.label).toBe('h200 sglang fp8 tp8');
  });

  it('SVG: data attributes per point, no legend or point titles on request', () => {
    const c = buildChart([{ label: 'r', runIds: ['r1'], points }]);
    const full = renderSvg(c);
    expect(full).toContain('data-run="r1" data-point="r1-c1"><title>');
    expect(full).toContain('class="legend"');
    const bare = renderSvg(c, { legend: false, pointTitles: false });
    expect(bare).not.toContain('class="legend"');
    expect(bare).toContain('data-point="r1-c1"></circle>');
  });
});
