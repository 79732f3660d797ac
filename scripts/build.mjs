// Bundles the CLI into one ES module so a command starts by loading a single file (matters for the
// whole-process speed of `infx matrix`, see bench/matrix.ts).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/infx.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __infxCreateRequire } from 'node:module'; const require = __infxCreateRequire(import.meta.url);",
  },
});
