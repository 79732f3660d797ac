import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * SVG → PNG with resvg (a native addon, loaded only when a PNG is asked for). resvg draws text only with a
 * font it can find: it loads the system fonts and prefers DejaVu Sans (Linux), then the SVG's other
 * families. With no font at all, resvg skips the text and the PNG has shapes only: `fontStatus()` says
 * so, so the CLI can warn.
 */

export const DEFAULT_FONT_FAMILY = 'DejaVu Sans';

/** Folders resvg's system-font loader searches (fontdb), per platform. */
function fontDirs(): string[] {
  const home = homedir();
  if (process.platform === 'darwin')
    return ['/Library/Fonts', '/System/Library/Fonts', join(home, 'Library/Fonts')];
  if (process.platform === 'win32') return [join(process.env.WINDIR ?? 'C:\\Windows', 'Fonts')];
  return [
    '/usr/share/fonts',
    '/usr/local/share/fonts',
    join(home, '.fonts'),
    join(home, '.local/share/fonts'),
  ];
}

function hasFontFile(dir: string, depth = 0): boolean {
  if (depth > 4 || !existsSync(dir)) return false;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    if (e.isFile() && /\.(ttf|otf|ttc|otc)$/i.test(e.name)) return true;
    if ((e.isDirectory() || e.isSymbolicLink()) && hasFontFile(join(dir, e.name), depth + 1)) return true;
  }
  return false;
}

/** Whether any system font exists for resvg to draw text with; a warning to show otherwise. */
export function fontStatus(): { ok: boolean; warning: string | null } {
  if (fontDirs().some((d) => hasFontFile(d))) return { ok: true, warning: null };
  return {
    ok: false,
    warning:
      'no system fonts found (looked in ' +
      `${fontDirs().join(', ')}): the PNG has no text; install a font (e.g. apt-get install fonts-dejavu-core) ` +
      'or write an .svg instead',
  };
}

export interface PngImage {
  png: Uint8Array;
  width: number;
  height: number;
}

/** Rasterizes an SVG document at its own size (white background). */
export async function renderPng(svg: string): Promise<PngImage> {
  const { Resvg } = await import('@resvg/resvg-js');
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    fitTo: { mode: 'original' },
    font: {
      loadSystemFonts: true,
      defaultFontFamily: DEFAULT_FONT_FAMILY,
      sansSerifFamily: DEFAULT_FONT_FAMILY,
    },
  });
  const image = resvg.render();
  return { png: new Uint8Array(image.asPng()), width: image.width, height: image.height };
}

/** How many pixels of an RGBA raster differ from white: a blank image has none. */
export async function inkedPixels(svg: string): Promise<number> {
  const { Resvg } = await import('@resvg/resvg-js');
  const image = new Resvg(svg, {
    background: '#ffffff',
    font: { loadSystemFonts: true, defaultFontFamily: DEFAULT_FONT_FAMILY },
  }).render();
  const px = image.pixels;
  let inked = 0;
  for (let i = 0; i + 3 < px.length; i += 4) {
    if ((px[i] as number) < 250 || (px[i + 1] as number) < 250 || (px[i + 2] as number) < 250) inked++;
  }
  return inked;
}
