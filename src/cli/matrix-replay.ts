import { BUILD_ID, defaultCacheDir } from '../config/cache.ts';
import { type CachedOutput, lookupOutput, outputKey, storeOutput } from '../config/output-cache.ts';

/**
 * `infx matrix full-sweep|test-config` answered from the output cache (src/config/output-cache.ts) before the
 * CLI is even loaded: bin/infx.js calls replayMatrix first, a separate small entry of the bundle. On a
 * miss it leaves the key for the command, which stores its output once it succeeded. `--no-cache` and
 * INFX_NO_CACHE turn it off with the parse cache, INFX_NO_OUTPUT_CACHE alone (to time the parse cache).
 */

/** The environment `infx matrix` reads: a user catalog, the recipes folder. */
const ENV = ['INFX_CATALOG', 'INFX_RECIPES_DIR'] as const;
const SUBCOMMANDS = new Set(['full-sweep', 'test-config']);

interface Pending {
  dir: string;
  key: string;
  cwd: string;
  startedAt: number;
}

// Handed from this entry to the CLI bundle in the same process (two module graphs, one global object).
const PENDING = Symbol.for('infx.matrix-output-cache');
type WithPending = { [PENDING]?: Pending };

/** Writes the cached output and returns true on a hit; false when the CLI must run. */
export function replayMatrix(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    if (BUILD_ID === undefined || argv[0] !== 'matrix' || !SUBCOMMANDS.has(argv[1] ?? '')) return false;
    if (argv.includes('--no-cache') || env.INFX_NO_OUTPUT_CACHE) return false;
    const dir = defaultCacheDir(env);
    if (dir === undefined) return false;
    const cwd = process.cwd();
    const key = outputKey({
      buildId: BUILD_ID,
      argv,
      cwd,
      env: Object.fromEntries(ENV.map((name) => [name, env[name]])),
    });
    const hit = lookupOutput(dir, key);
    if (hit === null) {
      // Files changed since the process started are not vouched for (see storeOutput).
      (globalThis as WithPending)[PENDING] = { dir, key, cwd, startedAt: performance.timeOrigin };
      return false;
    }
    // `infx matrix … | head` closes the pipe early: not an error, as in the CLI.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      process.stderr.write(`infx: cannot write the output: ${err.message}\n`);
      process.exit(1);
    });
    if (hit.stderr) process.stderr.write(hit.stderr);
    process.stdout.write(hit.stdout);
    return true;
  } catch {
    return false;
  }
}

/**
 * Called by `infx matrix` after it succeeded: stores its output under the key replayMatrix left, with the
 * files it read (absent ones included: a user catalog that appears later changes the output).
 */
export function rememberMatrixOutput(inputFiles: readonly string[], output: CachedOutput): void {
  const holder = globalThis as WithPending;
  const pending = holder[PENDING];
  if (pending === undefined) return;
  delete holder[PENDING];
  storeOutput(pending.dir, pending.key, pending.cwd, inputFiles, output, pending.startedAt);
}
