import { plural } from '../schema/plural.ts';
import { buildChart, type ChartDefinition, type ChartInput, type ChartOptions } from './chart.ts';
import { fontStatus, renderPng } from './png.ts';
import { SourceError } from './source-error.ts';
import type { SkippedPoint } from './sources.ts';
import { renderSvg } from './svg.ts';

/** `infx plot`: the chart of one or more runs as an SVG or PNG file's bytes. */

export type PlotFormat = 'svg' | 'png';

/** The format an output path asks for, from its extension; null when neither .svg nor .png. */
export function plotFormat(path: string): PlotFormat | null {
  const m = /\.(svg|png)$/i.exec(path);
  return m === null ? null : (m[1]?.toLowerCase() as PlotFormat);
}

/** A run to plot: its curve points and the planned points that have none (failed, not run), and why. */
export interface PlotInput extends ChartInput {
  skipped?: readonly SkippedPoint[];
}

export interface Plot {
  chart: ChartDefinition;
  bytes: Uint8Array;
  /** Things to tell the user (points left out and why, no fonts for the PNG's text, notes of the chart). */
  warnings: string[];
}

/** How many skipped points a note names, with their reasons; the rest are counted. */
const EXAMPLES = 3;

/**
 * What the chart leaves out, in one line: the planned points with no result (failed, not run) and the
 * points it could not draw (invalid, without a value on an axis), then a few of the former with why.
 */
function leftOutNotes(inputs: readonly PlotInput[], chart: ChartDefinition): string[] {
  const skipped = inputs.flatMap((i) => i.skipped ?? []);
  const { invalid, noValue, without } = chart.leftOut;
  const total = skipped.length + invalid + noValue;
  if (total === 0) return [];
  const planned = total + chart.series.reduce((n, s) => n + s.points.length, 0);
  const why = [
    skipped.length > 0 ? `${skipped.length} without a usable result (failed or not run)` : null,
    invalid > 0 ? `${invalid} invalid` : null,
    noValue > 0 ? `${noValue} ${without}` : null,
  ].filter((w) => w !== null);
  const lines = [`left out ${total} of ${plural(planned, 'point')}: ${why.join(', ')}`];
  for (const s of skipped.slice(0, EXAMPLES)) lines.push(`  ${s.pointId}: ${s.reason}`);
  if (skipped.length > EXAMPLES) lines.push(`  … and ${skipped.length - EXAMPLES} more without a result`);
  return lines;
}

export async function plot(
  inputs: readonly PlotInput[],
  format: PlotFormat,
  opts: ChartOptions = {},
): Promise<Plot> {
  const chart = buildChart(inputs, opts);
  const leftOut = leftOutNotes(inputs, chart);
  if (chart.series.every((s) => s.points.length === 0))
    throw new SourceError(
      `nothing to plot: ${inputs.map((i) => i.label).join(', ')} ${inputs.length === 1 ? 'has' : 'have'} no ` +
        `valid point to draw (${leftOut[0] ?? 'no points at all'}); no file written` +
        leftOut
          .slice(1)
          .map((l) => `\n${l}`)
          .join(''),
    );
  const svg = renderSvg(chart);
  // The chart's own left-out note is in the image; the terminal gets the fuller one.
  const warnings = [...leftOut, ...chart.notes.filter((n) => n !== chart.leftOutNote)];
  if (format === 'svg') return { chart, bytes: new TextEncoder().encode(svg), warnings };
  const fonts = fontStatus();
  if (fonts.warning !== null) warnings.push(fonts.warning);
  const { png } = await renderPng(svg);
  return { chart, bytes: png, warnings };
}
