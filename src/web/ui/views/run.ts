import { plural } from '../../../schema/plural.ts';
import type { PointOutcome } from '../../../schema/store.ts';
import type { RunAttempt, RunDetail, RunPoint } from '../../../schema/web-api.ts';
import { getJson } from '../api.ts';
import { appLink, breakable, clear, h } from '../dom.ts';
import { fmt, shellQuote, when } from '../format.ts';
import { engineBadge } from './runs.ts';
import type { View } from './view.ts';

/**
 * `/runs/:id`: the run and every planned point — outcome, its stored result's metrics, attempts with their
 * status, failure phase and cause (shown in full: it is what a person opens the page for), the engine
 * command each attempt launched, and links to the stored result, the request records and the server log.
 */

const PAGE = 300;

function attemptLine(a: RunAttempt): HTMLElement {
  const what =
    a.status === 'ok'
      ? `ok${a.valid === false ? ' (result invalid)' : ''}`
      : `${a.status}${a.phase ? ` in ${a.phase}` : ''}${a.interrupted ? ' (interrupted)' : ''}`;
  const files = Object.entries(a.files).map(([name, href]) =>
    h('a', { href, target: '_blank', rel: 'noopener' }, name),
  );
  return h(
    'li',
    { class: `attempt ${a.status}` },
    h('strong', null, `#${a.attempt} `),
    h('span', { class: `badge ${a.status}` }, what),
    a.durationS === null ? null : h('span', { class: 'muted' }, ` ${a.durationS.toFixed(1)} s`),
    a.host ? h('span', { class: 'muted' }, ` on ${a.host}`) : null,
    a.reason ? h('div', { class: 'reason' }, breakable(a.reason)) : null,
    a.logTail.length > 0
      ? h(
          'details',
          null,
          h('summary', null, 'server log tail'),
          h('pre', { class: 'log' }, a.logTail.join('\n')),
        )
      : null,
    a.engine
      ? h(
          'details',
          { class: 'engine' },
          h('summary', null, 'engine command'),
          a.engine.map((p) =>
            h(
              'div',
              null,
              h(
                'span',
                { class: 'muted' },
                `${p.role}${p.envKeys.length ? ` (env: ${p.envKeys.join(', ')})` : ''}`,
              ),
              h('pre', { class: 'cmd' }, shellQuote(p.argv)),
            ),
          ),
        )
      : null,
    files.length > 0
      ? h(
          'div',
          { class: 'files' },
          files.flatMap((f, i) => (i === 0 ? [f] : [' · ', f])),
        )
      : null,
  );
}

/** The metric columns of the points table: heading, and the value of a point with a stored result. */
const METRICS: [string, string, (m: NonNullable<RunPoint['metrics']>) => number | null][] = [
  ['tput', 'tok/s/GPU', (m) => m.tputPerGpu],
  ['interactivity', 'tok/s/user', (m) => m.interactivity.median],
  ['ttft', 'TTFT ms', (m) => m.ttftMs.median],
  ['e2el', 'E2E s', (m) => (m.e2elMs.median === null ? null : m.e2elMs.median / 1000)],
];

function metricCells(p: RunPoint): HTMLElement[] {
  const m = p.metrics;
  const cells = METRICS.map(([key, , value]) =>
    h('td', { class: 'num metric', 'data-metric': key }, m === null ? '' : fmt(value(m))),
  );
  const r = p.requests;
  cells.push(
    h(
      'td',
      { class: 'num metric', 'data-metric': 'requests' },
      r === null
        ? ''
        : [String(r.ok), ' / ', h('span', { class: r.failed > 0 ? 'bad' : 'muted' }, String(r.failed))],
    ),
  );
  return cells;
}

function pointRow(p: RunPoint): HTMLElement {
  const links = [
    p.links.result ? h('a', { href: p.links.result, target: '_blank', rel: 'noopener' }, 'result') : null,
    p.links.requests
      ? h('a', { href: p.links.requests, target: '_blank', rel: 'noopener' }, 'records')
      : null,
    p.links.serverLog
      ? h('a', { href: p.links.serverLog, target: '_blank', rel: 'noopener' }, 'server log')
      : null,
  ].filter((a): a is HTMLAnchorElement => a !== null);
  return h(
    'tr',
    { id: p.pointId, class: `point ${p.outcome}`, 'data-point': p.pointId },
    h('td', null, h('div', null, p.label), breakable(p.pointId, { class: 'muted small block' })),
    h('td', { class: 'num' }, p.conc),
    h('td', { class: 'num' }, p.gpus),
    h(
      'td',
      null,
      h('span', { class: `badge ${p.outcome}` }, p.outcome),
      p.valid === false ? h('span', { class: 'badge failed' }, 'invalid') : null,
    ),
    ...metricCells(p),
    h(
      'td',
      { class: 'failure' },
      p.outcome === 'ingested'
        ? ''
        : [p.phase ? h('strong', null, `${p.phase}: `) : null, breakable(p.reason ?? '', { class: 'cause' })],
    ),
    h('td', null, h('ul', { class: 'attempts' }, p.attempts.map(attemptLine))),
    h(
      'td',
      { class: 'links' },
      links.flatMap((a, i) => (i === 0 ? [a] : [h('br'), a])),
    ),
  );
}

/** What served the run's results, in words: simulated (and by which simulator), real, or both. */
function engineFact(d: RunDetail): string {
  const e = d.run.engine;
  const simulators = [
    ...new Set(d.points.flatMap((p) => (p.engine.simulator === null ? [] : [p.engine.simulator]))),
  ];
  const by = simulators.length > 0 ? ` (${simulators.join(', ')})` : '';
  if (e.kind === null) return 'no result stored';
  if (e.kind === 'real') return `real: all ${e.real} results from a real engine`;
  if (e.kind === 'mixed')
    return `mixed: ${e.simulated} results from infx's simulated engine${by}, ${e.real} from a real one`;
  return `simulated: all ${e.simulated} results from infx's simulated engine${by}, not measured on real hardware`;
}

export function runView(root: HTMLElement, runId: string): View {
  const status = h('p', { class: 'status', role: 'status' }, 'Loading…');
  const view = h('div', { class: 'view run' }, status);
  root.append(view);
  let live = true;
  let filter: PointOutcome | 'all' = 'all';
  let shown = PAGE;

  function render(d: RunDetail): void {
    const r = d.run;
    clear(view);
    const counts = { all: d.points.length, ingested: 0, failed: 0, missing: 0 };
    for (const p of d.points) counts[p.outcome]++;
    const tbody = h('tbody');
    const more = h('p');
    const fill = () => {
      clear(tbody);
      clear(more);
      const list = d.points.filter((p) => filter === 'all' || p.outcome === filter);
      tbody.append(...list.slice(0, shown).map(pointRow));
      if (list.length > shown)
        more.append(
          h(
            'button',
            {
              type: 'button',
              onclick: () => {
                shown += PAGE;
                fill();
              },
            },
            `show ${Math.min(PAGE, list.length - shown)} more of ${list.length - shown}`,
          ),
        );
    };
    const tabs = h(
      'div',
      { class: 'tabs', role: 'group', 'aria-label': 'Outcome' },
      (['all', 'failed', 'missing', 'ingested'] as const).map((o) =>
        h(
          'button',
          {
            type: 'button',
            class: 'chip',
            'data-outcome': o,
            'aria-pressed': String(filter === o),
            disabled: counts[o] === 0 && o !== 'all',
            onclick: (e: Event) => {
              filter = o;
              shown = PAGE;
              for (const b of tabs.querySelectorAll('button'))
                b.setAttribute('aria-pressed', String(b === e.currentTarget));
              fill();
            },
          },
          `${o} (${counts[o]})`,
        ),
      ),
    );
    view.append(
      h(
        'section',
        { class: 'card run-head' },
        h(
          'h1',
          null,
          'Run ',
          h('span', { class: 'mono' }, r.runId),
          ' ',
          h('span', { class: `badge ${r.status}` }, r.status),
          r.engine.kind === null || r.engine.kind === 'real' ? null : engineBadge(r.engine),
        ),
        h(
          'dl',
          { class: 'facts' },
          [
            ['Created', when(r.createdAt)],
            ['Ingested', when(r.ingestedAt)],
            [
              'Points',
              `${r.planned} planned · ${r.ingested} ingested · ${r.failed} failed · ${r.missing} missing`,
            ],
            ['Engine', engineFact(d)],
            ['Host', `${r.host} · executor ${r.executor} · seed ${r.seed} · infx ${r.infxVersion}`],
            ['Sources', breakable(r.sourceFiles.map((f) => f.path).join(', '))],
            ['Run directory', d.runDir === null ? 'not available' : breakable(d.runDir, { class: 'mono' })],
          ].map(([k, v]) => h('div', null, h('dt', null, k), h('dd', null, v))),
        ),
        d.runDirNote
          ? h(
              'p',
              { class: 'note' },
              `Engine commands, records and server logs are not shown: ${d.runDirNote}.`,
            )
          : null,
        d.skipped.length > 0
          ? h(
              'p',
              { class: 'note' },
              `${plural(d.skipped.length, 'matrix row')} skipped by the sweep: ${d.skipped.map((s) => `${s.expName} (${s.reason})`).join('; ')}`,
            )
          : null,
        h(
          'p',
          { class: 'links' },
          appLink(`/?run=${encodeURIComponent(r.runId)}`, 'chart this run'),
          ' · ',
          appLink(`/compare?run=${encodeURIComponent(r.runId)}&baseline=official`, 'compare with official'),
          ' · ',
          h(
            'a',
            { href: `/api/runs/${encodeURIComponent(r.runId)}`, target: '_blank', rel: 'noopener' },
            'JSON',
          ),
        ),
      ),
      h(
        'section',
        { class: 'card' },
        tabs,
        h(
          'table',
          { class: 'table points' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Point', 'Conc', 'GPUs', 'Outcome'].map((t) => h('th', null, t)),
              [...METRICS.map(([, label]) => label), 'Requests ok / failed'].map((t) =>
                h('th', { class: 'metric' }, t),
              ),
              ['Failure', 'Attempts', 'Files'].map((t) => h('th', null, t)),
            ),
          ),
          tbody,
        ),
        more,
      ),
    );
    fill();
    if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }

  getJson<RunDetail>(`/api/runs/${encodeURIComponent(runId)}`).then(
    (d) => {
      if (live) render(d);
    },
    (err: Error) => {
      if (!live) return;
      status.className = 'status error';
      status.textContent = `Error: ${err.message}`;
    },
  );
  return {
    dispose() {
      live = false;
    },
  };
}
