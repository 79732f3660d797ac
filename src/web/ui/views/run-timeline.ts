import type { SessionTimeline } from '../../../schema/session-timeline.ts';
import { getJson } from '../api.ts';
import { sessionTimeline } from '../components/session-timeline.ts';
import { h } from '../dom.ts';

/** The run page's session timeline of one agentic point (GET …/timeline), redrawn when a lane is picked. */
export function runTimeline(runId: string, pointId: string): HTMLElement {
  const host = h(
    'div',
    { class: 'timeline-host' },
    h('p', { class: 'status', role: 'status' }, 'Loading the timeline…'),
  );
  const load = (lane?: number) => {
    getJson<SessionTimeline>(
      `/api/runs/${encodeURIComponent(runId)}/points/${encodeURIComponent(pointId)}/timeline`,
      { lane },
    ).then(
      (t) => host.replaceChildren(sessionTimeline(t, load)),
      (err: Error) => host.replaceChildren(h('p', { class: 'status error' }, `Timeline: ${err.message}`)),
    );
  };
  load();
  return host;
}
