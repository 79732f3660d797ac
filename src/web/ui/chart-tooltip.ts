import { SHORT_LABEL, SHORT_UNIT, X_AXIS, yAxisSpec } from '../../analysis/axes.ts';
import type { ChartOptions, ChartSeries } from '../../analysis/chart.ts';
import { gpuHourPrice } from '../../analysis/cost.ts';
import { engineLabel, parallelismLabel } from '../../analysis/labels.ts';
import type { CurvePoint } from '../../schema/curve.ts';
import { appLink, type Child, h } from './dom.ts';
import { fmt, money, when } from './format.ts';

/**
 * What a chart's tooltip says about one point: the plotted values first, then its other metrics, what
 * served it and where it came from; pinned, links to the point in its run and to its stored result.
 */

function rows(p: CurvePoint, o: ChartOptions): HTMLElement[] {
  const stat = o.stat ?? 'median';
  const xSpec = X_AXIS[o.x ?? 'interactivity'];
  const ySpec = yAxisSpec(o.y ?? 'tput', o.pricePerGpuHour);
  const price = gpuHourPrice(p.config.hardware, o.pricePerGpuHour);
  const m = p.metrics;
  const row = (name: string, value: Child, cls = 'tip-row'): HTMLElement =>
    h('div', { class: cls }, h('dt', null, name), h('dd', null, value));
  return [
    row(
      `${xSpec.label} (${stat})`,
      `${fmt(xSpec.value(p, stat))} ${xSpec.valueUnit ?? xSpec.unit}`,
      'tip-row plotted',
    ),
    row(ySpec.label, `${fmt(ySpec.value(p, stat))} ${ySpec.valueUnit ?? ySpec.unit}`, 'tip-row plotted'),
    row(
      SHORT_LABEL.tput,
      `${fmt(m.tputPerGpu)} total · ${fmt(m.outputTputPerGpu)} out · ${fmt(m.inputTputPerGpu)} in`,
    ),
    row(
      SHORT_LABEL.interactivity,
      `${fmt(m.interactivity.median)} median · ${fmt(m.interactivity.p90)} p90 ${X_AXIS.interactivity.unit}`,
    ),
    row(SHORT_LABEL.ttft, `${fmt(m.ttftMs.median)} median · ${fmt(m.ttftMs.p99)} p99 ${X_AXIS.ttft.unit}`),
    row(
      SHORT_LABEL.e2el,
      `${fmt(m.e2elMs.median === null ? null : m.e2elMs.median / 1000)} ${X_AXIS.e2el.unit} median`,
    ),
    row(
      SHORT_LABEL.cost,
      price.perGpuHour === null
        ? 'no price for this GPU'
        : `${money(yAxisSpec('cost', o.pricePerGpuHour).value(p, stat))} /M tokens at $${price.perGpuHour}/GPU-h` +
            (price.source === 'catalog' ? ' (catalog)' : ''),
    ),
    m.joulesPerOutputToken === null
      ? null
      : row(SHORT_LABEL.energy, `${fmt(m.joulesPerOutputToken)} ${SHORT_UNIT.energy}`),
    row('Engine', engineLabel(p.engine), `tip-row engine ${p.engine.kind}`),
    row('Concurrency', String(p.conc)),
    row('GPUs', `${p.gpus} · ${parallelismLabel(p.config)}`),
    row('Precision', p.config.precision),
    row('Image', p.image),
    row(
      'Run',
      h('span', null, appLink(`/runs/${encodeURIComponent(p.runId)}`, p.runId), ` · ${when(p.createdAt)}`),
    ),
    p.valid ? null : row('Valid', 'no: failed the validity gate'),
  ].filter((r): r is HTMLElement => r !== null);
}

/** The tooltip's content for point `p` of series `s` drawn with options `o`. */
export function tooltipContent(
  p: CurvePoint,
  s: ChartSeries,
  o: ChartOptions,
  pinned: boolean,
  onClose: () => void,
): HTMLElement[] {
  return [
    h(
      'div',
      { class: 'tip-head' },
      h('span', { class: 'swatch', style: `--c: ${s.color}` }),
      h('strong', null, s.label),
      pinned
        ? h('button', { type: 'button', class: 'tip-close', 'aria-label': 'Close', onclick: onClose }, '×')
        : null,
    ),
    h('dl', null, rows(p, o)),
    pinned
      ? h(
          'div',
          { class: 'tip-links' },
          appLink(
            `/runs/${encodeURIComponent(p.runId)}#${encodeURIComponent(p.pointId)}`,
            'point in its run',
          ),
          h(
            'a',
            {
              href: `/api/runs/${encodeURIComponent(p.runId)}/points/${encodeURIComponent(p.pointId)}/result`,
              target: '_blank',
              rel: 'noopener',
            },
            'result.json',
          ),
        )
      : h('p', { class: 'tip-hint' }, 'click to pin'),
  ];
}
