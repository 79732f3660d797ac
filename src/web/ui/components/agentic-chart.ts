import type { AgenticCurvePoint } from '../../../schema/agentic-curve.ts';
import { h } from '../dom.ts';
import { s, scale, ticks } from './svg.ts';

/**
 * The agentic view's chart: one line per agentic_traces config through its points by number of users;
 * throughput per GPU against the chosen x axis (E2E-normalized interactivity p90 by default). A point
 * without a value for the axis is left out and counted, never drawn at zero. Simulated curves are dashed
 * and say "simulated" in their label and tooltip.
 */

export const AGENTIC_X_AXES = {
  e2e: {
    label: 'E2E-normalized interactivity P90 (tok/s/user)',
    of: (p: AgenticCurvePoint) => p.metrics.e2eNormIntvty.p90,
  },
  intvty: {
    label: 'Generation interactivity P90 (tok/s/user)',
    of: (p: AgenticCurvePoint) => p.metrics.intvtyP90,
  },
  ttft: { label: 'TTFT P90 (ms)', of: (p: AgenticCurvePoint) => p.metrics.ttftP90Ms },
} as const;
export type AgenticXAxis = keyof typeof AGENTIC_X_AXES;

const W = 900;
const H = 420;
const M = { left: 70, right: 20, top: 16, bottom: 48 };
const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#4d7c0f', '#be185d'];

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null, d = 1) => (v === null ? '—' : v.toFixed(d));

export const curveName = (p: AgenticCurvePoint): string => {
  const c = p.config;
  const sim = p.engine.kind === 'simulated' ? ' (simulated)' : '';
  return `${c.model} ${c.hardware} ${c.framework} ${c.precision} tp${c.decode.tp} kv${c.kvOffload}${sim}`;
};

/** The tooltip of a point: every agentic figure, cache hit rates included. */
export function pointTitle(p: AgenticCurvePoint): string {
  const m = p.metrics;
  return [
    curveName(p),
    `users ${p.users}`,
    `throughput/GPU ${num(m.tputPerGpu)} tok/s`,
    `E2E-norm. interactivity P50 ${num(m.e2eNormIntvty.p50)} · P90 ${num(m.e2eNormIntvty.p90)}`,
    `generation interactivity P90 ${num(m.intvtyP90)}`,
    `TTFT P90 ${num(m.ttftP90Ms, 0)} ms`,
    `theoretical cache hit ${pct(m.theoreticalCacheHitRate)} · server cache hit ${pct(m.serverCacheHitRate)}`,
    m.submissionValid === false ? 'not a valid submission' : '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

export function agenticChart(points: readonly AgenticCurvePoint[], axis: AgenticXAxis): HTMLElement {
  const x = AGENTIC_X_AXES[axis].of;
  const drawn = points.filter((p) => x(p) !== null && p.metrics.tputPerGpu !== null);
  const curves = new Map<string, AgenticCurvePoint[]>();
  for (const p of drawn) curves.set(p.configKey, [...(curves.get(p.configKey) ?? []), p]);
  const xs = drawn.map((p) => x(p)!);
  const ys = drawn.map((p) => p.metrics.tputPerGpu!);
  const [x0, x1] = [Math.min(0, ...xs), Math.max(1, ...xs)];
  const y1 = Math.max(1, ...ys);
  const sx = scale(x0, x1, M.left, W - M.right);
  const sy = scale(0, y1, H - M.bottom, M.top);
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${H}`,
    width: '100%',
    role: 'img',
    'aria-label': 'agentic chart',
  });
  for (const t of ticks(x0, x1))
    svg.append(
      s('line', { x1: sx(t), x2: sx(t), y1: M.top, y2: H - M.bottom, class: 'grid', stroke: '#e5e7eb' }),
      s('text', { x: sx(t), y: H - M.bottom + 16, 'text-anchor': 'middle', 'font-size': 11 }, String(t)),
    );
  for (const t of ticks(0, y1))
    svg.append(
      s('line', { x1: M.left, x2: W - M.right, y1: sy(t), y2: sy(t), class: 'grid', stroke: '#e5e7eb' }),
      s('text', { x: M.left - 6, y: sy(t) + 4, 'text-anchor': 'end', 'font-size': 11 }, String(t)),
    );
  svg.append(
    s(
      'text',
      { x: (M.left + W - M.right) / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis-title' },
      AGENTIC_X_AXES[axis].label,
    ),
    s(
      'text',
      {
        x: 14,
        y: (M.top + H - M.bottom) / 2,
        'text-anchor': 'middle',
        class: 'axis-title',
        transform: `rotate(-90 14 ${(M.top + H - M.bottom) / 2})`,
      },
      'Throughput per GPU (tok/s/GPU)',
    ),
  );
  let i = 0;
  const legend = h('ul', { class: 'legend agentic-legend' });
  for (const [key, ps] of curves) {
    const color = COLORS[i++ % COLORS.length]!;
    const sorted = [...ps].sort((a, b) => a.users - b.users);
    const sim = sorted[0]!.engine.kind === 'simulated';
    const g = s('g', { class: 'series', 'data-config': key, 'data-engine': sorted[0]!.engine.kind });
    g.append(
      s('polyline', {
        points: sorted.map((p) => `${sx(x(p)!)},${sy(p.metrics.tputPerGpu!)}`).join(' '),
        fill: 'none',
        stroke: color,
        'stroke-width': 2,
        ...(sim ? { 'stroke-dasharray': '6 4' } : {}),
      }),
    );
    for (const p of sorted)
      g.append(
        s(
          'circle',
          {
            class: 'point',
            cx: sx(x(p)!),
            cy: sy(p.metrics.tputPerGpu!),
            r: 4,
            fill: color,
            'data-users': p.users,
          },
          s('title', {}, pointTitle(p)),
        ),
      );
    svg.append(g);
    legend.append(
      h(
        'li',
        { class: `legend-item${sim ? ' simulated' : ''}`, 'data-engine': sorted[0]!.engine.kind },
        h('span', { style: `color:${color}` }, '■ '),
        h('span', { class: 'legend-label' }, curveName(sorted[0]!)),
      ),
    );
  }
  const left = points.length - drawn.length;
  return h(
    'div',
    { class: 'agentic-chart', 'data-testid': 'agentic-chart', 'data-points': drawn.length },
    svg,
    legend,
    left > 0
      ? h(
          'p',
          { class: 'muted' },
          `${left} point${left === 1 ? '' : 's'} without a value for this axis, not drawn`,
        )
      : null,
  );
}
