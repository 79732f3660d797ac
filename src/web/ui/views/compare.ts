import type { XAxis } from '../../../analysis/axes.ts';
import { headline, sideLabel, verdictLine } from '../../../analysis/compare-format.ts';
import type { CompareReport, ConfigComparison } from '../../../schema/compare-report.ts';
import { plural } from '../../../schema/plural.ts';
import type { StoredRun } from '../../../schema/store.ts';
import type { ComparePointsResponse } from '../../../schema/web-api.ts';
import { getJson, queryString } from '../api.ts';
import { ChartPanel } from '../chart-panel.ts';
import { append, clear, h } from '../dom.ts';
import { fmt, money, pct, when } from '../format.ts';
import type { View } from './view.ts';

/**
 * `/compare?run=&baseline=`: both curves in one chart and, per config, the comparison at matched
 * interactivity from the compare report (src/analysis/compare.ts, as `infx compare` prints it).
 */

const STATUS: Record<string, string> = {
  'outside-run': 'outside run front',
  'outside-baseline': 'outside baseline front',
  'outside-both': 'outside both fronts',
};

function matchedTable(c: ConfigComparison): HTMLElement {
  return h(
    'table',
    { class: 'table matched', 'data-config': c.configKey },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['tok/s/user', 'baseline tok/s/GPU', 'run tok/s/GPU', 'gain', 'baseline $/M tok', 'run $/M tok'].map(
          (t) => h('th', { class: 'num' }, t),
        ),
      ),
    ),
    h(
      'tbody',
      null,
      c.matched.map((m) =>
        h(
          'tr',
          { class: m.status === 'ok' ? '' : 'muted' },
          h('td', { class: 'num' }, fmt(m.interactivity, 4)),
          h('td', { class: 'num' }, fmt(m.baseline.tputPerGpu)),
          h('td', { class: 'num' }, fmt(m.run.tputPerGpu)),
          h(
            'td',
            // Coloured only beyond the run-to-run spread: a gain inside it is no difference.
            { class: `num ${m.verdict === 'better' ? 'good' : m.verdict === 'worse' ? 'bad' : ''}` },
            m.status === 'ok' ? pct(m.gainPct) : (STATUS[m.status] ?? m.status),
          ),
          h('td', { class: 'num' }, money(m.baseline.costPerMTokens)),
          h('td', { class: 'num' }, money(m.run.costPerMTokens)),
        ),
      ),
    ),
  );
}

function equalConcTable(c: ConfigComparison): HTMLElement | null {
  if (c.equalConcurrency.length === 0) return null;
  return h(
    'details',
    null,
    h('summary', null, 'At equal concurrency'),
    h(
      'table',
      { class: 'table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['conc', 'metric', 'baseline', 'run', 'change'].map((t) => h('th', null, t)),
        ),
      ),
      h(
        'tbody',
        null,
        c.equalConcurrency.flatMap((row) =>
          row.metrics.map((m, i) =>
            h(
              'tr',
              null,
              h('td', { class: 'num' }, i === 0 ? row.conc : ''),
              h('td', null, `${m.metric} (${m.unit}, ${m.better} is better)`),
              h('td', { class: 'num' }, fmt(m.baseline)),
              h('td', { class: 'num' }, fmt(m.run)),
              h('td', { class: `num ${m.improved === null ? '' : m.improved ? 'good' : 'bad'}` }, pct(m.pct)),
            ),
          ),
        ),
      ),
    ),
  );
}

function configSection(c: ConfigComparison): HTMLElement {
  const price =
    c.price.perGpuHour === null
      ? 'no price known for this GPU'
      : `cost at $${c.price.perGpuHour}/GPU-hour${c.price.source === 'catalog' ? ' (catalog estimate)' : ''}`;
  return h(
    'section',
    { class: 'card config', 'data-config': c.configKey },
    h('h2', null, c.label),
    h('p', { class: 'headline', 'data-verdict': c.verdict }, headline(c)),
    h(
      'p',
      { class: 'muted' },
      `max tok/s/GPU ${fmt(c.baseline.maxTputPerGpu)} → ${fmt(c.run.maxTputPerGpu)} (${pct(c.maxTputChangePct)}) · ` +
        `${c.covers ? 'covers' : 'does not cover'} the baseline's interactivity range · ${price}`,
    ),
    c.matched.length > 0 ? matchedTable(c) : h('p', null, 'No interactivity where both fronts are defined.'),
    c.notes.length > 0
      ? h(
          'ul',
          { class: 'notes' },
          c.notes.map((n) => h('li', null, n)),
        )
      : null,
    equalConcTable(c),
  );
}

export function compareView(root: HTMLElement): View {
  const params = new URLSearchParams(location.search);
  let run = params.get('run') ?? '';
  let baseline = params.get('baseline') || 'official';
  let stat: 'median' | 'p90' = params.get('interactivity') === 'p90' ? 'p90' : 'median';
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
      opts: [string, string][],
      value: string,
      change: (v: string) => void,
    ) =>
      h(
        'label',
        { class: 'field' },
        h('span', null, label),
        h(
          'select',
          { name, onchange: (e: Event) => change((e.target as HTMLSelectElement).value) },
          opts.map(([v, l]) => h('option', { value: v, selected: v === value }, l)),
        ),
      );
    const runOpts = runs.map((r): [string, string] => [
      r.runId,
      `${r.runId} · ${r.status}${r.engine.kind === 'simulated' || r.engine.kind === 'mixed' ? ` · ${r.engine.kind}` : ''} · ${when(r.createdAt)}`,
    ]);
    for (const id of [run, baseline])
      if (id !== 'official' && !runs.some((r) => r.runId === id)) runOpts.unshift([id, `${id} (not stored)`]);
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
          [['official', 'official (latest of each config)'], ...runOpts],
          baseline,
          (v) => {
            baseline = v;
            void load();
          },
        ),
        field(
          'Interactivity',
          'interactivity',
          [
            ['median', 'median'],
            ['p90', 'p90 (slow users)'],
          ],
          stat,
          (v) => {
            stat = v === 'p90' ? 'p90' : 'median';
            void load();
          },
        ),
        field(
          'Chart x axis',
          'x',
          [
            ['interactivity', 'Interactivity (tok/s/user)'],
            ['e2el', 'End-to-end latency (s)'],
            ['ttft', 'Time to first token (ms)'],
          ],
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
    const q = queryString({
      run,
      baseline: baseline === 'official' ? undefined : baseline,
      interactivity: stat === 'median' ? undefined : stat,
    });
    history.replaceState(
      history.state,
      '',
      `/compare?${queryString({ run, baseline, interactivity: stat === 'median' ? undefined : stat })}`,
    );
    status.className = 'status';
    status.textContent = 'Loading…';
    try {
      const [r, s] = await Promise.all([
        getJson<CompareReport>(`/api/compare?${q}`),
        getJson<ComparePointsResponse>(`/api/compare/points?${q}`),
      ]);
      if (my !== seq) return;
      sides = s;
      hidden = [];
      status.textContent = '';
      chartCard.hidden = false;
      draw();
      clear(report);
      append(
        report,
        h(
          'p',
          { class: 'summary' },
          `Run ${sideLabel(r, r.run)} against ${sideLabel(r, r.baseline)}${r.baseline.label === 'official' ? ` (runs ${r.baseline.runIds.join(', ') || 'none'})` : ''}: ` +
            `${plural(r.configs.length, 'config')} in both, at matched ${r.interactivityStat} interactivity; a gain ` +
            'within the run-to-run spread is no difference.',
        ),
        h('p', { class: 'headline verdict', 'data-verdict': r.verdict }, verdictLine(r)),
        r.notes.length > 0
          ? h(
              'ul',
              { class: 'notes report-notes' },
              r.notes.map((n) => h('li', { class: 'note' }, n)),
            )
          : null,
        ...r.configs.map(configSection),
        r.onlyInRun.length + r.onlyInBaseline.length > 0
          ? h(
              'section',
              { class: 'card' },
              r.onlyInRun.length > 0
                ? h('p', null, `Only in the run: ${r.onlyInRun.map((c) => c.label).join(', ')}`)
                : null,
              r.onlyInBaseline.length > 0
                ? h('p', null, `Only in the baseline: ${r.onlyInBaseline.map((c) => c.label).join(', ')}`)
                : null,
            )
          : null,
      );
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
