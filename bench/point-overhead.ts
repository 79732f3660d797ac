/**
 * What a simulated sweep point pays around its benchmark: starting a fresh engine exactly as a sweep point
 * does (renderSim + startEngine + waitUntilReady: spawn, start-up, readiness seen) and stopping it
 * (engine.stop(): SIGTERM, exit, the group's SIGKILL). Prints medians next to a baseline measured in this
 * same command: a bare `node -e 0` spawned the same way (own process group) until it exits, the floor any
 * Node process pays. Also how late readiness is seen: after the engine logs that it listens, and for a
 * server that logs nothing and starts listening at a random moment while waitUntilReady polls for it.
 * Targets: overhead (ready + stop) <= 200 ms; readiness seen <= 10 ms.
 *
 *   npm run bench:point            # 5 engines
 *   npm run bench:point -- --n 11  # more
 *
 * Needs `npm run build` (the engine runs as `node bin/infx.js sim serve`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allocatePort, releasePort } from '../src/engines/ports.ts';
import { startEngine, waitUntilReady } from '../src/engines/process.ts';
import { renderSim } from '../src/engines/sim.ts';
import type { EngineLaunch } from '../src/schema/engine-launch.ts';
import type { MatrixRow } from '../src/schema/matrix-row.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('n', 5);

if (!existsSync('bin/infx.js') || !existsSync('dist/infx.mjs')) {
  console.error('bench/point-overhead: run from the repository root after `npm run build`.');
  process.exit(1);
}

// DeepSeek-R1 FP8 on 8xH200 at 1k/256: a row the simulated engine knows (catalog model and hardware).
const ROW = {
  image: 'lmsysorg/sglang:v0.5.12-cu130',
  model: 'deepseek-ai/DeepSeek-R1-0528',
  'model-prefix': 'dsr1',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'h200-dgxc',
  isl: 1024,
  osl: 256,
  tp: 8,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
  conc: 4,
  'max-model-len': 2048,
  ep: 1,
  'dp-attn': false,
  'spec-decoding': 'none',
  'exp-name': 'dsr1_1k1k',
  disagg: false,
  'run-eval': false,
} as unknown as MatrixRow;

const work = mkdtempSync(join(tmpdir(), 'infx-bench-point-'));
const pointFile = join(work, 'row.json');
writeFileSync(pointFile, JSON.stringify(ROW));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;
const range = (xs: number[]) => `(${ms(Math.min(...xs))} .. ${ms(Math.max(...xs))})`;

/** A bare Node process, spawned as startEngine spawns engines (own process group, output to a file). */
async function bareNode(): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore', detached: true });
  await once(child, 'exit');
  return performance.now() - t0;
}

async function engineOnce(i: number): Promise<{ ready: number; stop: number; seen: number }> {
  const port = await allocatePort();
  const dir = join(work, `point-${i}`);
  const logPath = join(dir, 'server.log');
  mkdirSync(dir, { recursive: true });
  writeFileSync(logPath, '');
  // When the engine says it listens (its log line; inotify tells within a fraction of a ms).
  let listening = 0;
  const watcher = watch(logPath, () => {
    if (!listening && readFileSync(logPath, 'utf8').includes('listening on ')) listening = performance.now();
  });
  try {
    const launch = renderSim(ROW, {
      pointFile,
      port,
      timeScale: null,
      conc: 4,
      seed: 0,
      attempt: 1,
      faults: [],
    });
    const t0 = performance.now();
    const engine = await startEngine(launch, { cwd: work, logPath });
    await waitUntilReady(launch, engine, { timeoutMs: 60_000 });
    const t1 = performance.now();
    const { forced } = await engine.stop();
    const t2 = performance.now();
    if (forced) console.error(`  engine ${i} ignored SIGTERM and was killed`);
    return { ready: t1 - t0, stop: t2 - t1, seen: listening ? t1 - listening : Number.NaN };
  } finally {
    watcher.close();
    releasePort(port);
  }
}

/** How long after a server starts listening waitUntilReady returns (the server starts 30..130 ms in). */
async function readinessLag(): Promise<number> {
  const port = await allocatePort();
  const launch: EngineLaunch = {
    kind: 'recipe',
    framework: 'vllm',
    recipe: null,
    container: 'none',
    image: null,
    processes: [{ role: 'server', argv: ['sleep', '30'], env: {}, files: [], port, nodes: 1, gpus: 0 }],
    baseUrl: `http://127.0.0.1:${port}`,
    readyPath: '/health',
    servedModel: 'm',
  };
  const server = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end());
  const engine = await startEngine(launch, { cwd: work, logPath: join(work, 'lag.log') });
  let listening = 0;
  const timer = setTimeout(
    () => server.listen(port, '127.0.0.1', () => (listening = performance.now())),
    30 + Math.random() * 100,
  );
  try {
    await waitUntilReady(launch, engine, { timeoutMs: 10_000 });
    return performance.now() - listening;
  } finally {
    clearTimeout(timer);
    server.close();
    await engine.stop(1000);
    releasePort(port);
  }
}

try {
  console.log(
    `bench/point-overhead: ${N} fresh simulated engines, started and stopped as a sweep point does`,
  );
  await engineOnce(-1); // warms this process (fetch, spawn paths) and the page cache; not counted
  await bareNode();
  const base: number[] = [];
  const ready: number[] = [];
  const stop: number[] = [];
  const total: number[] = [];
  const lag: number[] = [];
  const seen: number[] = [];
  for (let i = 0; i < N; i++) {
    base.push(await bareNode());
    const r = await engineOnce(i);
    ready.push(r.ready);
    stop.push(r.stop);
    total.push(r.ready + r.stop);
    if (!Number.isNaN(r.seen)) seen.push(r.seen);
    lag.push(await readinessLag());
  }
  const overhead = median(total);
  const floor = median(base);
  console.log(`  spawn -> ready     median ${ms(median(ready))} ${range(ready)}`);
  console.log(`  stop               median ${ms(median(stop))} ${range(stop)}`);
  console.log(
    `  overhead           median ${ms(overhead)} ${range(total)}; target <= 200 ms: ${overhead <= 200 ? 'met' : 'NOT met'}`,
  );
  console.log(`  baseline: node -e 0, spawn -> exit, median ${ms(floor)} ${range(base)}`);
  console.log(`  ratio overhead / baseline ${(overhead / floor).toFixed(2)}x`);
  if (seen.length)
    console.log(
      `  readiness seen after the engine logs "listening on": median ${ms(median(seen))} ${range(seen)}`,
    );
  const l = median(lag);
  console.log(
    `  readiness seen after a server that logs nothing listens: median ${ms(l)} ${range(lag)}; target <= 10 ms: ${l <= 10 ? 'met' : 'NOT met'}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
