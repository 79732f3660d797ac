import type { PointOutcome } from '../../../schema/store.ts';
import type { RunDetail } from '../../../schema/web-api.ts';
import { getJson } from '../api.ts';
import { clear, h } from '../dom.ts';
import { runChanges } from './run-changes.ts';
import { runHead } from './run-head.ts';
import { METRICS, pointRow } from './run-points.ts';
import { runTimeline } from './run-timeline.ts';
import type { View } from './view.ts';

/**
 * `/runs/:id`: the run (run-head.ts) and every planned point (run-points.ts), filtered by outcome and
 * shown a page at a time; with `?timeline=<point>`, an agentic point's session timeline (run-timeline.ts).
 */

const PAGE = 300;

export function runView(root: HTMLElement, runId: string): View {
  const status = h('p', { class: 'status', role: 'status' }, 'Loading…');
  const view = h('div', { class: 'view run' }, status);
  root.append(view);
  let live = true;
  let filter: PointOutcome | 'all' = 'all';
  let shown = PAGE;

  function render(d: RunDetail): void {
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
      runHead(d),
      runChanges(d),
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
    const timeline = new URLSearchParams(location.search).get('timeline');
    if (timeline !== null) view.insertBefore(runTimeline(runId, timeline), view.children[1] ?? null);
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
