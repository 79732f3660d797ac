import { SHORT_UNIT } from '../../../analysis/axes.ts';
import { headline, sideLabel, verdictLine } from '../../../analysis/compare-format.ts';
import type { CompareReport, ConfigComparison } from '../../../schema/compare-report.ts';
import { plural } from '../../../schema/plural.ts';
import { type Child, h } from '../dom.ts';
import { fmt, money, pct } from '../format.ts';

/**
 * The compare view's report (src/analysis/compare.ts, as `infx compare` prints it): the verdict, then per
 * config the comparison at matched interactivity and at equal concurrency, and the configs only one side has.
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
        [
          SHORT_UNIT.interactivity,
          `baseline ${SHORT_UNIT.tput}`,
          `run ${SHORT_UNIT.tput}`,
          'gain',
          `baseline ${SHORT_UNIT.cost}`,
          `run ${SHORT_UNIT.cost}`,
        ].map((t) => h('th', { class: 'num' }, t)),
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

export function configSection(c: ConfigComparison): HTMLElement {
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
      `max ${SHORT_UNIT.tput} ${fmt(c.baseline.maxTputPerGpu)} → ${fmt(c.run.maxTputPerGpu)} (${pct(c.maxTputChangePct)}) · ` +
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

/** The whole report under the chart. */
export function reportContent(r: CompareReport): Child[] {
  return [
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
  ];
}
