/**
 * What does `infx router` add to a stream? The scripted server (`infx sim scripted`, its own process) is
 * reached directly and through `infx router --policy round-robin` (another process) by the same plain
 * node:http client in this process, at 64 and 1,000 concurrent streams, alternating direct and routed
 * rounds in the same run. For every request the client stamps the first body chunk (TTFT) and the end of
 * the body (E2E); the table gives p50 and p99 of each, direct and routed, and the added latency
 * (routed − direct at the same percentile). Target (issue 18): added p99 under 0.2 ms at 1,000 streams.
 *
 *   npm run bench:router
 *   npm run bench:router -- --rounds 2 --requests 2 --tokens 8      # smaller
 *   npm run bench:router -- --levels 1,8                            # other concurrencies
 *
 * Needs `npm run build` (both servers run as `node bin/infx.js …`). The client shares the machine with
 * both servers: on a small shared machine the routed figures include the router's process competing for
 * the same cores.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { percentile } from '../src/metrics/stats.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 3);
const REQUESTS = arg('requests', 3); // per stream per round
const TOKENS = arg('tokens', 8);
const TTFT_MS = arg('ttft-ms', 20);
const ITL_MS = arg('itl-ms', 20);
// --profile DIR: the router process writes a V8 CPU profile there when it stops.
const profileAt = process.argv.indexOf('--profile');
const PROFILE_DIR = profileAt > 0 ? process.argv[profileAt + 1] : undefined;
const levelsAt = process.argv.indexOf('--levels');
const LEVELS = levelsAt > 0 ? process.argv[levelsAt + 1]!.split(',').map(Number) : [64, 1000];

if (!existsSync('bin/infx.js') || !existsSync('dist/infx.mjs')) {
  console.error('bench/router: run from the repository root after `npm run build`.');
  process.exit(1);
}

interface Proc {
  url: string;
  child: ChildProcess;
}

async function startProc(args: string[], nodeArgs: string[] = []): Promise<Proc> {
  const child = spawn(process.execPath, [...nodeArgs, 'bin/infx.js', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`infx ${args[0]} exited with ${code}`)));
  });
  return { url, child };
}

async function stop(p: Proc): Promise<void> {
  const exited = once(p.child, 'exit');
  p.child.kill('SIGTERM');
  await exited;
}

const body = JSON.stringify({ model: 'bench', prompt: 'hello router', max_tokens: TOKENS, stream: true });

function one(agent: http.Agent, url: URL): Promise<{ ttft: number; e2e: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let ttft = -1;
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/v1/completions',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.on('data', () => {
          if (ttft < 0) ttft = performance.now() - t0;
        });
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode} from ${url.origin}`));
          else resolve({ ttft, e2e: performance.now() - t0 });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setNoDelay(true);
    req.end(body);
  });
}

/** `streams` concurrent streams, each sending `requests` requests one after another. */
async function round(agent: http.Agent, base: string, streams: number, requests: number) {
  const url = new URL(base);
  const ttft: number[] = [];
  const e2e: number[] = [];
  await Promise.all(
    Array.from({ length: streams }, async () => {
      for (let k = 0; k < requests; k++) {
        const r = await one(agent, url);
        ttft.push(r.ttft);
        e2e.push(r.e2e);
      }
    }),
  );
  return { ttft, e2e };
}

/** CPU seconds (user + system) a process has used, from /proc (null where there is no /proc). */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return null;
  }
}

const sorted = (xs: number[]) => Float64Array.from(xs).sort();
const f = (x: number) => x.toFixed(3).padStart(9);

async function main() {
  const started = performance.now();
  const server = await startProc([
    'sim',
    'scripted',
    '--port',
    '0',
    '--ttft-ms',
    String(TTFT_MS),
    '--itl-ms',
    String(ITL_MS),
    '--output-tokens',
    String(TOKENS),
  ]);
  const router = await startProc(
    ['router', '--backend', server.url, '--port', '0', '--policy', 'round-robin', '--health-interval', '0'],
    PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : [],
  );
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: Number.POSITIVE_INFINITY,
    maxFreeSockets: 4096,
  });
  console.log(
    `bench/router: scripted server ${server.url} (TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms, ${TOKENS} tokens), ` +
      `router ${router.url}; ${ROUNDS} rounds × ${REQUESTS} requests per stream, direct and routed alternating`,
  );
  const lines: string[] = [];
  const cpuLines: string[] = [];
  let verdict = '';
  try {
    for (const streams of LEVELS) {
      // Warm-up: open the connections (client → server, client → router → server) before measuring.
      await round(agent, server.url, streams, 1);
      await round(agent, router.url, streams, 1);
      const direct = { ttft: [] as number[], e2e: [] as number[] };
      const routed = { ttft: [] as number[], e2e: [] as number[] };
      let routerCpu = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const d = await round(agent, server.url, streams, REQUESTS);
        const cpu0 = cpuSeconds(router.child.pid);
        const x = await round(agent, router.url, streams, REQUESTS);
        const cpu1 = cpuSeconds(router.child.pid);
        if (cpu0 !== null && cpu1 !== null) routerCpu += cpu1 - cpu0;
        direct.ttft.push(...d.ttft);
        direct.e2e.push(...d.e2e);
        routed.ttft.push(...x.ttft);
        routed.e2e.push(...x.e2e);
      }
      const n = routed.ttft.length;
      cpuLines.push(
        `${String(streams).padStart(7)} streams: router CPU ${((routerCpu / n) * 1000).toFixed(3)} ms per request, ` +
          `${((routerCpu / (n * (TOKENS + 2))) * 1e6).toFixed(1)} µs per chunk relayed (${n} requests)`,
      );
      for (const metric of ['ttft', 'e2e'] as const) {
        const ds = sorted(direct[metric]);
        const rs = sorted(routed[metric]);
        const row = [50, 99].map((p) => {
          const a = percentile(ds, p);
          const b = percentile(rs, p);
          return { a, b, added: b - a, ratio: b / a };
        });
        lines.push(
          `${String(streams).padStart(7)} ${metric.padEnd(5)} ${String(ds.length).padStart(6)}` +
            row.map((c) => `${f(c.a)}${f(c.b)}${f(c.added)}${c.ratio.toFixed(4).padStart(8)}`).join(''),
        );
        if (streams === 1000 && metric === 'ttft')
          verdict =
            `added TTFT p99 at 1,000 streams: ${row[1]!.added.toFixed(3)} ms ` +
            `(target < 0.2 ms: ${row[1]!.added < 0.2 ? 'met' : 'NOT met'})`;
      }
    }
  } finally {
    agent.destroy();
    await stop(router);
    await stop(server);
  }
  console.log(
    `\n${'streams'.padStart(7)} ${'what'.padEnd(5)} ${'n'.padStart(6)}` +
      `${'p50 dir'.padStart(9)}${'p50 rtr'.padStart(9)}${'added'.padStart(9)}${'ratio'.padStart(8)}` +
      `${'p99 dir'.padStart(9)}${'p99 rtr'.padStart(9)}${'added'.padStart(9)}${'ratio'.padStart(8)}   (ms)`,
  );
  for (const l of lines) console.log(l);
  console.log('');
  for (const l of cpuLines) console.log(l);
  console.log(`\n${verdict}; the whole run took ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
