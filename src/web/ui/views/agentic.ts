import type { AgenticCurvePoint } from '../../../schema/agentic-curve.ts';
import type { RunStatus } from '../../../schema/store.ts';
import { getJson } from '../api.ts';
import { AGENTIC_X_AXES, type AgenticXAxis, agenticChart, curveName } from '../components/agentic-chart.ts';
import { appLink, clear, h } from '../dom.ts';
import type { View } from './view.ts';

/**
 * `/agentic`: agentic-coding curves (benchmark type agentic_traces): throughput per GPU against
 * E2E-normalized interactivity P90 (the reference's headline), generation interactivity P90 or TTFT P90
 * (`?x=`), with a table of every point's figures and cache hit rates. The status is `?status=`.
 */

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null, d = 1) => (v === null ? '—' : v.toFixed(d));

export function agenticView(root: HTMLElement): View {
  const params = new URLSearchParams(location.search);
  let axis: AgenticXAxis = (params.get('x') as AgenticXAxis | null) ?? 'e2e';
  if (!(axis in AGENTIC_X_AXES)) axis = 'e2e';
  const status = (params.get('status') as RunStatus | null) ?? 'official';
  const note = h('p', { class: 'status', role: 'status' }, 'Loading…');
  const body = h('div');
  const view = h('div', { class: 'view agentic' }, note, body);
  root.append(view);
  let live = true;
  let points: AgenticCurvePoint[] = [];

  const setUrl = () => {
    const q = new URLSearchParams(location.search);
    q.set('x', axis);
    history.replaceState(null, '', `${location.pathname}?${q}`);
  };

  function render(): void {
    clear(body);
    const select = h(
      'select',
      {
        'aria-label': 'X axis',
        'data-testid': 'agentic-x',
        onchange: (e: Event) => {
          axis = (e.currentTarget as HTMLSelectElement).value as AgenticXAxis;
          setUrl();
          render();
        },
      },
      (Object.keys(AGENTIC_X_AXES) as AgenticXAxis[]).map((k) =>
        h('option', { value: k, selected: k === axis }, AGENTIC_X_AXES[k].label),
      ),
    );
    const rows = points.map((p) =>
      h(
        'tr',
        { 'data-point': p.pointId },
        h('td', null, curveName(p)),
        h(
          'td',
          null,
          p.engine.kind === 'simulated' ? h('span', { class: 'badge simulated' }, 'simulated') : 'real',
        ),
        h('td', { class: 'metric' }, p.users),
        h('td', { class: 'metric' }, num(p.metrics.tputPerGpu)),
        h('td', { class: 'metric' }, num(p.metrics.e2eNormIntvty.p50)),
        h('td', { class: 'metric' }, num(p.metrics.e2eNormIntvty.p90)),
        h('td', { class: 'metric' }, num(p.metrics.intvtyP90)),
        h('td', { class: 'metric' }, num(p.metrics.ttftP90Ms, 0)),
        h('td', { class: 'metric', 'data-col': 'theoretical-hit' }, pct(p.metrics.theoreticalCacheHitRate)),
        h('td', { class: 'metric', 'data-col': 'server-hit' }, pct(p.metrics.serverCacheHitRate)),
        h('td', null, p.metrics.submissionValid === null ? '—' : p.metrics.submissionValid ? 'yes' : 'no'),
        h(
          'td',
          null,
          appLink(
            `/runs/${encodeURIComponent(p.runId)}?timeline=${encodeURIComponent(p.pointId)}#timeline`,
            'timeline',
          ),
        ),
      ),
    );
    body.append(
      h('section', { class: 'card' }, h('label', null, 'X axis ', select), agenticChart(points, axis)),
      h(
        'section',
        { class: 'card' },
        h(
          'table',
          { class: 'table agentic-points' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              [
                'Config',
                'Engine',
                'Users',
                'Tput/GPU',
                'E2E intvty P50',
                'E2E intvty P90',
                'Gen intvty P90',
                'TTFT P90 ms',
                'Theoretical cache hit',
                'Server cache hit',
                'Submission valid',
                'Session',
              ].map((t) => h('th', null, t)),
            ),
          ),
          h('tbody', null, rows),
        ),
      ),
    );
  }

  getJson<AgenticCurvePoint[]>('/api/agentic-points', { status }).then(
    (ps) => {
      if (!live) return;
      points = ps;
      note.textContent = ps.length === 0 ? `no agentic points among the ${status} runs` : '';
      render();
    },
    (err: Error) => {
      if (!live) return;
      note.className = 'status error';
      note.textContent = `Error: ${err.message}`;
    },
  );
  return {
    dispose() {
      live = false;
    },
  };
}
