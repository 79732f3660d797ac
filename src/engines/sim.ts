import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineLaunch } from '../schema/engine-launch.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import type { SimFault } from '../schema/run-dir.ts';

/**
 * The simulated engine as a launch: `infx sim serve --point point.json` in a process of its own, so every
 * point gets a fresh engine exactly as a real one would, and faults can be injected for tests.
 */

/** How to run infx itself: node and the package's bin/infx.js, from sources or from the bundle. */
export function infxCommand(): string[] {
  const override = process.env.INFX_BIN;
  if (override) return [process.execPath, override];
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    const bin = join(dir, 'bin', 'infx.js');
    if (existsSync(bin)) return [process.execPath, bin];
  }
  return [process.execPath, join(process.cwd(), 'bin', 'infx.js')];
}

export interface SimLaunchOptions {
  /** A file holding the row (a matrix row, or a point.json with a `row`). */
  pointFile: string;
  port: number;
  host?: string;
  timeScale: number | null;
  /** The point's concurrency: the engine admits at least that many requests at once, as predict assumes. */
  conc: number;
  seed: number;
  attempt: number;
  faults: readonly SimFault[];
  /** A point with an eval: the engine answers the dataset's questions with this simulated accuracy. */
  evalAnswers?: { accuracy: number; dataset: string } | null;
}

function faultFlags(faults: readonly SimFault[], attempt: number): string[] {
  const flags: string[] = [];
  for (const f of faults) {
    if (f.attempts !== null && !f.attempts.includes(attempt)) continue;
    if (f.kind === 'no-start') flags.push('--fault-no-start');
    else if (f.kind === 'hang') flags.push('--fault-hang');
    else flags.push('--fault-crash-after', String(f.requests ?? 1));
  }
  return flags;
}

export function renderSim(row: MatrixRow, opts: SimLaunchOptions): EngineLaunch {
  const host = opts.host ?? '127.0.0.1';
  const argv = [
    ...infxCommand(),
    'sim',
    'serve',
    '--point',
    opts.pointFile,
    '--host',
    host,
    '--port',
    String(opts.port),
    '--served-model-name',
    row.model,
    '--seed',
    String(opts.seed),
    '--max-num-seqs',
    String(Math.max(256, opts.conc)),
    ...(opts.timeScale !== null ? ['--time-scale', String(opts.timeScale)] : []),
    ...faultFlags(opts.faults, opts.attempt),
    ...(opts.evalAnswers
      ? ['--accuracy', String(opts.evalAnswers.accuracy), '--eval-dataset', opts.evalAnswers.dataset]
      : []),
  ];
  return {
    kind: 'sim',
    framework: 'sim',
    recipe: null,
    container: 'none',
    image: null,
    processes: [{ role: 'server', argv, env: {}, files: [], port: opts.port, nodes: 1, gpus: 0 }],
    baseUrl: `http://${host}:${opts.port}`,
    readyPath: '/health',
    servedModel: row.model,
  };
}
