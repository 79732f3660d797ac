import type { StoredRun } from '../../../schema/store.ts';
import { getJson } from '../api.ts';
import { engineBadge } from '../components/engine-badge.ts';
import { appLink, h } from '../dom.ts';
import { when } from '../format.ts';
import type { View } from './view.ts';

/** `/runs`: every stored run, newest first, with its counts and what served it. */
export function runsView(root: HTMLElement): View {
  const status = h('p', { class: 'status', role: 'status' }, 'Loading…');
  const card = h('section', { class: 'card' }, h('h1', null, 'Runs'), status);
  root.append(h('div', { class: 'view runs' }, card));
  let live = true;
  getJson<StoredRun[]>('/api/runs').then(
    (runs) => {
      if (!live) return;
      status.textContent =
        runs.length === 0 ? 'No runs stored yet: infx ingest runs/<run-id> stores one.' : '';
      if (runs.length === 0) return;
      card.append(
        h(
          'table',
          { class: 'table' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              [
                'Run',
                'Created',
                'Status',
                'Engine',
                'Planned',
                'Ingested',
                'Failed',
                'Missing',
                'Host',
                '',
              ].map((t) => h('th', null, t)),
            ),
          ),
          h(
            'tbody',
            null,
            runs.map((r) =>
              h(
                'tr',
                null,
                h('td', null, appLink(`/runs/${encodeURIComponent(r.runId)}`, r.runId)),
                h('td', null, when(r.createdAt)),
                h('td', null, h('span', { class: `badge ${r.status}` }, r.status)),
                h('td', { class: 'engine' }, engineBadge(r.engine)),
                h('td', { class: 'num' }, r.planned),
                h('td', { class: 'num' }, r.ingested),
                h('td', { class: `num${r.failed > 0 ? ' bad' : ''}` }, r.failed),
                h('td', { class: `num${r.missing > 0 ? ' warn' : ''}` }, r.missing),
                h('td', null, r.host),
                h(
                  'td',
                  { class: 'links' },
                  appLink(`/?run=${encodeURIComponent(r.runId)}`, 'chart'),
                  ' · ',
                  appLink(`/compare?run=${encodeURIComponent(r.runId)}&baseline=official`, 'compare'),
                ),
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
