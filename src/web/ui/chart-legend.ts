import type { ChartDefinition, ChartSeries } from '../../analysis/chart.ts';
import { h } from './dom.ts';

/**
 * A chart's legend: a head with the number of series (and "show all" while some are hidden), then one
 * button per series that toggles it and, hovered, highlights it in the chart.
 */

export interface LegendHandlers {
  onToggle(series: ChartSeries): void;
  onShowAll(): void;
  /** The series hovered, or null when the pointer leaves. */
  onHighlight(id: string | null): void;
}

function item(s: ChartSeries, on: LegendHandlers): HTMLElement {
  const swatch = h('span', {
    class: `swatch${s.line === 'solid' ? '' : ` ${s.line}`}`,
    'data-line': s.line,
    style: `--c: ${s.color}`,
    'aria-hidden': 'true',
  });
  return h(
    'button',
    {
      type: 'button',
      class: `legend-item${s.engine === 'simulated' ? ' simulated' : ''}`,
      'data-series': s.id,
      'data-engine': s.engine,
      'aria-pressed': String(!s.hidden),
      title: `${s.hidden ? 'Show' : 'Hide'} ${s.label}`,
      onclick: () => on.onToggle(s),
      onmouseenter: () => on.onHighlight(s.id),
      onmouseleave: () => on.onHighlight(null),
    },
    swatch,
    h('span', { class: 'legend-label' }, s.label),
    h('span', { class: 'legend-count' }, s.points.length),
  );
}

export function legendContent(chart: ChartDefinition, on: LegendHandlers): HTMLElement[] {
  const hidden = chart.series.filter((s) => s.hidden).length;
  return [
    h(
      'div',
      { class: 'legend-head' },
      h('span', null, `${chart.series.length} series`),
      hidden > 0
        ? h(
            'button',
            { type: 'button', class: 'link', onclick: () => on.onShowAll() },
            `show all (${hidden} hidden)`,
          )
        : null,
    ),
    ...chart.series.map((s) => item(s, on)),
    ...(chart.series.length === 0 ? [h('p', { class: 'muted' }, 'No series.')] : []),
  ];
}
