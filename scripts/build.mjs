// Bundles the CLI into one ES module so a command starts by loading a single file (matters for the
// whole-process speed of `infx matrix`, see bench/matrix.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

// Identifies what the bundle was built from, so caches of its results never outlive a change to it.
function sourceHash() {
  const hash = createHash('sha256');
  const files = readdirSync('src', { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .sort();
  for (const f of [...files, 'package-lock.json'])
    hash.update(f).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

// Chunk names carry content hashes: start clean so stale chunks never pile up.
rmSync('dist', { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  define: { __INFX_BUILD_ID__: JSON.stringify(sourceHash()) },
  // Native addons load their .node binaries from node_modules; pg's optional native binding is never used.
  external: ['better-sqlite3', '@resvg/resvg-js', 'pg-native'],
  banner: {
    js: "import { createRequire as __infxCreateRequire } from 'node:module'; const require = __infxCreateRequire(import.meta.url);",
  },
};

await build({
  ...common,
  // Split so that code only some runs need (zod and the schemas, on a parse-cache miss) loads on demand.
  // The client's and `sim predict`'s worker threads load their own entries, next to the CLI's.
  entryPoints: {
    infx: 'src/cli/bin.ts',
    'client-worker': 'src/client/worker.ts',
    'predict-worker': 'src/cli/sim-predict-worker.ts',
  },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});

// What bin/infx.js loads first for `infx matrix`: the output cache's lookup, one small file that answers a
// hit without loading the CLI (the CLI has its own copy, which stores a miss's output).
await build({
  ...common,
  entryPoints: { 'matrix-replay': 'src/cli/matrix-replay.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
});

// `infx sim serve` as an entry of its own (bin/infx.js runs it for that command): every simulated point
// starts a fresh engine process, which then loads and compiles only what the engine needs.
await build({
  ...common,
  entryPoints: { 'sim-serve': 'src/cli/sim-serve-bin.ts' },
  outdir: 'dist/sim-serve',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});

// The built-in tokenizer's vocabulary as typed arrays (src/workload/o200k-table.ts), so a process that
// needs it reads it in a few ms instead of building it (a simulated engine start, the client).
{
  mkdirSync('node_modules/.cache', { recursive: true });
  const dir = mkdtempSync(join('node_modules/.cache', 'infx-build-'));
  try {
    const outfile = join(dir, 'o200k-table.mjs');
    await build({
      ...common,
      entryPoints: ['src/workload/o200k-table.ts'],
      outfile,
      packages: 'external',
      sourcemap: false,
    });
    const { saveTable, TABLE_FILE } = await import(pathToFileURL(outfile).href);
    saveTable(join('dist', TABLE_FILE));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The dashboard UI (src/web/ui) into dist/web, with Vite.
await import('./build-web.mjs');
