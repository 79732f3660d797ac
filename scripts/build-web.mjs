// Builds the dashboard UI (src/web/ui) into dist/web with Vite (config: vite.web.config.ts); run by
// scripts/build.mjs after the CLI bundle, so `npm run build` and `npm ci` (prepare) build both.
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

await build({
  configFile: fileURLToPath(new URL('../vite.web.config.ts', import.meta.url)),
  logLevel: 'warn',
});
