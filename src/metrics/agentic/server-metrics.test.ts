import { describe, expect, it } from 'vitest';
import { InferencexAgenticServerMetricsSchema } from '../../schema/agentic-metrics.ts';
import { parsePrometheusText } from './prometheus-text.ts';
import { ServerMetricsError, serverCacheMetrics, vllmGpuKvTokensFromLogs } from './server-metrics.ts';

const L = '{model_name="m"}';

/** A vLLM scrape as prometheus_client writes it: HELP/TYPE, `_total` samples and their `_created` twins. */
function vllmText(v: {
  hits: number;
  queries: number;
  prompt: number;
  gen: number;
  done: number;
  usage: number;
  external?: { hits: number; queries: number };
  bySource?: Record<string, number>;
  offload?: { g2cBytes: number; c2gBytes: number; c2gTime: number };
}): string {
  const lines = [
    '# HELP vllm:prefix_cache_hits Prefix cache hits, in terms of number of cached tokens.',
    '# TYPE vllm:prefix_cache_hits counter',
    `vllm:prefix_cache_hits_total${L} ${v.hits}`,
    `vllm:prefix_cache_hits_created${L} 1.7e9`,
    '# TYPE vllm:prefix_cache_queries counter',
    `vllm:prefix_cache_queries_total${L} ${v.queries}`,
    `vllm:prefix_cache_queries_created${L} 1.7e9`,
    '# TYPE vllm:prompt_tokens counter',
    `vllm:prompt_tokens_total${L} ${v.prompt}`,
    `vllm:generation_tokens_total${L} ${v.gen}`,
    `vllm:request_success_total{model_name="m",finished_reason="stop"} ${v.done}`,
    `vllm:request_success_total{model_name="m",finished_reason="length"} 0`,
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc${L} ${v.usage}`,
  ];
  if (v.external) {
    lines.push(
      `vllm:external_prefix_cache_hits_total${L} ${v.external.hits}`,
      `vllm:external_prefix_cache_queries_total${L} ${v.external.queries}`,
    );
  }
  for (const [source, n] of Object.entries(v.bySource ?? {})) {
    lines.push(`vllm:prompt_tokens_by_source_total{model_name="m",source="${source}"} ${n}`);
  }
  if (v.offload) {
    lines.push(
      `vllm:kv_offload_total_bytes_total{model_name="m",transfer_type="GPU_to_CPU"} ${v.offload.g2cBytes}`,
      `vllm:kv_offload_total_bytes_total{model_name="m",transfer_type="CPU_to_GPU"} ${v.offload.c2gBytes}`,
      `vllm:kv_offload_total_time_total{model_name="m",transfer_type="CPU_to_GPU"} ${v.offload.c2gTime}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const start = { hits: 100, queries: 1000, prompt: 1000, gen: 500, done: 4, usage: 0.1 };

describe('serverCacheMetrics: vLLM', () => {
  it('takes counter deltas over the profiling phase and rates as hits / queries', () => {
    const end = { hits: 900, queries: 2000, prompt: 13345, gen: 7289, done: 14, usage: 0.42 };
    const m = serverCacheMetrics(vllmText(start), vllmText(end))!;
    expect(InferencexAgenticServerMetricsSchema.parse(m)).toEqual(m);
    expect(m).toMatchObject({ present: true, adapter: 'vllm' });
    // 800 hits of 1000 queries in the window (not 900 / 2000 since start).
    expect(m.cache).toMatchObject({
      prefix_cache_hits: 800,
      prefix_cache_queries: 1000,
      gpu_cache_hit_rate: 0.8,
      overall_cache_hit_rate: 0.8,
      external_cache_hit_rate: null,
      cpu_cache_hit_rate: null,
      external_prefix_cache_hits: null,
    });
    expect(m.tokens).toMatchObject({ prompt_total: 12345, generation_total: 6789, requests_completed: 10 });
    expect(m.kv_cache.gpu_usage_pct).toBe(0.42);
    expect(m.kv_cache.gpu_total_tokens).toBeNull();
    expect(m.kv_offload.bytes_cpu_to_gpu).toBeNull();
    // Families: hits, queries, prompt, generation, success, usage (`_created` folded into its counter).
    expect(m.metric_count).toBe(6);
  });

  it('sums counters over series (spec case 21) and reads the end scrape alone as from zero', () => {
    const text = [
      `vllm:prefix_cache_hits_total{engine="0"} 100`,
      `vllm:prefix_cache_hits_total{engine="1"} 200`,
      `vllm:prefix_cache_queries_total{engine="0"} 400`,
      `vllm:prefix_cache_queries_total{engine="1"} 600`,
      `vllm:kv_cache_usage_perc{engine="0"} 0.2`,
      `vllm:kv_cache_usage_perc{engine="1"} 0.7`,
    ].join('\n');
    const m = serverCacheMetrics(null, text)!;
    expect(m.cache.gpu_cache_hit_rate).toBe(0.3);
    expect(m.kv_cache.gpu_usage_pct).toBe(0.7);
  });

  it('splits GPU and CPU-tier hits: external counters, then prompt_tokens_by_source when present', () => {
    const base = { ...start, external: { hits: 0, queries: 1000 } };
    const end = { ...start, hits: 400, queries: 2000, external: { hits: 250, queries: 2000 } };
    const m = serverCacheMetrics(vllmText(base), vllmText(end))!;
    // GPU 300 / 1000, external 250 / 1000; overall needs by-source.
    expect(m.cache).toMatchObject({
      gpu_cache_hit_rate: 0.3,
      external_cache_hit_rate: 0.25,
      cpu_cache_hit_rate: 0.25,
      overall_cache_hit_rate: null,
      external_prefix_cache_hits: 250,
      external_prefix_cache_queries: 1000,
    });
    const bySource = serverCacheMetrics(
      vllmText({ ...base, bySource: { local_compute: 100, local_cache_hit: 0, external_kv_transfer: 0 } }),
      vllmText({ ...end, bySource: { local_compute: 550, local_cache_hit: 300, external_kv_transfer: 150 } }),
    )!;
    // Σ = 450 + 300 + 150 = 900: gpu 1/3, cpu 1/6, overall 1/2 (spec case 26's proportions).
    expect(bySource.cache.gpu_cache_hit_rate).toBeCloseTo(1 / 3, 12);
    expect(bySource.cache.cpu_cache_hit_rate).toBeCloseTo(1 / 6, 12);
    expect(bySource.cache.external_cache_hit_rate).toBeCloseTo(1 / 6, 12);
    expect(bySource.cache.overall_cache_hit_rate).toBe(0.5);
    expect(bySource.cache.cached_tokens_by_source).toEqual({
      local_compute: 450,
      local_cache_hit: 300,
      external_kv_transfer: 150,
    });
    expect(bySource.tokens.prompt_by_source).toEqual({
      gpu_cache_hit: 300,
      cpu_or_external_cache_hit: 150,
      computed: 450,
      raw: 900,
    });
  });

  it('reports offload bytes, time and bandwidth (spec case 23)', () => {
    const m = serverCacheMetrics(
      null,
      vllmText({ ...start, offload: { g2cBytes: 7, c2gBytes: 10_000_000, c2gTime: 2 } }),
    )!;
    expect(m.kv_offload).toEqual({
      bytes_gpu_to_cpu: 7,
      bytes_cpu_to_gpu: 10_000_000,
      time_gpu_to_cpu: null,
      time_cpu_to_gpu: 2,
      bandwidth_gpu_to_cpu_bytes_per_second: null,
      bandwidth_cpu_to_gpu_bytes_per_second: 5_000_000,
    });
  });

  it('takes a counter that went down as reset (the end value), and a percentage gauge as a fraction', () => {
    const m = serverCacheMetrics(
      vllmText({ ...start, hits: 5000, queries: 9000 }),
      vllmText({ ...start, hits: 30, queries: 60, usage: 75 }),
    )!;
    expect(m.cache.gpu_cache_hit_rate).toBe(0.5);
    expect(m.kv_cache.gpu_usage_pct).toBe(0.75);
  });

  it('has null rates when nothing was queried, and the log capacity when given', () => {
    const m = serverCacheMetrics(vllmText(start), vllmText(start), { gpuTotalTokensFromLogs: 11_500_000 })!;
    expect(m.cache.prefix_cache_queries).toBe(0);
    expect(m.cache.gpu_cache_hit_rate).toBeNull();
    expect(m.kv_cache.gpu_total_tokens).toBe(11_500_000);
  });
});

describe('serverCacheMetrics: SGLang', () => {
  it('reads device and host cached tokens over prompt tokens (spec case 25)', () => {
    const text = [
      '# TYPE sglang:prompt_tokens counter',
      'sglang:prompt_tokens_total{model_name="m"} 1000',
      'sglang:generation_tokens_total{model_name="m"} 300',
      'sglang:num_requests_total{model_name="m"} 7',
      'sglang:cached_tokens_total{model_name="m",cache_source="device"} 400',
      'sglang:cached_tokens_total{model_name="m",cache_source="host"} 100',
      'sglang:token_usage{model_name="m",dp="0"} 0.75',
      'sglang:token_usage{model_name="m",dp="1"} 0.5',
      'sglang:hicache_host_used_tokens{model_name="m"} 300',
      'sglang:hicache_host_total_tokens{model_name="m"} 1000',
      'sglang:realtime_tokens_total{model_name="m",mode="prefill_compute"} 500',
      'sglang:realtime_tokens_total{model_name="m",mode="decode"} 300',
      'sglang:max_total_num_tokens{dp="0"} 1000',
      'sglang:max_total_num_tokens{dp="1"} 1200',
    ].join('\n');
    const m = serverCacheMetrics(null, text)!;
    expect(InferencexAgenticServerMetricsSchema.parse(m)).toEqual(m);
    expect(m.adapter).toBe('sglang');
    expect(m.cache).toMatchObject({
      gpu_cache_hit_rate: 0.4,
      cpu_cache_hit_rate: 0.1,
      external_cache_hit_rate: 0.1,
      overall_cache_hit_rate: 0.5,
      prefix_cache_hits: 500,
      prefix_cache_queries: 1000,
      cached_tokens_by_source: { device: 400, host: 100 },
    });
    expect(m.kv_cache).toEqual({
      gpu_usage_pct: 0.75,
      gpu_total_tokens: 2200,
      cpu_usage_pct: 0.3,
      cpu_used_tokens: 300,
      cpu_total_tokens: 1000,
    });
    expect(m.tokens).toEqual({
      prompt_total: 1000,
      generation_total: 300,
      requests_completed: 7,
      prompt_by_source: { gpu_cache_hit: 400, cpu_or_external_cache_hit: 100, computed: 500, raw: 1000 },
    });
  });

  it('counts unlabelled cached tokens (no HiCache) as device hits, over the window only; no host rate', () => {
    const at = (prompt: number, cached: number) =>
      `sglang:prompt_tokens_total ${prompt}\nsglang:cached_tokens_total ${cached}\n`;
    const m = serverCacheMetrics(at(100, 50), at(1100, 350))!;
    expect(m.cache).toMatchObject({
      gpu_cache_hit_rate: 0.3,
      cpu_cache_hit_rate: null,
      overall_cache_hit_rate: 0.3,
    });
    expect(m.cache.cached_tokens_by_source).toEqual({ device: 300 });
  });
});

describe('serverCacheMetrics: nothing to read, or nothing it can read', () => {
  it('is null without an end scrape or with an empty one', () => {
    expect(serverCacheMetrics(null, null)).toBeNull();
    expect(serverCacheMetrics(vllmText(start), '# HELP x y\n\n')).toBeNull();
  });

  it('refuses an unknown backend (spec case 28) and names the ones not read yet', () => {
    expect(() => serverCacheMetrics(null, 'unknown_backend:cache_hits 3\n')).toThrow(
      /Unsupported agentic server metrics backend/,
    );
    expect(() => serverCacheMetrics(null, 'dynamo_frontend_input_tokens_total 9\n')).toThrow(
      ServerMetricsError,
    );
  });
});

describe('parsePrometheusText and vllmGpuKvTokensFromLogs', () => {
  it('reads escaped label values, special values and timestamps, and skips malformed lines', () => {
    const s = parsePrometheusText(
      ['a{l="x\\"y,z",m="1"} 2.5 1700000000000', 'b +Inf', 'c{broken 1', 'd NaN', 'e{} 3'].join('\n'),
    );
    expect(s.samples).toEqual([
      { name: 'a', labels: { l: 'x"y,z', m: '1' }, value: 2.5 },
      { name: 'b', labels: {}, value: Number.POSITIVE_INFINITY },
      { name: 'e', labels: {}, value: 3 },
    ]);
  });

  it('keeps the last capacity per engine core of a log and sums engines and logs (spec case 19)', () => {
    const log = [
      '(EngineCore_DP0 pid=100) INFO GPU KV cache size: 5,000,000 tokens',
      '(EngineCore_DP0 pid=100) INFO GPU KV cache size: 5,000,000 tokens',
      '(EngineCore_DP1 pid=101) INFO GPU KV cache size: 6,500,000 tokens',
    ].join('\n');
    expect(vllmGpuKvTokensFromLogs([log])).toBe(11_500_000);
    expect(
      vllmGpuKvTokensFromLogs([
        'GPU KV cache size: 5,000,000 tokens\nGPU KV cache size: 6,500,000 tokens',
        'GPU KV cache size: 7,000,000 tokens',
      ]),
    ).toBe(18_500_000);
    expect(vllmGpuKvTokensFromLogs(['nothing here'])).toBeNull();
  });
});
