import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InferencexRawResultSchema } from '../src/schema/inferencex-result.ts';
import { type PointResult, PointResultSchema } from '../src/schema/point-result.ts';
import { type RequestRecord, RequestRecordSchema } from '../src/schema/request-record.ts';
import type { ScriptedScriptInput } from '../src/schema/scripted-script.ts';
import { assertFixedSeqLen } from '../src/schema/workload.ts';
import { withServer } from './client-helpers.ts';
import { REPO_ROOT, runCli, tmpDir } from './helpers.ts';

/** `infx bench` end to end against the scripted server: files, schema, gate, warmup, queueing, counts. */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  dir: string;
  result: PointResult | null;
  records: RequestRecord[];
}

async function bench(script: ScriptedScriptInput, flags: string[]): Promise<Run> {
  return withServer(script, async (server) => {
    const dir = tmpDir('infx-bench-');
    const out = await runCli([
      'bench',
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--gpus',
      '1',
      '--isl',
      '32',
      '--osl',
      '8',
      '--out',
      dir,
      ...flags,
    ]);
    const resultPath = join(dir, 'result.json');
    const result = existsSync(resultPath)
      ? PointResultSchema.parse(JSON.parse(readFileSync(resultPath, 'utf8')))
      : null;
    const requestsPath = join(dir, 'requests.jsonl');
    const records = existsSync(requestsPath)
      ? readFileSync(requestsPath, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => RequestRecordSchema.parse(JSON.parse(l)))
      : [];
    return { ...out, dir, result, records };
  });
}

const fast = { ttftMs: 5, itlMs: 1, tokenText: ' tok' };

/** --concurrency, --num-prompts, --warmup. */
const counts = (c: number, n: number, w: number) => [
  '--concurrency',
  String(c),
  '--num-prompts',
  String(n),
  '--warmup',
  String(w),
];

describe('infx bench', () => {
  it('writes a result.json that validates, one requests.jsonl line per request, and inferencex.json', async () => {
    const run = await bench({ defaults: fast }, [
      ...counts(2, 6, 3),
      '--gpus',
      '2',
      '--format',
      'inferencex',
    ]);
    expect(run.stderr).not.toMatch(/error/);
    const r = run.result!;
    // The scripted server shares this process's event loop with the client, so on a loaded machine the
    // client can be (rightly) flagged as the bottleneck of so short a run: then, and only then, exit 1.
    expect(r.valid).toBe(!r.client.clientLimited);
    expect(run.code).toBe(r.client.clientLimited ? 1 : 0);
    expect(r.counts).toMatchObject({ scheduled: 6, completed: 6, failed: 0, warmupCompleted: 3 });
    expect(run.records).toHaveLength(9);
    expect(run.records.filter((x) => x.phase === 'warmup')).toHaveLength(3);
    // Warmup reuses prompt 0; the measured phase sends prompt i.
    expect(run.records.filter((x) => x.phase === 'warmup').every((x) => x.promptIndex === 0)).toBe(true);
    expect(run.records.filter((x) => x.phase === 'benchmark').map((x) => x.promptIndex)).toEqual([
      0, 1, 2, 3, 4, 5,
    ]);
    // Output lengths drawn in [0.8*8, 8], served exactly (ignore_eos), counted by the server.
    expect(r.tokens.source).toBe('server');
    for (const x of run.records) expect(x.outputTokens.server).toBeGreaterThanOrEqual(6);
    expect(r.throughput.perGpu.total).toBeCloseTo(r.throughput.totalTokensPerS! / 2, 6);
    const raw = InferencexRawResultSchema.parse(
      JSON.parse(readFileSync(join(run.dir, 'inferencex.json'), 'utf8')),
    );
    expect(raw.completed).toBe(6);
    expect(raw.total_output_tokens).toBe(r.tokens.totalOutput);
    expect(raw.max_concurrency).toBe(2);
    expect(run.stdout).toMatch(/completed 6\/6/);
  });

  it('input prompts hit the drawn length under the tokenizer', async () => {
    const run = await bench({ defaults: fast }, [...counts(2, 8, 0)]);
    for (const x of run.records) {
      expect(x.inputTokens.client).toBe(x.inputTokens.target);
      expect(x.inputTokens.target).toBeGreaterThanOrEqual(Math.floor(32 * 0.8));
      expect(x.inputTokens.target).toBeLessThanOrEqual(32);
    }
  });

  it('fails the gate above the failure rate, still writing the results (exit 1)', async () => {
    const fault = { fault: { kind: 'http' as const, status: 500 } };
    const run = await bench({ defaults: fast, requests: { '3': fault, '7': fault } }, [...counts(1, 20, 0)]);
    expect(run.code).toBe(1);
    expect(run.result!.gate.passed).toBe(false);
    expect(run.result!.gate.reason).toMatch(/10\.0% > 5\.0%/);
    expect(run.result!.errors.byCategory).toEqual({ http_5xx: 2 });
    expect(run.stdout).toMatch(/gate\s+FAILED/);
    const ok = await bench({ defaults: fast, requests: { '3': fault } }, [...counts(1, 20, 0)]);
    expect(ok.code).toBe(0);
    expect(ok.result!.gate.passed).toBe(true);
  });

  it('excludes warmup from timing, metrics and errors', async () => {
    const slow = { ttftMs: 300 };
    const run = await bench(
      {
        defaults: fast,
        requests: { '0': slow, '1': slow, '2': { fault: { kind: 'http', status: 503 } } },
      },
      [...counts(3, 6, 3)],
    );
    expect(run.code).toBe(0);
    const r = run.result!;
    expect(r.latency.ttftMs.max).toBeLessThan(150);
    expect(r.counts.warmupFailed).toBe(1);
    expect(r.errors.byCategory).toEqual({});
    expect(r.errors.warmupByCategory).toEqual({ http_5xx: 1 });
    const lastWarmupDone = Math.max(...run.records.filter((x) => x.phase === 'warmup').map((x) => x.doneMs!));
    expect(r.timing.startMs).toBeGreaterThanOrEqual(lastWarmupDone);
  });

  it('shows server-side queueing: one-at-a-time server, C=4', async () => {
    // Service ≈ 10 + 4·5 = 30 ms; with 4 in flight each request waits for the ones ahead of it.
    const run = await bench({ defaults: { ...fast, ttftMs: 10, itlMs: 5 }, serial: true }, [
      ...counts(4, 16, 0),
      '--osl',
      '5',
      '--random-range-ratio',
      '1',
    ]);
    expect(run.code).toBe(0);
    const r = run.result!;
    // In steady state three requests are ahead: TTFT ≈ 3 × 30 + 10 ms.
    expect(r.latency.ttftMs.median).toBeGreaterThan(70);
    expect(r.latency.ttftMs.min).toBeLessThan(30);
    expect(r.latency.e2elMs.median).toBeGreaterThan(90);
  });

  it('open loop: the wait for a free slot counts in queue-inclusive latency', async () => {
    // 50 req/s offered to one slot served in ≈ 45 ms: requests pile up behind the slot.
    const run = await bench({ defaults: { ...fast, ttftMs: 20, itlMs: 5 } }, [
      ...counts(1, 12, 0),
      '--request-rate',
      '50',
      '--osl',
      '6',
      '--random-range-ratio',
      '1',
    ]);
    const r = run.result!;
    expect(r.latency.e2elMs.p90).toBeLessThan(70);
    expect(r.queueInclusive.queueMs.max).toBeGreaterThan(100);
    expect(r.queueInclusive.e2elMs.p90).toBeGreaterThan(2 * r.latency.e2elMs.p90!);
  });

  it('counts requests where the client and server token counts disagree', async () => {
    const lie = { usageOffset: { completion: 1 } };
    const run = await bench({ defaults: fast, requests: { '2': lie, '4': lie } }, [...counts(1, 6, 0)]);
    const r = run.result!;
    expect(r.tokens.mismatch.output).toBe(2);
    expect(r.tokens.source).toBe('server');
    const lied = run.records.filter((x) => x.outputTokens.server !== x.outputTokens.client);
    expect(lied.map((x) => x.index)).toEqual([2, 4]);
  });

  it('falls back to the client count when the server sends no usage', async () => {
    const run = await bench({ defaults: { ...fast, usage: false } }, [...counts(2, 4, 0)]);
    const r = run.result!;
    expect(r.tokens.source).toBe('client');
    for (const x of run.records) {
      expect(x.outputTokens.server).toBeNull();
      expect(x.outputTokens.client).toBe(x.outputTokens.requested);
    }
  });

  it('runs the chat endpoint with a Hugging Face tokenizer directory', async () => {
    const run = await bench({ defaults: fast }, [
      '--endpoint',
      'chat',
      '--tokenizer',
      join(REPO_ROOT, 'test/data/tokenizers/tiny-bpe'),
      ...counts(2, 4, 1),
    ]);
    expect(run.code).toBe(0);
    const workload = run.result!.workload;
    assertFixedSeqLen(workload);
    expect(workload.tokenizer).toMatchObject({ kind: 'huggingface' });
    expect(workload.chatTemplate).toBe(true);
    expect(run.result!.target.endpoint).toBe('chat');
  });

  it('spreads the load over worker threads with the same results', async () => {
    const run = await bench({ defaults: fast }, [
      '--concurrency',
      '4',
      '--num-prompts',
      '12',
      '--workers',
      '2',
    ]);
    expect(run.code).toBe(0);
    expect(new Set(run.records.map((x) => x.worker))).toEqual(new Set([0, 1]));
    expect(run.result!.client.workers).toBe(2);
    expect(run.result!.counts.completed).toBe(12);
    expect(run.records.filter((x) => x.phase === 'benchmark').map((x) => x.index)).toEqual([
      ...Array(12).keys(),
    ]);
  });
});

describe('infx bench: bad input', () => {
  const base = ['bench', '--base-url', 'http://127.0.0.1:9', '--model', 'm', '--isl', '8', '--osl', '8'];

  it.each([
    [['--concurrency', '0', '--out', 'x'], /--concurrency.*must be a positive integer/],
    [['--concurrency', 'abc', '--out', 'x'], /--concurrency.*invalid int value/],
    [['--concurrency', '1'], /required option '--out <dir>'/],
    [['--concurrency', '1', '--out', 'x', '--request-rate', '0'], /--request-rate.*above 0/],
    [['--concurrency', '1', '--out', 'x', '--random-range-ratio', '1.5'], /--random-range-ratio.*0 to 1/],
    [
      ['--concurrency', '1', '--out', 'x', '--endpoint', 'embeddings'],
      /--endpoint.*Allowed choices are chat, completions/,
    ],
    [
      ['--concurrency', '1', '--out', 'x', '--prefill-gpus', '4'],
      /--prefill-gpus and --decode-gpus go together/,
    ],
  ])('%j → exit 2 with a clear message', async (flags, message) => {
    const out = await runCli([...base, ...flags]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it('an unreachable server is a clear error (exit 1), before prompts are built', async () => {
    const dir = tmpDir();
    const out = await runCli([...base, '--concurrency', '1', '--out', dir]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /cannot reach the server at http:\/\/127\.0\.0\.1:9\/v1\/models.*ECONNREFUSED/,
    );
    expect(existsSync(join(dir, 'result.json'))).toBe(false);
  });

  it('a missing tokenizer directory names the path', async () => {
    await withServer({ defaults: fast }, async (server) => {
      const out = await runCli([
        'bench',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--gpus',
        '1',
        '--isl',
        '8',
        '--osl',
        '8',
        '--concurrency',
        '1',
        '--out',
        tmpDir(),
        '--tokenizer',
        '/nonexistent/model',
      ]);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/\/nonexistent\/model/);
    });
  });
});
