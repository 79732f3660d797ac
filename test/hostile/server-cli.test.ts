import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PointResult, PointResultSchema } from '../../src/schema/point-result.ts';
import { type RequestRecord, RequestRecordSchema } from '../../src/schema/request-record.ts';
import { REPO_ROOT, tmpDir } from '../helpers.ts';
import {
  type Behaviour,
  chunk,
  flood,
  honest,
  honestEvents,
  maxTokensOf,
  SSE_HEAD,
  sse,
  startHostile,
  trickle,
  usage,
} from './hostile-server.ts';

/**
 * `infx bench` as a child process against the worst of the hostile server: its exit code, what it wrote,
 * and its peak memory (maxRSS) and CPU time (user + system), read by a preload that writes
 * process.resourceUsage() on exit, each run bounded in wall time. Needs `npm run build`.
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Peak resident memory, MB, and CPU seconds of the whole bench process (all threads). */
  maxRssMb: number;
  cpuS: number;
  result: PointResult | null;
  records: RequestRecord[];
}

const WALL_LIMIT_MS = 20_000;

async function bench(
  gen: { generate: Behaviour; models?: Behaviour },
  flags: string[] = [],
  requests = 2,
): Promise<Run> {
  const server = await startHostile(gen);
  const dir = tmpDir('infx-hostile-');
  const usagePath = join(dir, 'usage.json');
  const preload = join(dir, 'preload.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(usagePath)}, JSON.stringify(process.resourceUsage())));\n`,
  );
  const out = join(dir, 'out');
  const args = [
    '--require',
    preload,
    join(REPO_ROOT, 'bin/infx.js'),
    'bench',
    '--base-url',
    server.url,
    '--model',
    'm',
    '--gpus',
    '1',
    '--isl',
    '16',
    '--osl',
    '4',
    '--random-range-ratio',
    '1',
    '--concurrency',
    '1',
    '--num-prompts',
    String(requests),
    '--warmup',
    '0',
    '--timeout',
    '5',
    '--out',
    out,
    ...flags,
  ];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, INFX_NO_CACHE: '1', OPENAI_API_KEY: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c;
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c;
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), WALL_LIMIT_MS);
  // 'close', not 'exit': the process may be gone before its last output is read from the pipe.
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(killer);
  const wallMs = performance.now() - t0;
  await server.close();
  const ru = existsSync(usagePath)
    ? (JSON.parse(readFileSync(usagePath, 'utf8')) as NodeJS.ResourceUsage)
    : null;
  const resultPath = join(out, 'result.json');
  const requestsPath = join(out, 'requests.jsonl');
  return {
    code,
    stdout,
    stderr,
    wallMs,
    maxRssMb: ru ? ru.maxRSS / 1024 : Number.NaN,
    cpuS: ru ? (ru.userCPUTime + ru.systemCPUTime) / 1e6 : Number.NaN,
    result: existsSync(resultPath)
      ? PointResultSchema.parse(JSON.parse(readFileSync(resultPath, 'utf8')))
      : null,
    records: existsSync(requestsPath)
      ? readFileSync(requestsPath, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => RequestRecordSchema.parse(JSON.parse(l)))
      : [],
  };
}

/** The bounds every run must keep, however the server misbehaves (measured: 60-100 MB, 0.2-0.3 s of CPU). */
function bounded(run: Run, rssMb = 250, cpuS = 5) {
  expect(run.wallMs).toBeLessThan(WALL_LIMIT_MS);
  expect(run.maxRssMb).toBeLessThan(rssMb);
  expect(run.cpuS).toBeLessThan(cpuS);
}

describe.concurrent('infx bench against a hostile server (child process)', () => {
  it('a 200 MB event without a newline: invalid_stream per request, exit 1, bounded memory and CPU', async () => {
    const run = await bench({
      generate: async (x) => {
        await x.write(SSE_HEAD);
        await x.write(chunk('data: {"choices":[{"text":"'));
        await flood(x, 200 << 20, 0x78, true);
        return 'close';
      },
    });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(1);
    expect(run.records.map((r) => r.error?.category)).toEqual(['invalid_stream', 'invalid_stream']);
    expect(run.records[0]!.error!.message).toMatch(/16 MiB/);
    expect(run.stdout).toMatch(/invalid_stream 2/);
    bounded(run);
  });

  it('usage -100 on every request: the client counts stand in, the requests are flagged, the gate fails', async () => {
    const run = await bench({ generate: (x) => sse(x, honestEvents(x, { usage: [16, -100] })) }, [], 4);
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(1);
    const r = run.result!;
    expect(r.counts).toMatchObject({ completed: 4, failed: 0, usageFlagged: 4 });
    expect(r.tokens).toMatchObject({ totalOutput: 16, flagged: { input: 0, output: 4 } });
    expect(r.throughput.outputTokensPerS).toBeGreaterThan(0);
    expect(r.gate.passed).toBe(false);
    expect(r.gate.reason).toMatch(/usage check on 100\.0% of requests/);
    for (const x of run.records) {
      expect(x.usageFlag).toMatchObject({ output: true, problems: ['not_a_count'] });
      expect(x.outputTokens).toMatchObject({ server: null, client: 4 });
    }
    expect(run.stdout).toMatch(/failed the usage check on 4 requests/);
    expect(run.stdout).toMatch(/gate {13}FAILED/);
    bounded(run);
  });

  it('a duplicated usage chunk 25x the first does not inflate throughput', async () => {
    const run = await bench(
      {
        generate: (x) => {
          const events = honestEvents(x, { usage: [16, maxTokensOf(x)] });
          events.splice(-1, 0, usage(16, 25 * maxTokensOf(x)));
          return sse(x, events);
        },
      },
      [],
      2,
    );
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(1);
    expect(run.result!.tokens.totalOutput).toBe(8);
    expect(run.records.every((x) => x.usageFlag?.problems.includes('disagreeing_chunks'))).toBe(true);
  });

  it('an endless /v1/models in 1 MB chunks: the probe stops at 1 MB and the run goes on', async () => {
    const run = await bench({
      generate: honest,
      models: async (x) => {
        await x.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        await x.write(chunk('{"data":['));
        await flood(x, 1e11, 0x20, true);
        return 'close';
      },
    });
    // Valid (exit 0) unless the client's health check flags a run this tiny as client-limited.
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(run.result?.client.clientLimited ? 1 : 0);
    expect(run.result!.counts.completed).toBe(2);
    expect(run.result!.gate.passed).toBe(true);
    bounded(run);
  });

  it('a /v1/models at 1 byte per 100 ms: bench gives up at the probe deadline (--timeout), exit 1', async () => {
    const run = await bench(
      {
        generate: honest,
        models: async (x) => {
          await trickle(x, 'HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n', 100);
          return 'close';
        },
      },
      ['--timeout', '1'],
    );
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(1);
    expect(run.stderr).toMatch(/no complete answer from .*\/v1\/models within 1 s/);
    expect(run.wallMs).toBeLessThan(8000);
    bounded(run);
  });

  it.each([
    [['--concurrency', '1000000000000'], /--concurrency 1000000000000 is above the limit 100,000/],
    [['--num-prompts', '100000000'], /--num-prompts 100000000 is above the limit 1,000,000/],
    [['--isl', '1000000000'], /--isl 1000000000 is above the limit 10,000,000/],
    [['--osl', '99999999999'], /--osl 99999999999 is above the limit/],
    [['--isl', '1000000', '--num-prompts', '10000'], /prompt tokens to build, above the limit/],
    [['--warmup', '2000000'], /--warmup 2000000 is above the limit 1,000,000/],
    [['--workers', '1000'], /--workers 1000 is above the limit 256/],
    [['--timeout', '3000000'], /--timeout 3000000 is above the limit 2147483 s/],
  ])('%j: a clear error and exit 2 before building any prompt', async (flags, message) => {
    const run = await bench({ generate: honest }, flags as string[]);
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(2);
    expect(run.stderr).toMatch(message as RegExp);
    expect(run.stderr).not.toMatch(/building/);
    expect(run.records).toEqual([]);
    bounded(run, 200, 4);
  });
});
