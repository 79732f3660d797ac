import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard UI (src/web/ui) built into dist/web, which `infx serve` serves. Plain TypeScript and DOM,
 * no framework; it imports the browser-safe parts of src/analysis (the chart definition and SVG renderer
 * `infx plot` uses) and src/schema types.
 */

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('./src/web/ui'),
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  clearScreen: false,
  build: {
    outDir: here('./dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
  },
});
