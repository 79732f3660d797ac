import {
  buildChart,
  type ChartDefinition,
  type ChartInput,
  type ChartOptions,
  type ChartSeries,
} from '../../analysis/chart.ts';
import { renderSvg } from '../../analysis/svg.ts';
import type { CurvePoint } from '../../schema/curve.ts';
import { legendContent } from './chart-legend.ts';
import { tooltipContent } from './chart-tooltip.ts';
import { clear, h } from './dom.ts';

/**
 * The chart of the inference and compare views: src/analysis's chart definition rendered by its SVG
 * renderer (the same image `infx plot` writes), plus what a page adds — a legend that toggles series and
 * highlights them on hover (chart-legend.ts), tooltips on hover that a click pins (chart-tooltip.ts), and a
 * PNG export rasterized by a canvas.
 * Render time is measured on the browser's performance timeline (`infx:chart-render`).
 */

export interface ChartView {
  inputs: ChartInput[];
  options: ChartOptions;
}

export interface PanelHandlers {
  /** A legend item was clicked. */
  onToggle(series: ChartSeries): void;
  /** "Show all" in the legend. */
  onShowAll(): void;
}

const key = (runId: string, pointId: string) => `${runId}\u0000${pointId}`;

let renders = 0;

export class ChartPanel {
  readonly el: HTMLElement;
  private readonly host: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly tip: HTMLElement;
  private readonly notes: HTMLElement;
  private chart: ChartDefinition | null = null;
  private view: ChartView | null = null;
  private points = new Map<string, CurvePoint>();
  private pinned: SVGCircleElement | null = null;
  private readonly onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') this.unpin();
  };

  constructor(
    private readonly handlers: PanelHandlers,
    private readonly height = 500,
  ) {
    this.host = h('div', { class: 'chart-host', 'data-testid': 'chart' });
    this.tip = h('div', { class: 'tooltip', role: 'tooltip', hidden: true });
    this.legend = h('aside', { class: 'legend', 'aria-label': 'Series' });
    this.notes = h('ul', { class: 'chart-notes' });
    this.el = h(
      'div',
      { class: 'chart-panel' },
      h(
        'div',
        { class: 'chart-layout' },
        h('div', { class: 'chart-wrap' }, this.host, this.tip),
        this.legend,
      ),
      this.notes,
    );
    this.host.addEventListener('mouseover', (e) => this.hover(e));
    this.host.addEventListener('mousemove', (e) => {
      if (this.pinned === null && !this.tip.hidden) this.place(e.clientX, e.clientY);
    });
    this.host.addEventListener('mouseout', (e) => {
      if (this.pinned === null && (e.target as Element).matches?.('circle.point')) this.tip.hidden = true;
    });
    this.host.addEventListener('click', (e) => this.click(e));
    document.addEventListener('keydown', this.onKey);
  }

  dispose(): void {
    document.removeEventListener('keydown', this.onKey);
  }

  get definition(): ChartDefinition | null {
    return this.chart;
  }

  /** Draws the view at the panel's width; returns the chart definition drawn. */
  render(view: ChartView): ChartDefinition {
    const n = ++renders;
    performance.mark(`infx:chart-start:${n}`);
    this.view = view;
    this.unpin();
    const width = Math.max(480, Math.floor(this.host.clientWidth || 880));
    const chart = buildChart(view.inputs, { ...view.options, width, height: this.height });
    this.chart = chart;
    this.points = new Map(view.inputs.flatMap((i) => i.points.map((p) => [key(p.runId, p.pointId), p])));
    // renderSvg escapes every text it writes (pitfall 20); the markup is ours.
    this.host.innerHTML = renderSvg(chart, { legend: false, pointTitles: false });
    this.renderLegend(chart);
    clear(this.notes);
    for (const note of chart.notes) this.notes.append(h('li', null, note));
    this.host.getBoundingClientRect();
    performance.mark(`infx:chart-end:${n}`);
    performance.measure('infx:chart-render', `infx:chart-start:${n}`, `infx:chart-end:${n}`);
    // Until the frame is painted: what the user waits for.
    requestAnimationFrame(() =>
      setTimeout(() => performance.measure('infx:chart-paint', `infx:chart-start:${n}`), 0),
    );
    const drawn = chart.series.reduce((k, s) => k + (s.hidden ? 0 : s.points.length), 0);
    this.host.dataset.points = String(drawn);
    this.host.dataset.series = String(chart.series.filter((s) => !s.hidden).length);
    return chart;
  }

  private renderLegend(chart: ChartDefinition): void {
    clear(this.legend);
    this.legend.append(
      ...legendContent(chart, { ...this.handlers, onHighlight: (id) => this.highlight(id) }),
    );
  }

  private highlight(id: string | null): void {
    const svg = this.host.querySelector('svg');
    if (!svg) return;
    svg.classList.toggle('highlighting', id !== null);
    for (const g of svg.querySelectorAll('g.series.hl')) g.classList.remove('hl');
    if (id !== null) svg.querySelector(`g.series[data-series="${CSS.escape(id)}"]`)?.classList.add('hl');
  }

  private pointOf(c: Element): { point: CurvePoint; series: ChartSeries } | null {
    const g = c.closest('g.series');
    const series = this.chart?.series.find((s) => s.id === g?.getAttribute('data-series'));
    const point = this.points.get(key(c.getAttribute('data-run') ?? '', c.getAttribute('data-point') ?? ''));
    return series && point ? { point, series } : null;
  }

  private hover(e: MouseEvent): void {
    if (this.pinned !== null) return;
    const c = (e.target as Element).closest?.('circle.point');
    if (!c) return;
    const found = this.pointOf(c);
    if (!found) return;
    this.fill(found.point, found.series, false);
    this.place(e.clientX, e.clientY);
  }

  private click(e: MouseEvent): void {
    const c = (e.target as Element).closest?.('circle.point') as SVGCircleElement | null;
    if (!c) {
      this.unpin();
      return;
    }
    const found = this.pointOf(c);
    if (!found) return;
    this.unpin();
    this.pinned = c;
    c.classList.add('pinned');
    this.fill(found.point, found.series, true);
    const r = c.getBoundingClientRect();
    this.place(r.left + r.width / 2, r.top + r.height / 2);
  }

  unpin(): void {
    this.pinned?.classList.remove('pinned');
    this.pinned = null;
    this.tip.hidden = true;
    this.tip.classList.remove('pinned');
  }

  private place(clientX: number, clientY: number): void {
    const box = this.host.getBoundingClientRect();
    const tw = this.tip.offsetWidth;
    const th = this.tip.offsetHeight;
    let x = clientX - box.left + 14;
    let y = clientY - box.top + 14;
    if (x + tw > box.width) x = Math.max(0, clientX - box.left - tw - 14);
    if (y + th > box.height) y = Math.max(0, box.height - th);
    this.tip.style.left = `${x}px`;
    this.tip.style.top = `${y}px`;
  }

  private fill(p: CurvePoint, s: ChartSeries, pinned: boolean): void {
    clear(this.tip);
    this.tip.append(...tooltipContent(p, s, this.view?.options ?? {}, pinned, () => this.unpin()));
    this.tip.classList.toggle('pinned', pinned);
    this.tip.hidden = false;
  }

  /** The chart as a PNG (with its legend), rasterized from the SVG by a canvas at twice the size. */
  async png(width = 1280, height = 720): Promise<Blob> {
    if (this.view === null) throw new Error('nothing drawn yet');
    const chart = buildChart(this.view.inputs, { ...this.view.options, width, height });
    const svg = renderSvg(chart, { legend: true, pointTitles: false });
    const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    try {
      const img = new Image(width, height);
      img.src = url;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = width * 2;
      canvas.height = height * 2;
      const ctx = canvas.getContext('2d');
      if (ctx === null) throw new Error('no 2D canvas');
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      return await new Promise<Blob>((ok, fail) =>
        canvas.toBlob((b) => (b ? ok(b) : fail(new Error('the canvas gave no PNG'))), 'image/png'),
      );
    } finally {
      URL.revokeObjectURL(url);
    }
  }
}
