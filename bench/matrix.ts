/**
 * Whole-process speed of `infx matrix full-sweep` over both reference master configs (1820 rows), the way
 * CI calls it: a fresh process each time, with no cache, with the parse cache, and with the output cache
 * (src/config/output-cache.ts). Compared, in this same command, against Node's own start-up (the floor for
 * any Node CLI) and, when INFX_REFERENCE_GENERATOR points at the reference's generate_sweep_configs.py,
 * against the reference generator itself: the ratio of infx's time to the reference's is the figure the
 * target is set in (at most 0.10).
 *
 *   npm run bench                                   # infx only
 *   INFX_REFERENCE_GENERATOR=/path/to/InferenceX/utils/matrix_logic/generate_sweep_configs.py npm run bench
 *
 * Options: --runs N (default 15).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const TARGET_MS = 150;
const TARGET_RATIO = 0.1;
const root = resolve(import.meta.dirname ?? '.', '..');
const repo = existsSync(join(process.cwd(), 'bin/infx.js')) ? process.cwd() : root;
const fixtures = process.env.INFX_FIXTURES ?? resolve(repo, '../shared/fixtures/inferencex');
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 15;

if (!existsSync(join(fixtures, 'golden/full-sweep.args'))) {
  console.error(
    `bench/matrix: reference fixtures not found at ${fixtures}; set INFX_FIXTURES to the folder holding configs/ and golden/.`,
  );
  process.exit(1);
}
if (!existsSync(join(repo, 'dist/infx.mjs'))) {
  console.error('bench/matrix: infx is not built; run `npm run build` first.');
  process.exit(1);
}

const args = readFileSync(join(fixtures, 'golden/full-sweep.args'), 'utf8').trim().split(/\s+/);
const golden = readFileSync(join(fixtures, 'golden/full-sweep.json'), 'utf8');
const bin = join(repo, 'bin/infx.js');

interface Case {
  name: string;
  cmd: string;
  argv: string[];
  env?: Record<string, string>;
  check?: boolean;
}

function once(c: Case): { ms: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(c.cmd, c.argv, {
    cwd: fixtures,
    env: { ...process.env, ...c.env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

function measure(c: Case): number[] {
  const first = once(c);
  if (c.check && first.stdout !== golden)
    throw new Error(`${c.name}: output differs from golden/full-sweep.json`);
  once(c);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(once(c).ms);
  return times.sort((a, b) => a - b);
}

const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const cacheDir = mkdtempSync(join(tmpdir(), 'infx-bench-cache-'));
const cases: Case[] = [
  { name: 'node -e 0 (Node start-up floor)', cmd: process.execPath, argv: ['-e', '0'] },
  {
    name: 'infx, no parse cache (cold)',
    cmd: process.execPath,
    argv: [bin, 'matrix', ...args, '--no-cache'],
    check: true,
  },
  {
    name: 'infx, parse cache warm',
    cmd: process.execPath,
    argv: [bin, 'matrix', ...args],
    env: { INFX_CACHE_DIR: cacheDir, INFX_NO_OUTPUT_CACHE: '1' },
    check: true,
  },
  {
    name: 'infx, output cache warm',
    cmd: process.execPath,
    argv: [bin, 'matrix', ...args],
    env: { INFX_CACHE_DIR: cacheDir },
    check: true,
  },
];
const reference = process.env.INFX_REFERENCE_GENERATOR;
if (reference) {
  cases.push({
    name: 'reference generate_sweep_configs.py',
    cmd: 'python3',
    argv: [reference, ...args],
    check: true,
  });
}

console.log(
  `infx matrix full-sweep, both reference master configs, ${RUNS} runs each (after 2 warm-up runs), whole-process wall time in ms`,
);
console.log(`${'command'.padEnd(40)} ${'median'.padStart(8)} ${'p90'.padStart(8)} ${'min'.padStart(8)}`);
const medians = new Map<string, number>();
for (const c of cases) {
  const t = measure(c);
  medians.set(c.name, q(t, 0.5));
  console.log(
    `${c.name.padEnd(40)} ${q(t, 0.5).toFixed(1).padStart(8)} ${q(t, 0.9).toFixed(1).padStart(8)} ${t[0]!.toFixed(1).padStart(8)}`,
  );
}
rmSync(cacheDir, { recursive: true, force: true });

const floor = medians.get(cases[0]!.name)!;
const cold = medians.get(cases[1]!.name)!;
const warm = medians.get(cases[2]!.name)!;
const hit = medians.get(cases[3]!.name)!;
console.log('');
console.log(
  `infx above Node start-up: cold +${(cold - floor).toFixed(1)} ms, parse cache +${(warm - floor).toFixed(1)} ms, output cache +${(hit - floor).toFixed(1)} ms`,
);
console.log(
  `ratio to the Node start-up floor: cold ${(cold / floor).toFixed(2)}x, parse cache ${(warm / floor).toFixed(2)}x, output cache ${(hit / floor).toFixed(2)}x`,
);
if (reference) {
  const ref = medians.get(cases[4]!.name)!;
  console.log(
    `ratio to the reference generator (infx / reference): cold ${(cold / ref).toFixed(3)}, parse cache ${(warm / ref).toFixed(3)}, output cache ${(hit / ref).toFixed(3)}; target <= ${TARGET_RATIO}: ${hit / ref <= TARGET_RATIO ? 'met' : 'NOT met'}`,
  );
} else {
  console.log(
    'ratio to the reference generator: not measured (set INFX_REFERENCE_GENERATOR to its generate_sweep_configs.py)',
  );
}
console.log(
  `target < ${TARGET_MS} ms: cold ${cold < TARGET_MS ? 'met' : 'NOT met'} (${cold.toFixed(0)} ms), parse cache ${warm < TARGET_MS ? 'met' : 'NOT met'} (${warm.toFixed(0)} ms), output cache ${hit < TARGET_MS ? 'met' : 'NOT met'} (${hit.toFixed(0)} ms)`,
);
