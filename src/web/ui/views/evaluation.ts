import type { EvalVerdict } from '../../../schema/web-evals.ts';
import { getJson } from '../api.ts';
import { appLink, h } from '../dom.ts';
import { when, workload } from '../format.ts';
import type { View } from './view.ts';

/**
 * `/evaluation` (the reference's accuracy view): every stored eval verdict — GSM8K exact match per filter
 * with its stderr, against the threshold and the rule that chose it — per config and run, newest run
 * first; `?run=ID` narrows it to one run, `?model=M` to one model. Each row drills down to its samples.
 * Scores from infx's simulated engine are labelled simulated.
 */

export const evalSamplesHref = (v: Pick<EvalVerdict, 'runId' | 'pointId'>) =>
  `/evaluation/${encodeURIComponent(v.runId)}/${encodeURIComponent(v.pointId)}`;

export const scoreText = (s: EvalVerdict['strictMatch']) =>
  `${s.value.toFixed(4)}${s.stderr === null ? '' : ` ± ${s.stderr.toFixed(4)}`}`;

export function verdictBadge(v: EvalVerdict): HTMLElement {
  return h(
    'span',
    {
      class: `badge ${v.pass ? 'ok' : 'failed'}`,
      'data-verdict': v.pass ? 'pass' : 'fail',
      title: v.pass
        ? 'both filters at or above the threshold'
        : 'below the threshold: the run is not official',
    },
    v.pass ? 'pass' : 'below threshold',
  );
}

export function simulatedBadge(v: EvalVerdict): HTMLElement | null {
  return v.simulated
    ? h(
        'span',
        {
          class: 'badge simulated',
          title:
            "scored against infx's simulated engine (sim serve --accuracy): says nothing about the model",
        },
        'simulated',
      )
    : null;
}

export function evaluationView(root: HTMLElement): View {
  const params = new URLSearchParams(location.search);
  const run = params.get('run');
  const model = params.get('model');
  const status = h('p', { class: 'status', role: 'status' }, 'Loading…');
  const scope = run ? ` of run ${run}` : model ? ` of ${model}` : '';
  const card = h(
    'section',
    { class: 'card' },
    h('h1', null, `Accuracy evals${scope}`),
    run || model ? h('p', null, appLink('/evaluation', 'all evals')) : null,
    status,
  );
  root.append(h('div', { class: 'view evaluation' }, card));
  let live = true;
  getJson<EvalVerdict[]>('/api/evals', { run, model }).then(
    (evals) => {
      if (!live) return;
      status.textContent =
        evals.length === 0
          ? 'No evals stored yet: a sweep of run-eval rows with --eval-dataset, then infx ingest, stores them.'
          : '';
      if (evals.length === 0) return;
      if (evals.some((v) => v.simulated))
        card.append(
          h(
            'p',
            { class: 'note simulated-note' },
            "Scores marked simulated come from infx's simulated engine answering with a set accuracy: they test the eval path, not a model.",
          ),
        );
      card.append(
        h(
          'table',
          { class: 'table evals' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              [
                'Model',
                'Config',
                'Workload',
                'Conc',
                'Task',
                'strict-match',
                'flexible-extract',
                'Threshold',
                'Verdict',
                'Samples',
                'Run',
                '',
              ].map((t) => h('th', null, t)),
            ),
          ),
          h(
            'tbody',
            null,
            evals.map((v) =>
              h(
                'tr',
                { 'data-point': v.pointId, 'data-run': v.runId },
                h('td', null, v.model),
                h('td', null, v.config, ' ', simulatedBadge(v)),
                h('td', null, v.evalOnly ? `${workload(v.isl, v.osl)} (eval only)` : workload(v.isl, v.osl)),
                h('td', { class: 'num' }, v.conc),
                h('td', null, v.task),
                h('td', { class: 'num', 'data-metric': 'strict-match' }, scoreText(v.strictMatch)),
                h('td', { class: 'num', 'data-metric': 'flexible-extract' }, scoreText(v.flexibleExtract)),
                h(
                  'td',
                  { class: 'num', title: `from ${v.thresholdSource} (${v.thresholdRule} rule)` },
                  `${v.threshold} (${v.thresholdRule})`,
                ),
                h('td', null, verdictBadge(v)),
                h(
                  'td',
                  { class: `num${v.failedSamples > 0 ? ' warn' : ''}` },
                  v.failedSamples > 0 ? `${v.samples} (${v.failedSamples} failed)` : v.samples,
                ),
                h(
                  'td',
                  null,
                  appLink(`/runs/${encodeURIComponent(v.runId)}`, v.runId),
                  ' ',
                  h('span', { class: `badge ${v.runStatus}` }, v.runStatus),
                  h('div', { class: 'muted' }, when(v.runCreatedAt)),
                ),
                h('td', { class: 'links' }, appLink(evalSamplesHref(v), 'samples')),
              ),
            ),
          ),
        ),
      );
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
