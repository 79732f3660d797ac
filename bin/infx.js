#!/usr/bin/env node
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/infx.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('infx is not built yet: run `npm run build` (or `npm ci`, which builds it).\n');
  process.exit(1);
}
const argv = process.argv.slice(2);
const [command, sub] = argv;
// `infx matrix` first asks the output cache (src/cli/matrix-replay.ts), a small entry of its own: a hit
// prints the stored output without loading the CLI at all.
const replayed =
  command === 'matrix' &&
  (await import(new URL('../dist/matrix-replay.mjs', import.meta.url).href)).replayMatrix(argv);
if (!replayed) {
  // `infx sim serve` (a fresh simulated engine per sweep point) has a slim entry of its own, which starts
  // without loading the rest of the CLI; it parses its flags exactly as the full CLI does.
  const slim = new URL('../dist/sim-serve/sim-serve.mjs', import.meta.url);
  await import(command === 'sim' && sub === 'serve' && existsSync(slim) ? slim.href : bundle.href);
}
