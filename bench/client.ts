/**
 * Is the client ever the bottleneck? Drives infx's client against the scripted server running in
 * another process on loopback (`infx sim scripted`) and prints three figures, each next to a baseline
 * measured in this same command:
 *
 *   (a) bulk: SSE events per second one client thread parses and stamps when the server writes as fast
 *       as it can (64 events per socket write). Baseline: a bare socket that only counts the bytes of the
 *       same responses. Target >= 300k events/s.
 *   (b) paced: 1,024 concurrent streams at 50 events/s each. Client-observed gaps between chunks are
 *       compared with the server's own log of when it wrote each chunk. Target: |client gap - server
 *       gap| p99 <= 1 ms, and the point not flagged clientLimited.
 *   (c) as (b) with 100k-token prompts (~400 KB request bodies). Target: event throughput within 10% of (b).
 *
 *   npm run bench:client            # all three
 *   npm run bench:client -- --streams 256 --tokens 50 --long-tokens 100   # smaller paced runs
 *   npm run bench:client -- --only c   # one of a, b, c
 *
 * Needs `npm run build` (the server runs as `node bin/infx.js sim scripted`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monotonicMs } from '../src/client/clock.ts';
import { assessClient } from '../src/client/health.ts';
import { type LoadRequest, type LoadResult, runLoad } from '../src/client/load.ts';
import { buildPayload, endpointPath } from '../src/client/payload.ts';
import { summarize } from '../src/metrics/stats.ts';
import type { ServerEvent } from '../src/sim/scripted/log.ts';
import { fixedSeqLenPhases } from '../src/workload/fixed-seq-len-driver.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const STREAMS = arg('streams', 1024);
const PACED_TOKENS = arg('tokens', 250);
// Long prompts take seconds to upload and parse at 1,024 streams: streams must outlast that ramp.
const LONG_TOKENS = arg('long-tokens', 600);
const ITL_MS = 20;
const BULK_STREAMS = arg('bulk-streams', 16);
const BULK_TOKENS = arg('bulk-tokens', 20_000);
const LONG_PROMPT_CHARS = 400_000;

if (!existsSync('bin/infx.js') || !existsSync('dist/infx.mjs')) {
  console.error('bench/client: run from the repository root after `npm run build`.');
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'infx-bench-client-'));

interface Server {
  url: string;
  child: ChildProcess;
  logPath: string;
}

async function startServer(name: string, script: object, extra: string[] = []): Promise<Server> {
  const scriptPath = join(work, `${name}.json`);
  const logPath = join(work, `${name}.log.jsonl`);
  writeFileSync(scriptPath, JSON.stringify(script));
  const child = spawn(
    process.execPath,
    ['bin/infx.js', 'sim', 'scripted', '--script', scriptPath, ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`scripted server exited with ${code}`)));
  });
  return { url, child, logPath };
}

async function stopServer(s: Server): Promise<void> {
  const exited = once(s.child, 'exit');
  s.child.kill('SIGTERM');
  await exited;
}

function requests(n: number, maxTokens: number, promptChars: (i: number) => number): LoadRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    // Prompt i is 4·(i+1) characters longer than the base, so the server's prompt-token count
    // (ceil(chars/4)) identifies the request in its log.
    body: buildPayload(
      { endpoint: 'completions', model: 'bench', ignoreEos: true },
      'x'.repeat(promptChars(i)),
      maxTokens,
    ),
    maxTokens,
    targetInputTokens: 0,
    clientInputTokens: 0,
  }));
}

function load(url: string, reqs: LoadRequest[], concurrency: number, warmup: number): Promise<LoadResult> {
  return runLoad({
    transport: {
      baseUrl: new URL(url),
      endpoint: 'completions',
      path: endpointPath('completions'),
      timeoutMs: 600_000,
      apiKey: null,
    },
    phases: fixedSeqLenPhases(reqs, warmup, null),
    lockstep: false,
    concurrency,
    workers: arg('workers', 1),
    signal: new AbortController().signal,
  });
}

function measured(res: LoadResult) {
  const rs = res.records.filter((r) => r.phase === 'benchmark');
  const start = Math.min(...rs.map((r) => r.sentMs));
  const end = Math.max(...rs.map((r) => r.doneMs ?? r.sentMs));
  const events = rs.reduce((a, r) => a + r.contentChunks, 0);
  const failed = rs.filter((r) => !r.ok).length;
  return { rs, seconds: (end - start) / 1000, events, failed };
}

/** Bytes of a raw HTTP/1.1 request, for the bare-socket baseline. */
function rawRequest(body: Buffer, host: string): Buffer {
  const head = `POST /v1/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** Baseline for (a): the same responses drained by bare sockets that only look for the end marker. */
async function drainRaw(url: string, reqs: LoadRequest[], concurrency: number): Promise<number> {
  const u = new URL(url);
  let next = 0;
  const done = Buffer.from('data: [DONE]');
  const lane = async () => {
    const sock = net.connect(Number(u.port), u.hostname);
    sock.setNoDelay(true);
    await once(sock, 'connect');
    for (;;) {
      const i = next++;
      if (i >= reqs.length) break;
      await new Promise<void>((resolve) => {
        let tail = Buffer.alloc(0);
        const onData = (chunk: Buffer) => {
          // Keep the last few bytes so a marker split across reads is still seen.
          const view = Buffer.concat([tail, chunk]);
          if (view.includes(done)) {
            sock.off('data', onData);
            resolve();
          } else tail = view.subarray(Math.max(0, view.length - done.length));
        };
        sock.on('data', onData);
        sock.write(rawRequest(reqs[i]!.body, u.host));
      });
    }
    sock.destroy();
  };
  const t0 = monotonicMs();
  await Promise.all(Array.from({ length: concurrency }, lane));
  return (monotonicMs() - t0) / 1000;
}

function fmt(n: number | null, digits = 0): string {
  return n === null
    ? 'n/a'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

async function bulk() {
  const server = await startServer('bulk', { burst: true, defaults: { tokenText: ' tok' } });
  try {
    const reqs = requests(BULK_STREAMS * 4, BULK_TOKENS, () => 16);
    const res = await load(server.url, reqs, BULK_STREAMS, BULK_STREAMS);
    const m = measured(res);
    const rawSeconds = await drainRaw(server.url, reqs, BULK_STREAMS);
    const clientRate = m.events / m.seconds;
    const rawRate = m.events / rawSeconds;
    const health = assessClient(res.threads, res.sendLagsMs, res.cpuPercent);
    console.log(
      `(a) bulk: ${BULK_STREAMS} streams x ${reqs.length / BULK_STREAMS} requests x ${fmt(BULK_TOKENS)} events, server writing 64 events per write`,
    );
    console.log(
      `    infx client (1 thread)  ${fmt(clientRate)} events/s  (${fmt(m.events)} events in ${fmt(m.seconds, 2)} s, ${m.failed} failed, busy ${fmt((health.eventLoopUtilization ?? 0) * 100)}%)`,
    );
    console.log(`    bare socket, no parsing ${fmt(rawRate)} events/s`);
    console.log(
      `    ratio client/bare ${fmt(clientRate / rawRate, 2)}; target >= 300,000 events/s: ${clientRate >= 300_000 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await stopServer(server);
  }
}

function serverLog(path: string): Map<number, ServerEvent> {
  const byPrompt = new Map<number, ServerEvent>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    const ev = JSON.parse(line) as ServerEvent;
    if (ev.promptTokens !== null) byPrompt.set(ev.promptTokens, ev);
  }
  return byPrompt;
}

/**
 * In phase, every stream's chunk is due at the same instant, as a real engine's decode step emits one
 * token for every running sequence: one client thread then stamps a burst of STREAMS reads in turn.
 * Out of phase, first tokens are spread over one inter-token interval, so reads arrive evenly.
 */
function phaseOverrides(staggered: boolean, count: number): Record<string, { ttftMs: number }> {
  if (!staggered) return {};
  return Object.fromEntries(
    Array.from({ length: count }, (_, k) => [
      String(k),
      { ttftMs: 50 + ((k * 7919) % 1000) * (ITL_MS / 1000) },
    ]),
  );
}

async function paced(label: string, name: string, baseChars: number, tokens: number, staggered = false) {
  const script = {
    defaults: { ttftMs: 50, itlMs: ITL_MS, tokenText: ' tok' },
    requests: phaseOverrides(staggered, STREAMS + 64),
  };
  const server = await startServer(name, script, [
    '--spin-ms',
    process.env.SPIN ?? '0',
    '--log-file',
    join(work, `${name}.log.jsonl`),
  ]);
  let res: LoadResult;
  const reqs = requests(STREAMS, tokens, (i) => baseChars + 4 * (i + 1));
  try {
    // Warmup (prompt 0, finished before the measured phase) opens connections; the log keeps the last
    // event per prompt length, which for prompt 0 is the measured one.
    res = await load(server.url, reqs, STREAMS, Math.min(STREAMS, 64));
  } finally {
    await stopServer(server);
  }
  const m = measured(res);
  const log = serverLog(join(work, `${name}.log.jsonl`));
  // Steady window: every stream has started and none has finished (no ramp-up, no drain).
  const winStart = Math.max(...m.rs.map((r) => r.firstTokenMs ?? Number.POSITIVE_INFINITY));
  const winEnd = Math.min(...m.rs.map((r) => r.lastTokenMs ?? Number.NEGATIVE_INFINITY));
  const diffs: number[] = [];
  const steadyDiffs: number[] = [];
  let steadyEvents = 0;
  let paired = 0;
  for (const r of m.rs) {
    let t = r.firstTokenMs!;
    for (const gap of r.chunkGapsMs) {
      t += gap;
      if (t > winStart && t <= winEnd) steadyEvents++;
    }
    const ev = log.get(Math.ceil((baseChars + 4 * (r.promptIndex + 1)) / 4));
    if (!ev) continue;
    const writes = ev.writes.filter((w) => w.chunk !== null).map((w) => w.writtenMs - res.clockOriginMs);
    if (writes.length !== r.chunkGapsMs.length + 1) continue;
    paired++;
    r.chunkGapsMs.forEach((gap, j) => {
      const d = Math.abs(gap - (writes[j + 1]! - writes[j]!));
      diffs.push(d);
      if (writes[j]! > winStart && writes[j + 1]! <= winEnd) steadyDiffs.push(d);
    });
  }
  const d = summarize(diffs);
  const sd = summarize(steadyDiffs);
  const serverGaps = summarize(
    [...log.values()].flatMap((ev) => {
      const w = ev.writes.filter((x) => x.chunk !== null).map((x) => x.writtenMs);
      return w.slice(1).map((t, j) => t - w[j]!);
    }),
  );
  const health = assessClient(res.threads, res.sendLagsMs, res.cpuPercent);
  const steadyS = (winEnd - winStart) / 1000;
  const rate = steadyS > 0 ? steadyEvents / steadyS : Number.NaN;
  console.log(
    `${label}: ${STREAMS} streams x ${tokens} events at ${1000 / ITL_MS} events/s each, prompts ~${fmt(baseChars)} chars`,
  );
  console.log(
    `    whole run: ${fmt(m.events)} events in ${fmt(m.seconds, 2)} s = ${fmt(m.events / m.seconds)} events/s, ${m.failed} failed, ${paired} requests paired with the server log`,
  );
  const sent = m.rs.map((r) => r.sentMs);
  const firstTokens = m.rs.map((r) => r.firstTokenMs ?? winStart);
  const events = [...log.values()];
  const serverRead =
    (Math.max(...events.map((e) => e.bodyReadMs ?? e.arrivalMs)) -
      Math.min(...events.map((e) => e.arrivalMs))) /
    1000;
  console.log(
    `    ramp: the server read all request bodies over ${fmt(serverRead, 2)} s; requests sent over ${fmt((Math.max(...sent) - Math.min(...sent)) / 1000, 2)} s, first tokens over ${fmt((Math.max(...firstTokens) - Math.min(...firstTokens)) / 1000, 2)} s`,
  );
  console.log(
    `    steady window (all streams running, ${fmt(steadyS, 2)} s): ${fmt(rate)} events/s (ideal ${fmt((STREAMS * 1000) / ITL_MS)})`,
  );
  console.log(
    `    server send gaps (baseline): median ${fmt(serverGaps.median, 2)} ms, p99 ${fmt(serverGaps.p99, 2)} ms`,
  );
  console.log(
    `    |client gap - server gap| whole run: median ${fmt(d.median, 3)} ms, p99 ${fmt(d.p99, 3)} ms, max ${fmt(d.max, 2)} ms`,
  );
  console.log(
    `    |client gap - server gap| steady window: median ${fmt(sd.median, 3)} ms, p99 ${fmt(sd.p99, 3)} ms; target p99 <= 1 ms: ${sd.p99 !== null && sd.p99 <= 1 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `    client: busy ${fmt((health.eventLoopUtilization ?? 0) * 100)}%, cpu ${fmt(health.cpuPercent)}% of a core, event-loop delay p99 ${fmt(health.eventLoopDelayMs.p99, 2)} ms (max ${fmt(health.eventLoopDelayMs.max, 1)}), send lag p99 ${fmt(health.sendLagMs.p99, 2)} ms, clientLimited ${health.clientLimited}${health.reasons.length ? ` (${health.reasons.join('; ')})` : ''}`,
  );
  return rate;
}

try {
  console.log(
    `bench/client on ${process.version}, ${(await import('node:os')).availableParallelism()} cores`,
  );
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
  if (!only || only === 'a') await bulk();
  const b =
    !only || only === 'b' ? await paced('(b) paced, in phase', 'paced', 16, PACED_TOKENS) : Number.NaN;
  if (!only || only === 'b') await paced('(b) paced, out of phase', 'staggered', 16, PACED_TOKENS, true);
  const c =
    !only || only === 'c'
      ? await paced('(c) paced in phase, 100k-token prompts', 'long', LONG_PROMPT_CHARS, LONG_TOKENS)
      : Number.NaN;
  if (!only)
    console.log(
      `(c)/(b) event throughput ratio ${fmt(c / b, 3)}; target within 10%: ${Math.abs(c / b - 1) <= 0.1 ? 'met' : 'NOT met'}`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
