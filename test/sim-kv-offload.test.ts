import { afterEach, describe, expect, it } from 'vitest';
import { serverCacheMetrics } from '../src/metrics/agentic/server-metrics.ts';
import { resolveSim, type SimSetup } from '../src/sim/engine/config.ts';
import { type SimServer, startSimServer } from '../src/sim/serve/server.ts';

/**
 * Conversations whose working set exceeds the GPU KV cache but fits GPU + DRAM, replayed against
 * `sim serve` with and without `kv-offloading: dram`, read back through the server-metrics block the
 * AgentX aggregate carries (scrapes before and after, as the client takes them).
 */

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const tokenize = (text: string) => Array.from(text, (c) => c.codePointAt(0)!);
// A small GPU budget so a few conversations overflow it: 8B bf16 weights plus the reserve, little KV left.
const base: SimSetup = { model: MODEL, hardware: 'h100', gpuMemoryUtilization: 0.32, prefixCaching: true };
const kvTokens = resolveSim(base).kvBlocks * 16;

let servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function chat(url: string, messages: unknown[]): Promise<number> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages, max_tokens: 2, ignore_eos: true }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { infx: { arrival: number; first: number } };
  return body.infx.first - body.infx.arrival;
}

async function replay(setup: SimSetup) {
  const server = await startSimServer({ setup, timeScale: 500, tokenize });
  servers.push(server);
  const scrape = async () => (await fetch(`${server.url}/metrics`)).text();
  const size = Math.floor(kvTokens * 0.4);
  const first = (c: string) => [{ role: 'user', content: c.repeat(size) }];
  const before = await scrape();
  for (const c of ['a', 'b', 'c']) await chat(server.url, first(c));
  // Conversation a's next turn: its first turn's blocks were pushed off the GPU by b and c.
  const ttft = await chat(server.url, [
    ...first('a'),
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'next' },
  ]);
  return { metrics: serverCacheMetrics(before, await scrape())!, ttft };
}

describe('kv-offloading: dram on the simulated engine', () => {
  it('gets more prefix hits than the GPU cache alone, and a shorter (but not free) next turn', async () => {
    expect(kvTokens).toBeGreaterThan(2000);
    const gpuOnly = await replay(base);
    const tiered = await replay({ ...base, kvOffloadDramGb: 50 });
    // No connector: no external counters; by-source (which wins, §7.5) says nothing came from outside.
    expect(gpuOnly.metrics.cache.external_prefix_cache_hits).toBeNull();
    expect(gpuOnly.metrics.cache.external_cache_hit_rate).toBe(0);
    const h = tiered.metrics;
    expect(h.adapter).toBe('vllm');
    expect(h.cache.external_prefix_cache_hits).toBeGreaterThan(0);
    expect(h.cache.overall_cache_hit_rate!).toBeGreaterThan(gpuOnly.metrics.cache.overall_cache_hit_rate!);
    // The reload is charged: bytes moved back in a positive simulated time, at the 50 GB/s default.
    expect(h.kv_offload.bytes_cpu_to_gpu).toBeGreaterThan(0);
    expect(h.kv_offload.bandwidth_cpu_to_gpu_bytes_per_second).toBeCloseTo(50e9, -3);
    expect(tiered.ttft).toBeLessThan(gpuOnly.ttft);
  });
});
