import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MatrixRow } from '../src/schema/matrix-row.ts';
import { REPO_ROOT } from './helpers.ts';
import { type Fields, fixedRow } from './rows.ts';

/** Small sweeps for tests: rows the simulated engine serves quickly, the CLI as a child, the process table. */

export const BIN = join(REPO_ROOT, 'bin/infx.js');

/** Llama-3.1-8B on H100 at 256/64 tokens: a few hundred ms per point at a time scale of 20. */
export const smallRow = (over: Fields = {}): MatrixRow =>
  fixedRow({
    image: 'vllm/vllm-openai:v0.11.0',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    'model-prefix': 'llama8b',
    precision: 'bf16',
    framework: 'vllm',
    runner: 'h100',
    isl: 256,
    osl: 64,
    tp: 1,
    'max-model-len': 576,
    'exp-name': 'llama8b_256_64',
    ...over,
  });

export function writeMatrix(dir: string, rows: readonly MatrixRow[], name = 'matrix.json'): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(rows));
  return path;
}

/** Flags that keep every point short. */
export const FAST = [
  '--sim-time-scale',
  '20',
  '--num-prompts',
  '8',
  '--warmup',
  '2',
  '--ready-timeout',
  '20',
];

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function spawnInfx(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): { child: ChildProcess; finished: Promise<Finished> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const finished = new Promise<Finished>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, finished };
}

export const infx = (args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd?: string) =>
  spawnInfx(args, env, cwd).finished;

/** Pids of live processes whose command line mentions `text` (zombies and this process excluded). */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(text)) pids.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Polls `check` every 100 ms until it returns true or `ms` pass; returns its last answer. */
export async function eventually(check: () => boolean, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

export const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/**
 * Makes a copied run directory a run of its own named `runId`: the manifest, its planned points, every
 * spec.json and point.json (ingest refuses a directory whose files claim another run than its manifest).
 */
export function renameRun(dir: string, runId: string, manifestChanges: Record<string, unknown> = {}): void {
  const manifestPath = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  Object.assign(manifest, { runId, ...manifestChanges });
  for (const p of manifest.points) p.runId = runId;
  writeFileSync(manifestPath, JSON.stringify(manifest));
  for (const point of readdirSync(join(dir, 'points'))) {
    const files = [join(dir, 'points', point, 'spec.json')];
    for (const a of readdirSync(join(dir, 'points', point)).filter((n) => n.startsWith('attempt-')))
      files.push(join(dir, 'points', point, a, 'point.json'));
    for (const f of files) {
      let doc: { runId?: string };
      try {
        doc = JSON.parse(readFileSync(f, 'utf8'));
      } catch {
        continue;
      }
      doc.runId = runId;
      writeFileSync(f, JSON.stringify(doc));
    }
  }
}
