#!/usr/bin/env node
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/infx.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('infx is not built yet: run `npm run build` (or `npm ci`, which builds it).\n');
  process.exit(1);
}
await import(bundle.href);
