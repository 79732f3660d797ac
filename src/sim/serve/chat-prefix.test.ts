import { afterEach, describe, expect, it } from 'vitest';
import type { SimSetup } from '../engine/config.ts';
import { PromptIds } from './prompt-ids.ts';
import { type SimServer, startSimServer } from './server.ts';

/** An agentic conversation against `sim serve`: each turn resends the growing message list. */

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
/** One token per character: exact, hand-countable token ids. */
const tokenize = (text: string) => Array.from(text, (c) => c.codePointAt(0)!);

const turn1 = [
  { role: 'system', content: 'S'.repeat(2000) },
  { role: 'user', content: 'u'.repeat(500) },
];
const turn2 = [
  ...turn1,
  { role: 'assistant', content: 'a'.repeat(300) },
  { role: 'user', content: 'v'.repeat(400) },
];
// Contents joined by one '\n' each: 2000 + 1 + 500, and 2501 + 1 + 300 + 1 + 400.
const LEN1 = 2501;
const LEN2 = 3203;

let servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(setup: Partial<SimSetup>): Promise<SimServer> {
  const s = await startSimServer({
    setup: { model: MODEL, hardware: 'h100', ...setup },
    timeScale: 200,
    tokenize,
  });
  servers.push(s);
  return s;
}

async function chat(url: string, messages: unknown[]) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages, max_tokens: 4, ignore_eos: true }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    usage: { prompt_tokens: number };
    infx: { arrival: number; first: number };
  };
  return { promptTokens: body.usage.prompt_tokens, ttftMs: body.infx.first - body.infx.arrival };
}

function counter(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  if (!line) throw new Error(`${name}${labels} not in /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('prefix caching across the turns of a chat conversation', () => {
  it("hits the previous turn's blocks and prefills only the rest", async () => {
    const cached = await serve({ prefixCaching: true });
    const cold = await serve({ prefixCaching: false });
    const results = [];
    for (const s of [cached, cold]) {
      const first = await chat(s.url, turn1);
      const second = await chat(s.url, turn2);
      results.push({ first, second, metrics: await (await fetch(`${s.url}/metrics`)).text() });
    }
    const [hot, coldRun] = results;
    expect(hot!.first.promptTokens).toBe(LEN1);
    expect(hot!.second.promptTokens).toBe(LEN2);
    // Turn 1's 156 full blocks (2496 tokens) are turn 2's prefix.
    expect(counter(hot!.metrics, 'vllm:prefix_cache_queries_total')).toBe(LEN1 + LEN2);
    expect(counter(hot!.metrics, 'vllm:prefix_cache_hits_total')).toBe(156 * 16);
    expect(counter(hot!.metrics, 'vllm:prompt_tokens_by_source_total', 'local_cache_hit')).toBe(2496);
    expect(counter(hot!.metrics, 'vllm:prompt_tokens_by_source_total', 'local_compute')).toBe(
      LEN1 + LEN2 - 2496,
    );
    expect(hot!.metrics).not.toContain('vllm:external_prefix_cache_queries_total');
    expect(counter(coldRun!.metrics, 'vllm:prefix_cache_hits_total')).toBe(0);
    // Engine-clock TTFT (simulated, not wall): the first turns match, the cached second turn is shorter.
    expect(hot!.first.ttftMs).toBeCloseTo(coldRun!.first.ttftMs, 2);
    expect(hot!.second.ttftMs).toBeLessThan(coldRun!.second.ttftMs);
  });

  it('serves the host-tier counters with their vLLM names when KV offloading to DRAM is on', async () => {
    const s = await serve({ prefixCaching: true, kvOffloadDramGb: 100 });
    await chat(s.url, turn1);
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(counter(text, 'vllm:external_prefix_cache_queries_total')).toBe(LEN1);
    expect(counter(text, 'vllm:external_prefix_cache_hits_total')).toBe(0);
    expect(counter(text, 'vllm:kv_offload_total_bytes_total', 'CPU_to_GPU')).toBe(0);
    expect(counter(text, 'infx_sim_host_kv_cache_tokens')).toBeGreaterThan(0);
  });
});

describe('PromptIds', () => {
  it('gives a longer message list exactly the shorter one as its prefix, whatever merges across messages', () => {
    // A tokenizer that merges "a\n" into one token: joined-text tokenization would split the prefix differently.
    const merging = (text: string) => {
      const out: number[] = [];
      for (let i = 0; i < text.length; i++) {
        if (text[i] === 'a' && text[i + 1] === '\n') {
          out.push(1000);
          i++;
        } else out.push(text.codePointAt(i)!);
      }
      return out;
    };
    const p = new PromptIds(merging);
    const one = p.of('chat', { messages: [{ role: 'user', content: 'aa' }] });
    const two = p.of('chat', {
      messages: [
        { role: 'user', content: 'aa' },
        { role: 'assistant', content: 'b' },
      ],
    });
    expect(one).toEqual([97, 97]);
    expect(two).toEqual([97, 97, 10, 98]);
    expect(p.of('completions', { prompt: 'a\nb' })).toEqual([1000, 98]);
  });

  it('keeps at most its token budget of memoized contents', () => {
    let calls = 0;
    const p = new PromptIds((t) => {
      calls++;
      return tokenize(t);
    }, 10);
    const msg = (c: string) => ({ messages: [{ role: 'user', content: c }] });
    p.of('chat', msg('x'.repeat(6)));
    p.of('chat', msg('x'.repeat(6)));
    expect(calls).toBe(2); // '\n' once, x once
    p.of('chat', msg('y'.repeat(6))); // 12 > 10: the x entry goes
    p.of('chat', msg('x'.repeat(6)));
    expect(calls).toBe(4);
  });
});
