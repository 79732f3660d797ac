import {
  axisTitle,
  CHART_STATS,
  type ChartStat,
  SHORT_LABEL,
  STAT_LABEL,
  X_AXES,
  X_AXIS,
  type XAxis,
} from '../../../analysis/axes.ts';
import type { CompareReport } from '../../../schema/compare-report.ts';
import type { FrontierCompareReport } from '../../../schema/frontier-compare.ts';
import type { StoredRun } from '../../../schema/store.ts';
import type { ComparePointsResponse } from '../../../schema/web-api.ts';
import { getJson, queryString } from '../api.ts';
import { ChartPanel } from '../chart-panel.ts';
import { selectField } from '../components/select.ts';
import { append, clear, h } from '../dom.ts';
import { when } from '../format.ts';
import { frontierReportContent } from './compare-frontier-report.ts';
import { reportContent } from './compare-report.ts';
import type { View } from './view.ts';

/**
 * `/compare?run=&baseline=[&against=frontier]`: both curves in one chart and, per config, the comparison at
 * matched interactivity from the compare report (compare-report.ts), or against the frontier of all the
 * baseline's configs of the config's model, precision, hardware and workload (compare-frontier-report.ts).
 */

type Against = 'config' | 'frontier';

export function compareView(root: HTMLElement): View {
  const params = new URLSearchParams(location.search);
  let run = params.get('run') ?? '';
  let baseline = params.get('baseline') || 'official';
  let stat: ChartStat = params.get('interactivity') === 'p90' ? 'p90' : 'median';
  let against: Against = params.get('against') === 'frontier' ? 'frontier' : 'config';
  let x: XAxis = 'interactivity';
  let hidden: string[] = [];
  let sides: ComparePointsResponse | null = null;
  let seq = 0;

  const controls = h('section', { class: 'card filters' });
  const status = h('p', { class: 'status', role: 'status' });
  const panel = new ChartPanel(
    {
      onToggle: (s) => {
        hidden = hidden.includes(s.id) ? hidden.filter((i) => i !== s.id) : [...hidden, s.id];
        draw();
      },
      onShowAll: () => {
        hidden = [];
        draw();
      },
    },
    440,
  );
  const chartCard = h('section', { class: 'card chart-card', hidden: true }, panel.el);
  const report = h('div', { class: 'report' });
  root.append(h('div', { class: 'view compare' }, controls, status, chartCard, report));

  function draw(): void {
    if (sides === null) return;
    panel.render({
      inputs: [sides.run, sides.baseline],
      // A config keeps its colour on both sides; the run is solid, the baseline dashed.
      options: { x, stat, runLabels: true, hidden, styleBy: 'config-and-run' },
    });
  }

  function renderControls(runs: StoredRun[]): void {
    clear(controls);
    const field = (
      label: string,
      name: string,
      opts: { value: string; label: string }[],
      value: string,
      change: (v: string) => void,
    ) => selectField(label, { name }, opts, value, change);
    const runOpts = runs.map((r) => ({
      value: r.runId,
      label: `${r.runId} · ${r.status}${r.engine.kind === 'simulated' || r.engine.kind === 'mixed' ? ` · ${r.engine.kind}` : ''} · ${when(r.createdAt)}`,
    }));
    for (const id of [run, baseline])
      if (id !== 'official' && !runs.some((r) => r.runId === id))
        runOpts.unshift({ value: id, label: `${id} (not stored)` });
    controls.append(
      h('h1', null, 'Compare'),
      h(
        'div',
        { class: 'filter-row' },
        field('Run', 'run', runOpts, run, (v) => {
          run = v;
          void load();
        }),
        field(
          'Baseline',
          'baseline',
          [{ value: 'official', label: 'official (latest of each config)' }, ...runOpts],
          baseline,
          (v) => {
            baseline = v;
            void load();
          },
        ),
        field(
          'Against',
          'against',
          [
            { value: 'config', label: 'the same config (one to one)' },
            { value: 'frontier', label: "the baseline's frontier" },
          ],
          against,
          (v) => {
            against = v === 'frontier' ? 'frontier' : 'config';
            void load();
          },
        ),
        field(
          SHORT_LABEL.interactivity,
          'interactivity',
          CHART_STATS.map((s) => ({ value: s, label: STAT_LABEL[s] })),
          stat,
          (v) => {
            stat = v === 'p90' ? 'p90' : 'median';
            void load();
          },
        ),
        field(
          'Chart x axis',
          'x',
          X_AXES.map((a) => ({ value: a, label: axisTitle(X_AXIS[a]) })),
          x,
          (v) => {
            x = v as XAxis;
            draw();
          },
        ),
      ),
    );
  }

  async function load(): Promise<void> {
    const my = ++seq;
    const shared = {
      interactivity: stat === 'median' ? undefined : stat,
      against: against === 'config' ? undefined : against,
    };
    const q = queryString({ run, baseline: baseline === 'official' ? undefined : baseline, ...shared });
    history.replaceState(history.state, '', `/compare?${queryString({ run, baseline, ...shared })}`);
    status.className = 'status';
    status.textContent = 'Loading…';
    try {
      const [r, s] = await Promise.all([
        getJson<CompareReport | FrontierCompareReport>(`/api/compare?${q}`),
        getJson<ComparePointsResponse>(`/api/compare/points?${q}`),
      ]);
      if (my !== seq) return;
      sides = s;
      hidden = [];
      status.textContent = '';
      chartCard.hidden = false;
      draw();
      clear(report);
      append(report, ...(r.kind === 'frontier-compare-report' ? frontierReportContent(r) : reportContent(r)));
    } catch (err) {
      if (my !== seq) return;
      status.className = 'status error';
      status.textContent = `Error: ${(err as Error).message}`;
    }
  }

  let live = true;
  getJson<StoredRun[]>('/api/runs').then(
    (runs) => {
      if (!live) return;
      if (runs.length === 0) {
        status.textContent = 'No runs stored yet: infx ingest runs/<run-id> stores one.';
        return;
      }
      if (run === '') run = runs[0]!.runId;
      renderControls(runs);
      void load();
    },
    (err: Error) => {
      status.className = 'status error';
      status.textContent = `Error: ${err.message}`;
    },
  );
  return {
    dispose() {
      live = false;
      seq++;
      panel.dispose();
    },
  };
}
