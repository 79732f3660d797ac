import { buildChart, type ChartDefinition, type ChartInput, type ChartOptions } from './chart.ts';
import { fontStatus, renderPng } from './png.ts';
import { renderSvg } from './svg.ts';

/** `infx plot`: the chart of one or more runs as an SVG or PNG file's bytes. */

export type PlotFormat = 'svg' | 'png';

/** The format an output path asks for, from its extension; null when neither .svg nor .png. */
export function plotFormat(path: string): PlotFormat | null {
  const m = /\.(svg|png)$/i.exec(path);
  return m === null ? null : (m[1]?.toLowerCase() as PlotFormat);
}

export interface Plot {
  chart: ChartDefinition;
  bytes: Uint8Array;
  /** Things to tell the user (no fonts for the PNG's text, notes of the chart). */
  warnings: string[];
}

export async function plot(
  inputs: readonly ChartInput[],
  format: PlotFormat,
  opts: ChartOptions = {},
): Promise<Plot> {
  const chart = buildChart(inputs, opts);
  const svg = renderSvg(chart);
  const warnings = [...chart.notes];
  if (format === 'svg') return { chart, bytes: new TextEncoder().encode(svg), warnings };
  const fonts = fontStatus();
  if (fonts.warning !== null) warnings.push(fonts.warning);
  const { png } = await renderPng(svg);
  return { chart, bytes: png, warnings };
}
