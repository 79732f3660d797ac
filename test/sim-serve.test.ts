import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatrixRow } from '../src/schema/matrix-row.ts';
import { PointResultSchema } from '../src/schema/point-result.ts';
import type { RequestRecord } from '../src/schema/request-record.ts';
import { LOCKSTEP_HEADER, TIME_SCALE_HEADER } from '../src/schema/sim-protocol.ts';
import { predictDisagg } from '../src/sim/engine/predict-disagg.ts';
import { type SimServer, startSimServer } from '../src/sim/serve/server.ts';
import { setupFromRow } from '../src/sim/serve/setup-from.ts';
import { loadTokenizer } from '../src/workload/tokenizers.ts';
import { spawnServer } from './client-helpers.ts';
import { runCli, tmpDir } from './helpers.ts';

/** The simulated engine behind its HTTP API: OpenAI clients, infx bench, /metrics. */

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
let server: SimServer;

beforeAll(async () => {
  const tokenizer = await loadTokenizer();
  server = await startSimServer({
    setup: { model: MODEL, hardware: 'h100' },
    timeScale: 50,
    tokenize: tokenizer.encode,
  });
});
afterAll(async () => {
  await server?.close();
});

describe('infx sim serve', () => {
  it('answers the official openai client: streaming completions and chat, usage included', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.completions.create({
      model: MODEL,
      prompt: 'Say something about GPUs.',
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: { completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(usage?.completion_tokens).toBe(12);
    expect(text.split(' ').filter(Boolean)).toHaveLength(12);

    const chat = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hello there' }],
      max_completion_tokens: 7,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let chatUsage: { prompt_tokens: number; completion_tokens: number } | undefined;
    for await (const chunk of chat) {
      content += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) chatUsage = chunk.usage;
    }
    expect(chatUsage?.completion_tokens).toBe(7);
    expect(chatUsage?.prompt_tokens).toBeGreaterThan(0);
    expect(content.trim().split(' ')).toHaveLength(7);

    const whole = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 4,
    });
    expect(whole.choices[0]?.finish_reason).toBe('length');
    expect(whole.usage?.completion_tokens).toBe(4);
  });

  it('announces its time scale in a header and in /v1/models', async () => {
    const res = await fetch(`${server.url}/v1/models`);
    expect(res.headers.get(TIME_SCALE_HEADER)).toBe('50');
    const body = (await res.json()) as {
      data: { id: string; infx: { time_scale: number; kv_cache_tokens: number } }[];
    };
    expect(body.data[0]?.id).toBe(MODEL);
    expect(body.data[0]?.infx.time_scale).toBe(50);
    expect(body.data[0]?.infx.kv_cache_tokens).toBeGreaterThan(100_000);
  });

  it('answers 404 for a model it does not serve, as vLLM does', async () => {
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'not/served', prompt: 'hi', max_tokens: 2 }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        message: 'The model `not/served` does not exist.',
        type: 'NotFoundError',
        param: 'model',
        code: 404,
      },
    });
  });

  it('refuses a request longer than the context with an OpenAI-style overflow error', async () => {
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, prompt: 'hi', max_tokens: 200_000 }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('context_length_exceeded');
    expect(body.error.message).toMatch(/maximum context length is 131072 tokens/);
  });

  it('serves vLLM-style gauges and counters on /metrics', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    for (const name of [
      'vllm:num_requests_running',
      'vllm:num_requests_waiting',
      'vllm:kv_cache_usage_perc',
      'vllm:prefix_cache_hits_total',
      'vllm:gpu_prefix_cache_hit_rate',
      'vllm:num_preemptions_total',
      'vllm:generation_tokens_total',
    ])
      expect(text).toMatch(new RegExp(`^${name}\\{model_name="${MODEL}"\\} \\d`, 'm'));
  });
});

/** Streams one completion, returning its chunks' `infx` stamps. */
async function stamps(url: string, maxTokens: number, lockstep?: string): Promise<Record<string, number>[]> {
  const res = await fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(lockstep ? { [LOCKSTEP_HEADER]: lockstep } : {}) },
    body: JSON.stringify({
      model: MODEL,
      prompt: 'hello there',
      max_tokens: maxTokens,
      stream: true,
      ignore_eos: true,
    }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => (JSON.parse(l.slice(6)) as { infx: Record<string, number> }).infx);
}

describe('the engine clock of infx sim serve', () => {
  it('stamps every chunk with engine time, and the first with the arrival', async () => {
    const s = await stamps(server.url, 5);
    expect(s[0]).toHaveProperty('arrival');
    const ts = s.map((x) => x.t!);
    for (let i = 1; i < 5; i++) expect(ts[i]!).toBeGreaterThan(ts[i - 1]!);
    expect(ts[0]!).toBeGreaterThan(s[0]!.arrival!);
    const clock = (await (await fetch(`${server.url}/infx/clock`)).json()) as Record<string, number>;
    expect(clock).toMatchObject({ time_scale: 50 });
    expect(clock.steps).toBeGreaterThan(0);
    expect(clock.now_ms).toBeGreaterThan(ts[4]!);
  });

  it('holds its clock until a lockstep client has sent what it owes', async () => {
    const phase = `phase=hold-${Date.now()}`;
    const first = stamps(server.url, 3, `${phase};conc=2;total=2;index=0`);
    // 100 wall ms = 5 simulated seconds at 50x: without the hold the second would arrive that much later.
    await new Promise((r) => setTimeout(r, 100));
    const second = stamps(server.url, 3, `${phase};conc=2;total=2;index=1`);
    const [a, b] = await Promise.all([first, second]);
    expect(b[0]!.arrival).toBe(a[0]!.arrival);
    expect(b[0]!.t).toBe(a[0]!.t); // prefilled in the same step
  });

  it('gives up on a client that owes a request for longer than the lockstep timeout, and counts it', async () => {
    const tokenizer = await loadTokenizer();
    const s = await startSimServer({
      setup: { model: MODEL, hardware: 'h100' },
      timeScale: 50,
      tokenize: tokenizer.encode,
      lockstepTimeoutMs: 200,
    });
    try {
      const t0 = performance.now();
      const got = await stamps(s.url, 3, 'phase=lonely;conc=2;total=2;index=0');
      expect(got).toHaveLength(4); // three tokens and the finish chunk
      expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
      const clock = (await (await fetch(`${s.url}/infx/clock`)).json()) as Record<string, number>;
      expect(clock.lockstep_timeouts).toBe(1);
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(metrics).toMatch(/^infx_sim_lockstep_timeouts_total\{[^}]*\} 1$/m);
      // A bad header is refused, naming it.
      const bad = await fetch(`${s.url}/v1/completions`, {
        method: 'POST',
        headers: { [LOCKSTEP_HEADER]: 'phase=x;conc=0;total=1;index=0' },
        body: JSON.stringify({ model: MODEL, prompt: 'x', max_tokens: 2 }),
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
        `invalid ${LOCKSTEP_HEADER} header`,
      );
    } finally {
      await s.close();
    }
  });
});

describe('infx bench against infx sim serve', () => {
  it('draws a plausible curve in simulated time: throughput/GPU rises, interactivity falls', async () => {
    // The engine in its own process: sharing this thread would make the client measure itself.
    const sim = await spawnServer([
      'sim',
      'serve',
      '--model',
      MODEL,
      '--hardware',
      'h100',
      '--time-scale',
      '10',
    ]);
    const points: { conc: number; tput: number; intvty: number; tpot: number }[] = [];
    for (const conc of [1, 4, 16]) {
      const dir = tmpDir('infx-sim-bench-');
      const out = await runCli([
        'bench',
        '--base-url',
        sim.url,
        '--model',
        MODEL,
        '--isl',
        '256',
        '--osl',
        '32',
        '--concurrency',
        String(conc),
        '--num-prompts',
        String(Math.max(4, 2 * conc)),
        '--warmup',
        String(conc),
        '--gpus',
        '1',
        '--out',
        dir,
      ]);
      expect(out.stderr).toMatch(/10x faster than real time/);
      expect(out.stderr).not.toContain('warning: --gpus');
      expect(out.code).toBe(0);
      expect(existsSync(join(dir, 'result.json'))).toBe(true);
      const r = PointResultSchema.parse(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')));
      expect(r.engine).toMatchObject({ kind: 'simulated', timeScale: 10, clock: 'engine', lockstep: true });
      points.push({
        conc,
        tput: r.throughput.perGpu.total!,
        intvty: r.interactivity.median!,
        tpot: r.latency.tpotMs.median!,
      });
    }
    await sim.stop();
    // An 8B model in bf16 on one H100 decodes a lone request in a few ms per token (simulated time).
    expect(points[0]!.tpot).toBeGreaterThan(3);
    expect(points[0]!.tpot).toBeLessThan(15);
    for (let i = 1; i < points.length; i++) expect(points[i]!.tput).toBeGreaterThan(points[i - 1]!.tput);
    // Between neighbours the interactivity drop is within the host's noise; across the curve it is not.
    expect(points[2]!.intvty).toBeLessThan(points[0]!.intvty * 0.9);
  });
});

describe('infx sim serve under KV pressure', () => {
  it('preempts when the KV cache is full, and /metrics shows it', async () => {
    const tokenizer = await loadTokenizer();
    // 0.31 of an H100 leaves some ten thousand tokens of KV after the 8B model's weights and the reserve.
    const small = await startSimServer({
      setup: { model: MODEL, hardware: 'h100', gpuMemoryUtilization: 0.31 },
      timeScale: 200,
      tokenize: tokenizer.encode,
    });
    try {
      const capacity = small.resolved.kvBlocks * 16;
      expect(capacity).toBeGreaterThan(2000);
      expect(capacity).toBeLessThan(20_000);
      const metric = async (name: string) => {
        const text = await (await fetch(`${small.url}/metrics`)).text();
        return Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)`, 'm').exec(text)?.[1]);
      };
      const prompt = ' the'.repeat(Math.floor(capacity / 8));
      let peakUsage = 0;
      const poll = setInterval(() => {
        void metric('vllm:kv_cache_usage_perc').then((v) => {
          peakUsage = Math.max(peakUsage, v);
        });
      }, 5);
      const requests = Array.from({ length: 8 }, () =>
        fetch(`${small.url}/v1/completions`, {
          method: 'POST',
          body: JSON.stringify({
            model: MODEL,
            prompt,
            max_tokens: Math.floor(capacity / 8),
            ignore_eos: true,
          }),
        }).then((r) => r.json() as Promise<{ usage: { completion_tokens: number } }>),
      );
      const done = await Promise.all(requests);
      clearInterval(poll);
      for (const d of done) expect(d.usage.completion_tokens).toBe(Math.floor(capacity / 8));
      expect(await metric('vllm:num_preemptions_total')).toBeGreaterThan(0);
      expect(peakUsage).toBeGreaterThan(0.8);
    } finally {
      await small.close();
    }
  });
});

describe('infx sim serve --point with a disaggregated row', () => {
  it('serves one endpoint over prefill and decode pools; infx bench measures it', async () => {
    const dir = tmpDir('infx-disagg-');
    const row = {
      image: 'lmsysorg/sglang:v0.5.16-rocm720-mi35x',
      model: 'Qwen/Qwen3.5-397B-A17B-FP8',
      'model-prefix': 'qwen3.5',
      precision: 'fp8',
      framework: 'sglang-disagg',
      runner: 'mi355x-disagg',
      isl: 1024,
      osl: 128,
      'spec-decoding': 'none',
      prefill: { 'num-worker': 1, tp: 4, ep: 1, 'dp-attn': false, pp: 1, 'dcp-size': 1, 'pcp-size': 1 },
      decode: { 'num-worker': 1, tp: 8, ep: 1, 'dp-attn': false, pp: 1, 'dcp-size': 1, 'pcp-size': 1 },
      conc: [4],
      'max-model-len': 2048,
      'exp-name': 'qwen3.5_1k128',
      disagg: true,
      'run-eval': false,
      'kv-p2p-transfer': 'mori',
    };
    const rowPath = join(dir, 'row.json');
    writeFileSync(rowPath, JSON.stringify(row));
    const sim = await spawnServer(['sim', 'serve', '--point', rowPath, '--time-scale', '10']);
    try {
      const models = (await (await fetch(`${sim.url}/v1/models`)).json()) as {
        data: { infx: { gpus: number; prefill: { tp: number }; decode: { tp: number } } }[];
      };
      expect(models.data[0]?.infx).toMatchObject({ gpus: 12, prefill: { tp: 4 }, decode: { tp: 8 } });
      const out = await runCli([
        'bench',
        '--base-url',
        sim.url,
        '--model',
        row.model,
        '--isl',
        '1024',
        '--osl',
        '64',
        '--concurrency',
        '4',
        '--num-prompts',
        '8',
        '--warmup',
        '2',
        '--prefill-gpus',
        '4',
        '--decode-gpus',
        '8',
        '--out',
        dir,
      ]);
      expect(out.code).toBe(0);
      const r = PointResultSchema.parse(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')));
      expect(r.counts.completed).toBe(8);
      expect(r.throughput.perGpu.output).toBeCloseTo(r.throughput.outputTokensPerS! / 8, 6);
      expect(r.latency.ttftMs.median).toBeGreaterThan(0);
      expect(r.engine).toMatchObject({ kind: 'simulated', clock: 'engine', lockstep: true });
      // Every pool on one clock: the point matches the same requests co-simulated in virtual time.
      const records = readFileSync(join(dir, 'requests.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RequestRecord)
        .filter((q) => q.phase === 'benchmark')
        .sort((a, b) => a.index - b.index);
      const setup = setupFromRow(row as unknown as MatrixRow);
      if (!('prefill' in setup)) throw new Error('expected a disaggregated setup');
      const want = predictDisagg(setup, {
        isl: 1024,
        osl: 64,
        concurrency: 4,
        method: 'as-measured',
        requests: records.map((q) => ({
          promptTokens: q.inputTokens.server!,
          outputTokens: q.outputTokens.server!,
        })),
      });
      expect(r.interactivity.median! / want.interactivity - 1).toBeCloseTo(0, 1);
      expect(Math.abs(r.throughput.perGpu.total! / want.throughputPerGpu - 1)).toBeLessThan(0.05);
      expect(Math.abs(r.latency.ttftMs.median! / want.ttftMs.median - 1)).toBeLessThan(0.05);
    } finally {
      await sim.stop();
    }
  });
});
