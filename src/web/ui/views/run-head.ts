import { plural } from '../../../schema/plural.ts';
import type { RunDetail } from '../../../schema/web-api.ts';
import { engineBadge } from '../components/engine-badge.ts';
import { appLink, breakable, h } from '../dom.ts';
import { when } from '../format.ts';

/**
 * The head of a run's page: its id, status and engine, the facts of the run (when, how many points, what
 * served them, where, from which files), what the sweep skipped, and links to its chart, a comparison
 * and its JSON.
 */

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

export function runHead(d: RunDetail): HTMLElement {
  const r = d.run;
  return h(
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
      ? h('p', { class: 'note' }, `Engine commands, records and server logs are not shown: ${d.runDirNote}.`)
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
      d.evals.total > 0
        ? [
            appLink(
              `/evaluation?run=${encodeURIComponent(r.runId)}`,
              `accuracy evals (${d.evals.total}${d.evals.below > 0 ? `, ${d.evals.below} below threshold` : ''})`,
              { 'data-evals-link': '1' },
            ),
            ' · ',
          ]
        : null,
      h('a', { href: `/api/runs/${encodeURIComponent(r.runId)}`, target: '_blank', rel: 'noopener' }, 'JSON'),
    ),
  );
}
