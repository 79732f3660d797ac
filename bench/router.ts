/**
 * What does `infx router` add to a stream? The scripted server (`infx sim scripted`, its own process) is
 * reached directly and through `infx router --policy round-robin` (another process) by the same plain
 * node:http client in this process, at 64 and 1,000 concurrent streams, alternating direct and routed
 * rounds in the same run. For every request the client stamps the first body chunk (TTFT) and the end of
 * the body (E2E); the table gives p50 and p99 of each, direct and routed, and the added latency
 * (routed − direct at the same percentile). Target (issue 18): added p99 under 0.2 ms at 1,000 streams.
 * A third path, a bare TCP pipe process (no HTTP, no routing), shows the floor any user-space proxy has on
 * the machine the bench runs on.
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

/**
 * The floor of any user-space proxy on this machine: a process that only pipes each TCP connection to the
 * backend (no HTTP parsing, no routing), run the same way as the router.
 */
const PIPE = `
const net = require('node:net');
const [host, port] = process.argv[1].split(':');
const server = net.createServer((client) => {
  client.setNoDelay(true);
  const up = net.connect(Number(port), host);
  up.setNoDelay(true);
  client.pipe(up).pipe(client);
  client.on('error', () => up.destroy());
  up.on('error', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => process.exit(0));
`;

async function startPipe(backend: string): Promise<Proc> {
  const child = spawn(process.execPath, ['-e', PIPE, new URL(backend).host], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (c: Buffer) => resolve(/listening on (\S+)/.exec(c.toString())![1]!));
    child.once('exit', (code) => reject(new Error(`the TCP pipe exited with ${code}`)));
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
  const pipe = await startPipe(server.url);
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: Number.POSITIVE_INFINITY,
    maxFreeSockets: 4096,
  });
  console.log(
    `bench/router: scripted server ${server.url} (TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms, ${TOKENS} tokens), ` +
      `router ${router.url}, TCP pipe ${pipe.url}; ${ROUNDS} rounds × ${REQUESTS} requests per stream, ` +
      'direct, router and pipe in turn',
  );
  const paths = [
    { name: 'direct', proc: server },
    { name: 'router', proc: router },
    { name: 'pipe', proc: pipe },
  ];
  const lines: string[] = [];
  const cpuLines: string[] = [];
  let verdict = '';
  try {
    for (const streams of LEVELS) {
      // Warm-up: open every connection (client → server, client → router → server, …) before measuring.
      for (const p of paths) await round(agent, p.proc.url, streams, 1);
      const got = paths.map(() => ({ ttft: [] as number[], e2e: [] as number[], cpu: 0 }));
      for (let r = 0; r < ROUNDS; r++) {
        for (const [i, p] of paths.entries()) {
          const cpu0 = cpuSeconds(p.proc.child.pid);
          const x = await round(agent, p.proc.url, streams, REQUESTS);
          const cpu1 = cpuSeconds(p.proc.child.pid);
          if (cpu0 !== null && cpu1 !== null) got[i]!.cpu += cpu1 - cpu0;
          got[i]!.ttft.push(...x.ttft);
          got[i]!.e2e.push(...x.e2e);
        }
      }
      for (const [i, p] of paths.entries()) {
        if (i === 0) continue;
        const n = got[i]!.ttft.length;
        const cpu = got[i]!.cpu;
        cpuLines.push(
          `${String(streams).padStart(7)} streams: ${p.name} CPU ${((cpu / n) * 1000).toFixed(3)} ms per request, ` +
            `${((cpu / (n * (TOKENS + 2))) * 1e6).toFixed(1)} µs per chunk relayed (${n} requests)`,
        );
      }
      for (const metric of ['ttft', 'e2e'] as const) {
        const base = sorted(got[0]![metric]);
        const b50 = percentile(base, 50);
        const b99 = percentile(base, 99);
        for (const [i, p] of paths.entries()) {
          const xs = sorted(got[i]![metric]);
          const p50 = percentile(xs, 50);
          const p99 = percentile(xs, 99);
          lines.push(
            `${String(streams).padStart(7)} ${metric.padEnd(5)}${p.name.padStart(7)}${String(xs.length).padStart(6)}` +
              `${f(p50)}${f(p99)}${i === 0 ? '        —        —      —' : `${f(p50 - b50)}${f(p99 - b99)}${(p99 / b99).toFixed(3).padStart(7)}`}`,
          );
          if (streams === 1000 && metric === 'ttft' && p.name === 'router')
            verdict =
              `added TTFT p99 at 1,000 streams: ${(p99 - b99).toFixed(3)} ms through infx router ` +
              `(target < 0.2 ms: ${p99 - b99 < 0.2 ? 'met' : 'NOT met'})`;
        }
      }
    }
  } finally {
    agent.destroy();
    await stop(pipe);
    await stop(router);
    await stop(server);
  }
  console.log(
    `\n${'streams'.padStart(7)} ${'what'.padEnd(5)}${'path'.padStart(7)}${'n'.padStart(6)}` +
      `${'p50'.padStart(9)}${'p99'.padStart(9)}${'+p50'.padStart(9)}${'+p99'.padStart(9)}${'p99 ×'.padStart(7)}   (ms; + is against direct)`,
  );
  for (const l of lines) console.log(l);
  console.log('');
  for (const l of cpuLines) console.log(l);
  console.log(`\n${verdict}; the whole run took ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
