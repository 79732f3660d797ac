import { X_AXIS } from '../../../analysis/axes.ts';
import type { CurvePoint } from '../../../schema/curve.ts';
import type { FiltersResponse } from '../../../schema/web-api.ts';
import { configId } from '../../config-id.ts';
import { ApiFailure, apiUrl, getJson } from '../api.ts';
import { ChartPanel } from '../chart-panel.ts';
import { append, clear, download, h } from '../dom.ts';
import {
  filterParams,
  type InferenceState,
  parseState,
  selectionParams,
  snapState,
  stateQuery,
} from '../state.ts';
import { filterRows } from './inference-filters.ts';
import { fallbackNotice, noResults } from './inference-notes.ts';
import { toolbarItems } from './inference-toolbar.ts';
import type { View } from './view.ts';

/**
 * The inference view (dashboard-spec §4.3): availability-driven filters (inference-filters.ts), the
 * throughput (or cost, or energy) against interactivity / latency / TTFT chart with one Pareto line per
 * config, a legend that toggles series, tooltips, and exports (the toolbar: inference-toolbar.ts). The
 * whole state lives in the URL.
 */

export function inferenceView(root: HTMLElement): View {
  const state: InferenceState = parseState(location.search);
  let filters: FiltersResponse | null = null;
  let points: CurvePoint[] = [];
  let seq = 0;

  const status = h('p', { class: 'status', role: 'status' });
  /** Says when the results shown are not of the status asked for (e.g. no official results stored). */
  const notice = h('p', { class: 'note fallback', hidden: true });
  const filterCard = h('section', { class: 'card filters', 'aria-label': 'Filters' });
  const toolbar = h('div', { class: 'toolbar' });
  const summary = h('p', { class: 'summary muted' });
  const panel = new ChartPanel({
    onToggle: (s) => {
      const id = configId(s.configKey);
      state.hide = state.hide.includes(id) ? state.hide.filter((x) => x !== id) : [...state.hide, id];
      draw();
    },
    onShowAll: () => {
      state.hide = [];
      draw();
    },
  });
  const chartCard = h('section', { class: 'card chart-card' }, toolbar, summary, panel.el);
  root.append(h('div', { class: 'view inference' }, filterCard, status, notice, chartCard));

  const writeUrl = () => {
    const q = stateQuery(state);
    history.replaceState(history.state, '', q === '' ? location.pathname : `${location.pathname}?${q}`);
  };

  async function load(): Promise<void> {
    const my = ++seq;
    status.textContent = 'Loading…';
    status.className = 'status';
    try {
      const f = await getJson<FiltersResponse>('/api/filters', filterParams(state));
      if (my !== seq) return;
      const asked = state.status ?? 'official';
      snapState(state, f.selection);
      filters = f;
      renderFilters(f);
      if (f.selection.model === null) {
        points = [];
        renderEmpty();
        return;
      }
      const pts = await getJson<CurvePoint[]>('/api/points', selectionParams(f.selection));
      if (my !== seq) return;
      points = pts;
      status.textContent = '';
      renderNotice(f, asked, pts);
      draw();
    } catch (err) {
      if (my !== seq) return;
      status.className = 'status error';
      status.textContent =
        err instanceof ApiFailure ? `Error: ${err.message}` : `Error: ${(err as Error).message}`;
    }
  }

  function renderNotice(f: FiltersResponse, asked: string, pts: readonly CurvePoint[]): void {
    clear(notice);
    const shown = f.selection.status;
    notice.hidden = f.selection.run !== null || asked === shown;
    if (notice.hidden) return;
    notice.append(
      ...fallbackNotice(
        asked,
        shown,
        pts.some((p) => p.engine.kind === 'simulated'),
      ),
    );
  }

  function renderEmpty(): void {
    status.textContent = '';
    notice.hidden = true;
    clear(toolbar);
    chartCard.hidden = true;
    clear(filterCard);
    filterCard.append(...noResults());
    writeUrl();
  }

  function renderFilters(f: FiltersResponse): void {
    chartCard.hidden = false;
    clear(filterCard);
    filterCard.append(...filterRows(f, state, () => void load()));
  }

  function renderToolbar(hasEnergy: boolean): void {
    clear(toolbar);
    append(
      toolbar,
      ...toolbarItems(state, hasEnergy, {
        redraw: draw,
        share,
        csvHref: apiUrl('/api/export.csv', { ...effectiveFilters(), hide: state.hide, price: state.price }),
        png: async () => download('infx-chart.png', await panel.png()),
      }),
    );
  }

  /** The filters of what is drawn: the server's selection once it has answered. */
  const effectiveFilters = () => (filters ? selectionParams(filters.selection) : filterParams(state));

  async function share(e: Event): Promise<void> {
    const button = e.currentTarget as HTMLButtonElement;
    try {
      await navigator.clipboard.writeText(location.href);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy the address bar';
    }
    setTimeout(() => {
      button.textContent = 'Copy link';
    }, 1500);
  }

  function draw(): void {
    if (filters === null) return;
    const hasEnergy = points.some((p) => p.metrics.joulesPerOutputToken !== null);
    if (state.y === 'energy' && !hasEnergy) state.y = 'tput';
    renderToolbar(hasEnergy);
    const hide = new Set(state.hide);
    const sel = filters.selection;
    const chart = panel.render({
      inputs: [{ label: sel.run ?? `latest ${sel.status}`, runIds: sel.run ? [sel.run] : [], points }],
      options: {
        x: state.x,
        stat: state.stat,
        y: state.y,
        yScale: state.log ? 'log' : 'linear',
        frontOnly: state.front,
        pricePerGpuHour: state.price,
        runLabels: false,
        hiddenConfigs: [...new Set(points.map((p) => p.configKey))].filter((k) => hide.has(configId(k))),
      },
    });
    const runs = new Set(points.map((p) => p.runId));
    const configs = new Set(points.map((p) => p.configKey));
    summary.textContent =
      `${points.length} point${points.length === 1 ? '' : 's'} of ${configs.size} config${configs.size === 1 ? '' : 's'} ` +
      `from ${runs.size} run${runs.size === 1 ? '' : 's'} · ${X_AXIS[state.x].label} ${state.stat} · ` +
      `${chart.series.filter((s) => !s.hidden).length} shown`;
    writeUrl();
  }

  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  const onResize = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(draw, 150);
  };
  window.addEventListener('resize', onResize);
  void load();
  return {
    dispose() {
      seq++;
      window.removeEventListener('resize', onResize);
      panel.dispose();
    },
  };
}
