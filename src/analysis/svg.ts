import type { ChartAxis, ChartDefinition, ChartSeries } from './chart.ts';
import { steffenTangents } from './interpolate.ts';
import { SIMULATED } from './labels.ts';
import { formatTick, formatValue } from './ticks.ts';

/**
 * Renders a chart definition as a standalone SVG document: title, axes with ticks and units, a legend,
 * each series as `<g class="series" data-series="…">` with its points (circles carrying `data-run` and
 * `data-point`, for the dashboard's tooltips) and its front (a monotone curve, d3.curveMonotoneX's
 * construction in pixel space). Every text is escaped (pitfall 20).
 */

export interface SvgOptions {
  /** Draw the legend inside the image (default); the dashboard draws its own beside the chart. */
  legend?: boolean;
  /** A `<title>` (the viewer's native tooltip) per point (default); the dashboard shows its own tooltips. */
  pointTitles?: boolean;
}

export const FONT_FAMILY = 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif';

export function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`,
  );
}

const n = (v: number) => Number(v.toFixed(2)).toString();

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Maps a data value to a pixel between a and b along an axis. */
function scaler(axis: ChartAxis, a: number, b: number): (v: number) => number {
  const f = axis.scale === 'log' ? Math.log10 : (v: number) => v;
  const d0 = f(axis.domain[0]);
  const d1 = f(axis.domain[1]);
  return (v) => a + ((f(v) - d0) / (d1 - d0 || 1)) * (b - a);
}

function tickText(axis: ChartAxis, v: number): string {
  if (axis.scale === 'log') return formatTick(v, v);
  const step = axis.ticks.length > 1 ? (axis.ticks[1] as number) - (axis.ticks[0] as number) : v;
  return formatTick(v, step);
}

function axes(c: ChartDefinition, box: Box, sx: (v: number) => number, sy: (v: number) => number): string[] {
  const out: string[] = ['<g class="axes" font-size="11" fill="#333">'];
  for (const t of c.x.ticks) {
    const x = n(sx(t));
    out.push(`<line x1="${x}" x2="${x}" y1="${box.top}" y2="${box.bottom}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${x}" y="${box.bottom + 16}" text-anchor="middle">${escapeXml(tickText(c.x, t))}</text>`,
    );
  }
  for (const t of c.y.ticks) {
    const y = n(sy(t));
    out.push(`<line x1="${box.left}" x2="${box.right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${box.left - 6}" y="${y}" dy="0.32em" text-anchor="end">${escapeXml(tickText(c.y, t))}</text>`,
    );
  }
  out.push(
    `<path d="M${box.left},${box.top}V${box.bottom}H${box.right}" fill="none" stroke="#555"/>`,
    `<text class="axis-title" x="${n((box.left + box.right) / 2)}" y="${box.bottom + 38}" text-anchor="middle" ` +
      `font-size="13">${escapeXml(`${c.x.label} (${c.x.unit})`)}</text>`,
    `<text class="axis-title" transform="translate(${box.left - 56},${n((box.top + box.bottom) / 2)}) rotate(-90)" ` +
      `text-anchor="middle" font-size="13">${escapeXml(`${c.y.label} (${c.y.unit})${c.y.scale === 'log' ? ', log' : ''}`)}</text>`,
    '</g>',
  );
  return out;
}

/** The front as cubic Bézier segments with Steffen tangents computed on pixel coordinates. */
export function frontPath(px: readonly number[], py: readonly number[]): string {
  if (px.length < 2) return '';
  const m = steffenTangents(px, py);
  let d = `M${n(px[0] as number)},${n(py[0] as number)}`;
  for (let i = 0; i + 1 < px.length; i++) {
    const x0 = px[i] as number;
    const x1 = px[i + 1] as number;
    const h = (x1 - x0) / 3;
    const y0 = py[i] as number;
    const y1 = py[i + 1] as number;
    d += `C${n(x0 + h)},${n(y0 + h * (m[i] as number))} ${n(x1 - h)},${n(y1 - h * (m[i + 1] as number))} ${n(x1)},${n(y1)}`;
  }
  return d;
}

/** The stroke pattern of a series' line style (the legend draws the same). */
const dash = (s: ChartSeries) =>
  s.line === 'dashed'
    ? ' stroke-dasharray="6 4" data-line="dashed"'
    : s.line === 'dotted'
      ? ' stroke-dasharray="0.5 4" stroke-linecap="round" data-line="dotted"'
      : '';

function seriesGroup(
  c: ChartDefinition,
  s: ChartSeries,
  sx: (v: number) => number,
  sy: (v: number) => number,
  titles: boolean,
) {
  const out = [`<g class="series" data-series="${escapeXml(s.id)}">`, `<title>${escapeXml(s.label)}</title>`];
  // Pixel x must increase strictly for the spline; fronts are sorted by distinct x already.
  const px = s.front.map((p) => sx(p.x));
  const path = frontPath(
    px,
    s.front.map((p) => sy(p.y)),
  );
  if (path !== '')
    out.push(`<path class="front" d="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash(s)}/>`);
  for (const p of s.points) {
    const tip = `${s.label} · conc ${p.conc}: ${formatValue(p.x)} ${c.x.valueUnit}, ${formatValue(p.y)} ${c.y.valueUnit}`;
    out.push(
      `<circle class="point" cx="${n(sx(p.x))}" cy="${n(sy(p.y))}" r="${p.onFront ? 4 : 3}" fill="${s.color}"` +
        `${p.onFront ? '' : ' fill-opacity="0.45"'} data-conc="${p.conc}" data-run="${escapeXml(p.runId)}" ` +
        `data-point="${escapeXml(p.pointId)}">${titles ? `<title>${escapeXml(tip)}</title>` : ''}</circle>`,
    );
  }
  out.push('</g>');
  return out;
}

function legend(c: ChartDefinition, x: number, top: number, width: number, bottom: number): string[] {
  const out = ['<g class="legend" font-size="12" fill="#222">'];
  const maxChars = Math.max(8, Math.floor((width - 26) / 6.8));
  const clip = (s: string) => (s.length > maxChars ? `${s.slice(0, maxChars - 1)}…` : s);
  // A long simulated label is cut before its tag: the legend always says which series are simulated.
  const tag = ` (${SIMULATED})`;
  const clipLabel = (s: ChartSeries) =>
    s.engine !== 'simulated' || s.label.length <= maxChars
      ? clip(s.label)
      : `${s.label.slice(0, Math.max(1, maxChars - tag.length - 1))}…${tag}`;
  const rows = Math.max(1, Math.floor((bottom - top - 18 * c.notes.length) / 20));
  const shown = c.series.filter((s) => !s.hidden);
  shown.slice(0, shown.length > rows ? rows - 1 : rows).forEach((s, i) => {
    const y = top + i * 20;
    out.push(
      `<g class="legend-item" data-series="${escapeXml(s.id)}"><title>${escapeXml(s.label)}</title>` +
        (s.line === 'solid'
          ? `<rect x="${x}" y="${y}" width="14" height="10" fill="${s.color}"/>`
          : `<line x1="${x}" x2="${x + 14}" y1="${y + 5}" y2="${y + 5}" stroke="${s.color}" stroke-width="2"${dash(s)}/>`) +
        `<text x="${x + 20}" y="${y + 9}">${escapeXml(clipLabel(s))}</text></g>`,
    );
  });
  if (shown.length > rows)
    out.push(
      `<text x="${x}" y="${top + (rows - 1) * 20 + 9}">${escapeXml(`+${shown.length - rows + 1} more`)}</text>`,
    );
  c.notes.forEach((note, i) => {
    out.push(
      `<text class="note" x="${x}" y="${bottom - (c.notes.length - 1 - i) * 18}" font-size="10" fill="#666">` +
        `${escapeXml(clip(note))}<title>${escapeXml(note)}</title></text>`,
    );
  });
  out.push('</g>');
  return out;
}

/** The SVG document of a chart, at its width × height. */
export function renderSvg(c: ChartDefinition, opts: SvgOptions = {}): string {
  const withLegend = opts.legend ?? true;
  const legendWidth = withLegend ? Math.min(300, Math.round(c.width * 0.3)) : 0;
  const box: Box = { left: 76, right: c.width - legendWidth - 20, top: 64, bottom: c.height - 52 };
  const sx = scaler(c.x, box.left, box.right);
  const sy = scaler(c.y, box.bottom, box.top);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${c.width}" height="${c.height}" ` +
      `viewBox="0 0 ${c.width} ${c.height}" font-family="${FONT_FAMILY}">`,
    `<rect width="${c.width}" height="${c.height}" fill="#ffffff"/>`,
    `<text class="title" x="${box.left}" y="26" font-size="18" font-weight="bold" fill="#111">${escapeXml(c.title)}</text>`,
    `<text class="subtitle" x="${box.left}" y="46" font-size="12" fill="#555">${escapeXml(c.subtitle)}</text>`,
    ...axes(c, box, sx, sy),
    ...c.series.filter((s) => !s.hidden).flatMap((s) => seriesGroup(c, s, sx, sy, opts.pointTitles ?? true)),
    ...(withLegend ? legend(c, box.right + 24, box.top, legendWidth - 8, box.bottom) : []),
    '</svg>',
    '',
  ].join('\n');
}
