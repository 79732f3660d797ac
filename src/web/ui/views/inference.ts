import { X_AXIS, type XAxis, type YMetric } from '../../../analysis/axes.ts';
import type { CurvePoint } from '../../../schema/curve.ts';
import type { FilterOption, FiltersResponse } from '../../../schema/web-api.ts';
import { configId } from '../../config-id.ts';
import { ApiFailure, apiUrl, getJson } from '../api.ts';
import { ChartPanel } from '../chart-panel.ts';
import { append, appLink, clear, download, h } from '../dom.ts';
import { when } from '../format.ts';
import { filterParams, type InferenceState, parseState, type Stat, stateQuery } from '../state.ts';
import type { View } from './view.ts';

/**
 * The inference view (dashboard-spec §4.3): availability-driven filters, the throughput (or cost, or
 * energy) against interactivity / latency / TTFT chart with one Pareto line per config, a legend that
 * toggles series, tooltips, and exports. The whole state lives in the URL.
 */

const X_LABELS: Record<XAxis, string> = {
  interactivity: 'Interactivity (tok/s/user)',
  e2el: 'End-to-end latency (s)',
  ttft: 'Time to first token (ms)',
};

const Y_GROUPS: { label: string; options: [YMetric, string][] }[] = [
  {
    label: 'Throughput per GPU',
    options: [
      ['tput', 'Total tok/s per GPU'],
      ['output', 'Output tok/s per GPU'],
      ['input', 'Input tok/s per GPU'],
    ],
  },
  {
    label: 'Cost per million tokens',
    options: [
      ['cost', '$ per M total tokens'],
      ['cost-output', '$ per M output tokens'],
      ['cost-input', '$ per M input tokens'],
    ],
  },
  { label: 'Energy', options: [['energy', 'J per output token']] },
];

type ListField = 'precision' | 'hardware' | 'framework';

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

  /** Explicit selections become what the server found valid (a value without data snaps or drops). */
  function snap(f: FiltersResponse): void {
    const sel = f.selection;
    if (state.status !== undefined) state.status = sel.status;
    if (state.run !== undefined) state.run = sel.run ?? undefined;
    if (state.model !== undefined) state.model = sel.model ?? undefined;
    if (state.isl !== undefined) {
      state.isl = sel.isl ?? undefined;
      state.osl = sel.osl ?? undefined;
    }
    state.precision = sel.precision;
    state.hardware = sel.hardware;
    state.framework = sel.framework;
  }

  async function load(): Promise<void> {
    const my = ++seq;
    status.textContent = 'Loading…';
    status.className = 'status';
    try {
      const f = await getJson<FiltersResponse>('/api/filters', filterParams(state));
      if (my !== seq) return;
      const asked = state.status ?? 'official';
      snap(f);
      filters = f;
      renderFilters(f);
      if (f.selection.model === null) {
        points = [];
        renderEmpty();
        return;
      }
      const sel = f.selection;
      const pts = await getJson<CurvePoint[]>('/api/points', {
        status: sel.run === null ? sel.status : undefined,
        run: sel.run,
        model: sel.model,
        isl: sel.isl,
        osl: sel.osl,
        precision: sel.precision,
        hardware: sel.hardware,
        framework: sel.framework,
      });
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

  /**
   * The default view shows official results; where none are stored (the demo stores simulated results as
   * unofficial) the server falls back to another status: say so, and link to that view.
   */
  function renderNotice(f: FiltersResponse, asked: string, pts: readonly CurvePoint[]): void {
    clear(notice);
    const shown = f.selection.status;
    notice.hidden = f.selection.run !== null || asked === shown;
    if (notice.hidden) return;
    const simulated = pts.some((p) => p.engine.kind === 'simulated');
    notice.append(
      `No ${asked} results are stored, so this shows the latest ${shown} results instead` +
        (simulated ? ", labelled simulated where infx's simulated engine served them" : '') +
        '. ',
      appLink(`/?status=${encodeURIComponent(shown)}`, `Open the ${shown} view`, { 'data-status': shown }),
    );
  }

  function renderEmpty(): void {
    status.textContent = '';
    notice.hidden = true;
    clear(toolbar);
    chartCard.hidden = true;
    clear(filterCard);
    filterCard.append(
      h('h2', null, 'No results stored yet'),
      h(
        'p',
        null,
        'Run a sweep and store it: ',
        h('code', null, 'infx sweep … --out runs'),
        ' then ',
        h('code', null, 'infx ingest runs/<run-id>'),
        '. This page shows them as soon as they are stored.',
      ),
    );
    writeUrl();
  }

  const select = (
    name: string,
    label: string,
    options: { value: string; label: string; disabled?: boolean }[],
    value: string,
    onChange: (v: string) => void,
  ) =>
    h(
      'label',
      { class: 'field' },
      h('span', null, label),
      h(
        'select',
        {
          name,
          'data-filter': name,
          onchange: (e: Event) => onChange((e.target as HTMLSelectElement).value),
        },
        options.map((o) =>
          h(
            'option',
            { value: o.value, selected: o.value === value, disabled: o.disabled ?? false },
            o.label,
          ),
        ),
      ),
    );

  function chips(field: ListField, label: string, options: FilterOption[]): HTMLElement {
    const selected = state[field];
    return h(
      'div',
      { class: 'chip-group', 'data-filter': field, role: 'group', 'aria-label': label },
      h('span', { class: 'chip-label' }, label),
      options.map((o) =>
        h(
          'button',
          {
            type: 'button',
            class: `chip${selected.length === 0 ? ' all' : ''}`,
            'data-value': o.value,
            'aria-pressed': String(selected.includes(o.value)),
            title: `${o.configs} config${o.configs === 1 ? '' : 's'}`,
            onclick: () => {
              // None selected means all: a click then picks only this one; the last one off means all again.
              state[field] = selected.includes(o.value)
                ? selected.filter((v) => v !== o.value)
                : [...selected, o.value];
              void load();
            },
          },
          o.label,
        ),
      ),
      selected.length > 0
        ? h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => {
                state[field] = [];
                void load();
              },
            },
            'all',
          )
        : h('span', { class: 'muted chip-all' }, 'all'),
    );
  }

  function renderFilters(f: FiltersResponse): void {
    chartCard.hidden = false;
    const sel = f.selection;
    const o = f.options;
    clear(filterCard);
    filterCard.append(
      h(
        'div',
        { class: 'filter-row' },
        select(
          'model',
          'Model',
          o.model.map((m) => ({ value: m.value, label: `${m.label} (${m.configs})` })),
          sel.model ?? '',
          (v) => {
            state.model = v;
            void load();
          },
        ),
        select(
          'workload',
          'Sequence (ISL/OSL)',
          o.workload.map((w) => ({ value: w.value, label: `${w.label} (${w.configs})` })),
          sel.isl === null ? '' : `${sel.isl}/${sel.osl}`,
          (v) => {
            const [isl, osl] = v.split('/').map(Number);
            state.isl = isl;
            state.osl = osl;
            void load();
          },
        ),
        select(
          'status',
          'Results',
          (['official', 'unofficial', 'staged'] as const).map((s) => {
            const opt = o.status.find((x) => x.value === s);
            const n = opt?.configs ?? 0;
            return { value: s, label: `${s} (${n} run${n === 1 ? '' : 's'})`, disabled: opt === undefined };
          }),
          sel.status,
          (v) => {
            state.status = v as InferenceState['status'];
            state.run = undefined;
            void load();
          },
        ),
        select(
          'run',
          'Run',
          [
            { value: '', label: 'latest result of each config' },
            ...o.run.map((r) => ({
              value: r.runId,
              label:
                `${r.runId} · ${when(r.createdAt)} · ${r.ingested}/${r.planned} ok` +
                (r.engine.kind === 'simulated' || r.engine.kind === 'mixed' ? ` · ${r.engine.kind}` : ''),
            })),
          ],
          sel.run ?? '',
          (v) => {
            state.run = v === '' ? undefined : v;
            void load();
          },
        ),
        sel.run === null
          ? null
          : appLink(`/runs/${encodeURIComponent(sel.run)}`, 'run details →', { class: 'field-link' }),
      ),
      h(
        'div',
        { class: 'filter-row chips' },
        chips('precision', 'Precision', o.precision),
        chips('hardware', 'Hardware', o.hardware),
        chips('framework', 'Framework', o.framework),
      ),
    );
  }

  function renderToolbar(hasEnergy: boolean): void {
    clear(toolbar);
    const isCost = state.y.startsWith('cost');
    const check = (name: string, label: string, on: boolean, change: (v: boolean) => void) =>
      h(
        'label',
        { class: 'check' },
        h('input', {
          type: 'checkbox',
          name,
          checked: on,
          onchange: (e: Event) => change((e.target as HTMLInputElement).checked),
        }),
        label,
      );
    append(
      toolbar,
      select(
        'x',
        'X axis',
        (Object.keys(X_LABELS) as XAxis[]).map((x) => ({ value: x, label: X_LABELS[x] })),
        state.x,
        (v) => {
          state.x = v as XAxis;
          draw();
        },
      ),
      h(
        'label',
        { class: 'field' },
        h('span', null, 'Y axis'),
        h(
          'select',
          {
            name: 'y',
            onchange: (e: Event) => {
              state.y = (e.target as HTMLSelectElement).value as YMetric;
              draw();
            },
          },
          Y_GROUPS.map((g) =>
            h(
              'optgroup',
              { label: g.label },
              g.options.map(([v, label]) =>
                h(
                  'option',
                  {
                    value: v,
                    selected: v === state.y,
                    disabled: v === 'energy' && !hasEnergy,
                    title: v === 'energy' && !hasEnergy ? 'no power measured for these points' : null,
                  },
                  label,
                ),
              ),
            ),
          ),
        ),
      ),
      select(
        'stat',
        'Statistic',
        [
          { value: 'median', label: 'median' },
          { value: 'p90', label: 'p90 (slow users)' },
        ],
        state.stat,
        (v) => {
          state.stat = v as Stat;
          draw();
        },
      ),
      isCost
        ? h(
            'label',
            { class: 'field price' },
            h('span', null, '$/GPU-hour'),
            h('input', {
              type: 'number',
              name: 'price',
              min: '0',
              step: '0.01',
              placeholder: 'catalog',
              value: state.price ?? '',
              onchange: (e: Event) => {
                const v = Number((e.target as HTMLInputElement).value);
                state.price = Number.isFinite(v) && v > 0 ? v : null;
                draw();
              },
            }),
          )
        : null,
      h(
        'div',
        { class: 'checks' },
        check('log', 'Log scale', state.log, (v) => {
          state.log = v;
          draw();
        }),
        check('front', 'Pareto front only', state.front, (v) => {
          state.front = v;
          draw();
        }),
      ),
      h('span', { class: 'spacer' }),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', name: 'share', onclick: share }, 'Copy link'),
        h(
          'a',
          {
            class: 'button',
            'data-action': 'csv',
            href: apiUrl('/api/export.csv', { ...effectiveFilters(), hide: state.hide, price: state.price }),
            download: 'infx-points.csv',
          },
          'CSV',
        ),
        h(
          'button',
          {
            type: 'button',
            name: 'png',
            onclick: async () => download('infx-chart.png', await panel.png()),
          },
          'PNG',
        ),
      ),
    );
  }

  function effectiveFilters() {
    const sel = filters?.selection;
    if (!sel) return filterParams(state);
    return {
      status: sel.run === null ? sel.status : undefined,
      run: sel.run,
      model: sel.model,
      isl: sel.isl,
      osl: sel.osl,
      precision: sel.precision,
      hardware: sel.hardware,
      framework: sel.framework,
    };
  }

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
