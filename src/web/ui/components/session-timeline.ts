import type { SessionTimeline } from '../../../schema/session-timeline.ts';
import { h } from '../dom.ts';
import { s, scale, ticks } from './svg.ts';

/**
 * One lane of an agentic point over time: a row per conversation (the root first, then its subagents), a
 * bar per request from sent to done (a request that never finished: to the end of the lane, hatched grey).
 * Warmup requests are pale, failed ones red; each bar's title says turn, times and outcome.
 */

const ROW = 22;
const LABEL = 200;
const W = 900;

export function sessionTimeline(t: SessionTimeline, onLane: (lane: number) => void): HTMLElement {
  const rows = t.conversations;
  const top = 18;
  const height = top + rows.length * ROW + 28;
  const sx = scale(t.startMs, t.endMs, LABEL, W - 10);
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${height}`,
    width: '100%',
    role: 'img',
    'aria-label': 'session timeline',
  });
  const sec = (ms: number) => ((ms - t.startMs) / 1000).toFixed(1);
  for (const v of ticks(0, (t.endMs - t.startMs) / 1000)) {
    const x = sx(t.startMs + v * 1000);
    svg.append(
      s('line', { x1: x, x2: x, y1: top, y2: height - 24, stroke: '#e5e7eb' }),
      s('text', { x, y: height - 10, 'text-anchor': 'middle', 'font-size': 11 }, `${v} s`),
    );
  }
  rows.forEach((c, i) => {
    const y = top + i * ROW;
    const label =
      c.branch.kind === 'root' ? 'root' : `${c.branch.kind}${c.branch.background ? ' (background)' : ''}`;
    const g = s('g', {
      class: 'conversation',
      'data-conversation': c.conversationId,
      'data-kind': c.branch.kind,
    });
    g.append(s('text', { x: 4, y: y + 15, 'font-size': 12 }, `${label}: ${c.conversationId}`));
    for (const r of c.requests) {
      const end = r.doneMs ?? t.endMs;
      const fill = !r.ok
        ? '#dc2626'
        : r.phase === 'warmup'
          ? '#93c5fd'
          : c.branch.kind === 'root'
            ? '#2563eb'
            : '#16a34a';
      g.append(
        s(
          'rect',
          {
            class: 'request',
            x: sx(r.sentMs),
            y: y + 3,
            width: Math.max(1, sx(end) - sx(r.sentMs)),
            height: ROW - 6,
            fill: r.doneMs === null ? '#9ca3af' : fill,
            'data-turn': r.turnIndex,
          },
          s(
            'title',
            {},
            `turn ${r.turnIndex} (${r.phase}): ${sec(r.sentMs)} s → ${r.doneMs === null ? 'not finished' : `${sec(r.doneMs)} s`}` +
              `${r.ok ? '' : r.cancelled ? ', cancelled' : ', failed'}`,
          ),
        ),
      );
    }
    svg.append(g);
  });
  const select = h(
    'select',
    {
      'aria-label': 'Lane',
      onchange: (e: Event) => onLane(Number((e.currentTarget as HTMLSelectElement).value)),
    },
    t.lanes.map((l) => h('option', { value: l, selected: l === t.lane }, `lane ${l}`)),
  );
  return h(
    'section',
    { class: 'card timeline', id: 'timeline', 'data-testid': 'timeline', 'data-lane': t.lane },
    h('h2', null, `Session timeline · ${t.pointId} (attempt ${t.attempt})`),
    h('label', null, 'Lane ', select),
    t.truncated
      ? h('p', { class: 'muted' }, `only the first ${t.requestCap} requests of this lane are drawn`)
      : null,
    rows.length === 0 ? h('p', { class: 'muted' }, 'this lane sent no request') : svg,
  );
}
