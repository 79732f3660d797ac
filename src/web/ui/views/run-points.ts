import { COLUMN_HEADING } from '../../../analysis/axes.ts';
import type { RunAttempt, RunPoint } from '../../../schema/web-api.ts';
import { appLink, breakable, h } from '../dom.ts';
import { fmt, shellQuote } from '../format.ts';

/**
 * A row of a run's points table: the point, its outcome and its stored result's metrics, the failure with
 * its phase and cause (in full: it is what a person opens the page for), every attempt with the engine
 * command it launched, and links to the stored result, the request records and the server log.
 */

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
export const METRICS: [string, string, (m: NonNullable<RunPoint['metrics']>) => number | null][] = [
  ['tput', COLUMN_HEADING.tput, (m) => m.tputPerGpu],
  ['interactivity', COLUMN_HEADING.interactivity, (m) => m.interactivity.median],
  ['ttft', COLUMN_HEADING.ttft, (m) => m.ttftMs.median],
  ['e2el', COLUMN_HEADING.e2el, (m) => (m.e2elMs.median === null ? null : m.e2elMs.median / 1000)],
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

export function pointRow(p: RunPoint): HTMLElement {
  const links = [
    p.links.result ? h('a', { href: p.links.result, target: '_blank', rel: 'noopener' }, 'result') : null,
    p.links.requests
      ? h('a', { href: p.links.requests, target: '_blank', rel: 'noopener' }, 'records')
      : null,
    p.links.serverLog
      ? h('a', { href: p.links.serverLog, target: '_blank', rel: 'noopener' }, 'server log')
      : null,
    p.links.timeline ? appLink(p.links.timeline, 'timeline', { 'data-testid': 'timeline-link' }) : null,
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
