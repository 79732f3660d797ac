import { describe, expect, it } from 'vitest';
import { curve } from '../../test/support/curve-points.ts';
import { buildChart } from './chart.ts';
import { plot, plotFormat } from './plot.ts';
import { fontStatus, inkedPixels, renderPng } from './png.ts';
import { renderSvg } from './svg.ts';

const pngSize = (png: Uint8Array) => {
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
};
const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('renderPng', () => {
  const points = curve([
    [100, 500],
    [80, 1200],
  ]);
  const svg = renderSvg(buildChart([{ label: 'r', runIds: ['r'], points }], { width: 640, height: 400 }));

  it('a PNG of the SVG size, not blank', async () => {
    const { png, width, height } = await renderPng(svg);
    expect([...png.slice(0, 8)]).toEqual(SIGNATURE);
    expect(pngSize(png)).toEqual({ width: 640, height: 400 });
    expect({ width, height }).toEqual({ width: 640, height: 400 });
    const blank = await renderPng('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400"/>');
    expect(png.length).toBeGreaterThan(blank.png.length * 2);
    expect(await inkedPixels(svg)).toBeGreaterThan(2000);
  });

  it('text is drawn when a font exists', async () => {
    const withText =
      '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"><text x="5" y="30">Hi</text></svg>';
    const inked = await inkedPixels(withText);
    if (fontStatus().ok) expect(inked).toBeGreaterThan(0);
    else expect(fontStatus().warning).toMatch(/no system fonts/);
  });

  it('plot(): the format from the extension', async () => {
    expect(plotFormat('a/chart.SVG')).toBe('svg');
    expect(plotFormat('chart.png')).toBe('png');
    expect(plotFormat('chart.jpg')).toBeNull();
    const svgPlot = await plot([{ label: 'r', runIds: ['r'], points }], 'svg');
    expect(new TextDecoder().decode(svgPlot.bytes)).toMatch(/^<svg /);
    const pngPlot = await plot([{ label: 'r', runIds: ['r'], points }], 'png', { width: 300, height: 200 });
    expect(pngSize(pngPlot.bytes)).toEqual({ width: 300, height: 200 });
  });
});
