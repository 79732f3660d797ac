import type { RunEngine } from '../../../schema/store.ts';
import { h } from '../dom.ts';

/** A run's engine as a badge: simulated, real, mixed (with the counts in its title), or none. */
export function engineBadge(e: RunEngine): HTMLElement {
  if (e.kind === null) return h('span', { class: 'muted', title: 'no result stored' }, '—');
  return h(
    'span',
    {
      class: `badge ${e.kind}`,
      'data-engine': e.kind,
      title:
        e.kind === 'mixed'
          ? `${e.simulated} simulated and ${e.real} real results`
          : e.kind === 'simulated'
            ? "served by infx's simulated engine: not measured on real hardware"
            : 'served by a real engine',
    },
    e.kind,
  );
}
