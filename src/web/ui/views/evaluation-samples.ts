import type { EvalDetail, EvalSample } from '../../../schema/web-evals.ts';
import { getJson } from '../api.ts';
import { appLink, breakable, clear, h } from '../dom.ts';
import { evalSamplesHref, scoreText, simulatedBadge, verdictBadge } from './evaluation.ts';
import type { View } from './view.ts';

/**
 * `/evaluation/:run/:point`: one eval's verdict and its graded samples, a page at a time — the question
 * asked, the target, the response, what each filter extracted and whether it matched — filtered to all,
 * wrong (either filter) or failed (the server never answered, or answered nothing).
 */

const PAGE = 25;
// The schema's EVAL_SAMPLE_FILTERS, as a type-checked copy: the bundle takes no value from schema/ (zod).
const EVAL_SAMPLE_FILTERS = ['all', 'wrong', 'failed'] as const satisfies readonly EvalDetail['filter'][];

const mark = (ok: boolean) =>
  h('span', { class: ok ? 'good' : 'bad', 'data-correct': ok ? '1' : '0' }, ok ? '✓' : '✗');

function sampleCard(s: EvalSample): HTMLElement {
  return h(
    'article',
    { class: 'card sample', 'data-doc': s.docId, 'data-status': s.status },
    h(
      'h3',
      null,
      `doc ${s.docId}`,
      ' ',
      h('span', { class: `badge ${s.status === 'ok' ? 'ok' : 'failed'}` }, s.status),
    ),
    h('pre', { class: 'question' }, s.question),
    h('p', null, h('strong', null, 'Target: '), s.target),
    h('pre', { class: 'response' }, s.response ?? '(no response)'),
    h(
      'p',
      null,
      'strict-match: ',
      h('code', { 'data-filter': 'strict-match' }, s.strictAnswer),
      ' ',
      mark(s.strictCorrect),
      ' · flexible-extract: ',
      h('code', { 'data-filter': 'flexible-extract' }, s.flexibleAnswer),
      ' ',
      mark(s.flexibleCorrect),
      s.tries > 1 ? ` · ${s.tries} requests` : '',
      s.finishReason ? ` · finish_reason ${s.finishReason}` : '',
    ),
    s.error ? h('p', { class: 'status error' }, s.error) : null,
  );
}

export function evaluationSamplesView(root: HTMLElement, runId: string, pointId: string): View {
  const params = new URLSearchParams(location.search);
  const filter = (EVAL_SAMPLE_FILTERS as readonly string[]).includes(params.get('filter') ?? '')
    ? (params.get('filter') as EvalDetail['filter'])
    : 'all';
  const offset = Math.max(0, Number.parseInt(params.get('offset') ?? '0', 10) || 0);
  const status = h('p', { class: 'status', role: 'status' }, 'Loading…');
  const head = h('section', { class: 'card' }, h('h1', null, 'Eval samples'), status);
  const list = h('div', { class: 'samples' });
  root.append(h('div', { class: 'view evaluation-samples' }, head, list));
  let live = true;
  const here = evalSamplesHref({ runId, pointId });
  const href = (f: string, o: number) => `${here}?filter=${f}${o > 0 ? `&offset=${o}` : ''}`;
  getJson<EvalDetail>(`/api/runs/${encodeURIComponent(runId)}/points/${encodeURIComponent(pointId)}/eval`, {
    filter,
    offset,
    limit: PAGE,
  }).then(
    (d) => {
      if (!live) return;
      const v = d.verdict;
      clear(head);
      head.append(
        h('h1', null, `Eval samples: ${v.task} `, verdictBadge(v), ' ', simulatedBadge(v)),
        h(
          'p',
          null,
          breakable(v.pointId),
          ' · run ',
          appLink(`/runs/${encodeURIComponent(v.runId)}`, v.runId),
        ),
        h(
          'p',
          { class: 'scores' },
          `strict-match ${scoreText(v.strictMatch)} · flexible-extract ${scoreText(v.flexibleExtract)} · ` +
            `threshold ${v.threshold} from ${v.thresholdSource} (${v.thresholdRule} rule) · ${v.samples} samples` +
            (v.failedSamples > 0 ? `, ${v.failedSamples} failed` : ''),
        ),
        h(
          'nav',
          { class: 'chips', 'aria-label': 'sample filter' },
          EVAL_SAMPLE_FILTERS.map((f) =>
            appLink(href(f, 0), f, { class: `chip${f === filter ? ' active' : ''}`, 'data-filter-chip': f }),
          ),
        ),
        h(
          'p',
          { class: 'status', role: 'status' },
          d.total === 0
            ? `No ${filter === 'all' ? '' : `${filter} `}samples.`
            : `Samples ${d.offset + 1}–${d.offset + d.samples.length} of ${d.total}`,
        ),
      );
      list.append(...d.samples.map(sampleCard));
      const pager = h('p', { class: 'pager' });
      if (d.offset > 0) pager.append(appLink(href(filter, Math.max(0, d.offset - PAGE)), '← previous'), ' ');
      if (d.offset + d.samples.length < d.total)
        pager.append(appLink(href(filter, d.offset + PAGE), 'next →'));
      list.append(pager);
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
