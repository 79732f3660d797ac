import {
  ESTIMATE_SENTENCE,
  frontierHead,
  frontierHeadline,
  frontierLine,
  gainCell,
  isAgenticComparison,
} from '../../../analysis/compare-frontier-format.ts';
import type { FrontierCompareReport, FrontierComparison } from '../../../schema/frontier-compare.ts';
import { plural } from '../../../schema/plural.ts';
import { type Child, h } from '../dom.ts';
import { fmt } from '../format.ts';

/**
 * The compare view against the baseline's frontier (src/analysis/compare-frontier.ts, as `infx compare
 * --against frontier` prints it): per config of the run, its points against the frontier of all the
 * baseline's configs of its model, precision, hardware and workload. Every gain is an interpolation estimate.
 */

function pointsTable(c: FrontierComparison): HTMLElement {
  return h(
    'table',
    { class: 'table frontier-points', 'data-config': c.configKey },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        frontierHead(c).map((t) => h('th', { class: 'num' }, t)),
      ),
    ),
    h(
      'tbody',
      null,
      c.points.map((p) =>
        h(
          'tr',
          { class: p.status === 'ok' ? '' : 'muted', 'data-status': p.status },
          h('td', { class: 'num' }, p.conc),
          h('td', { class: 'num' }, fmt(p.interactivity, 4)),
          h('td', { class: 'num' }, fmt(p.tputPerGpu)),
          h(
            'td',
            { class: 'num', title: p.atKnot ? 'a measured frontier point' : 'interpolation estimate' },
            p.frontierTputPerGpu === null ? 'N/A' : `${fmt(p.frontierTputPerGpu)}${p.atKnot ? '' : ' *'}`,
          ),
          h(
            'td',
            {
              class: `num gain ${p.gainPct === null ? '' : p.gainPct > 0 ? 'good' : p.gainPct < 0 ? 'bad' : ''}`,
            },
            gainCell(p),
          ),
        ),
      ),
    ),
  );
}

function configSection(c: FrontierComparison): HTMLElement {
  return h(
    'section',
    { class: 'card config frontier', 'data-config': c.configKey },
    h('h2', null, c.label),
    h('p', { class: 'headline' }, frontierHeadline(c)),
    h('p', { class: 'muted frontier-line' }, frontierLine(c)),
    c.points.length > 0 && c.frontier !== null
      ? [
          pointsTable(c),
          h('p', { class: 'muted' }, '* interpolation estimate between two measured frontier points'),
        ]
      : null,
    c.notes.length > 0
      ? h(
          'ul',
          { class: 'notes' },
          c.notes.map((n) => h('li', null, n)),
        )
      : null,
  );
}

export function frontierReportContent(r: FrontierCompareReport): Child[] {
  const side = (s: FrontierCompareReport['run']) =>
    s.engine === 'simulated' || s.engine === 'mixed' ? `${s.label} (${s.engine})` : s.label;
  return [
    h(
      'p',
      { class: 'summary' },
      `Run ${side(r.run)} against the frontier of ${side(r.baseline)}${r.baseline.label === 'official' ? ` (runs ${r.baseline.runIds.join(', ') || 'none'})` : ''}: ` +
        `${plural(r.configs.length, 'config')}, each against the Pareto frontier of all baseline configs of its ` +
        `model, precision, hardware and workload, at matched ${r.interactivityStat} interactivity` +
        (r.configs.some(isAgenticComparison)
          ? ' (agentic configs: at matched generation interactivity p90).'
          : '.'),
    ),
    h('p', { class: 'headline estimate' }, ESTIMATE_SENTENCE),
    r.notes.length > 0
      ? h(
          'ul',
          { class: 'notes report-notes' },
          r.notes.map((n) => h('li', { class: 'note' }, n)),
        )
      : null,
    ...r.configs.map(configSection),
  ];
}
