import { describe, expect, it } from 'vitest';
import { arec } from '../../../test/support/agentic-records.ts';
import { UNMEASURED_CLIENT } from '../../../test/support/metrics.ts';
import { AgenticMetricsSchema, InferencexAgenticAggregateSchema } from '../../schema/agentic-metrics.ts';
import type { AgenticRequestRecord } from '../../schema/agentic-record.ts';
import { type AgenticAggregateInput, aggregateAgentic } from './aggregate.ts';
import {
  type InferencexAgenticIdentity,
  SERVER_METRICS_MISSING,
  toInferencexAgentic,
} from './inferencex-export.ts';

function input(
  records: AgenticRequestRecord[],
  over: Partial<AgenticAggregateInput> = {},
): AgenticAggregateInput {
  return {
    records,
    tool: { name: 'infx', version: '0.1.0' },
    createdAt: '2025-01-15T12:00:00.000Z',
    seed: 0,
    target: { baseUrl: 'http://127.0.0.1:8888', model: 'm', endpoint: 'chat' },
    load: { concurrency: 2, requestRate: 'inf', burstiness: 1 },
    gpus: { total: 16, prefill: null, decode: null },
    client: UNMEASURED_CLIENT,
    workload: {
      kind: 'agentic-coding',
      traces: { name: 'hand', files: [{ path: 'traces.jsonl', sha256: 'a'.repeat(64) }] },
      durationS: 3600,
      warmup: { startMinRatio: 0.25, startMaxRatio: 0.75, requestsPerLane: 10, graceS: 1800 },
      maxContextTokens: null,
      fast: false,
      tokenizer: { kind: 'builtin', name: 'o200k_base', path: null },
    },
    engine: { kind: 'real', simulator: null, timeScale: null, lockstep: false, lag: null },
    clock: 'wall',
    clockOriginUnixMs: 1_700_000_000_000,
    maxFailureRate: 0.1,
    replay: { profilingStartMs: 1000, profilingEndMs: 5200, creditDropCount: 0, runCancelled: false },
    ...over,
  };
}

// spec §10 case 12 (TTFT, E2E, start, end, ISL, OSL as its table; expected OSL as case 27).
const five = (): AgenticRequestRecord[] =>
  (
    [
      ['trace-a', 0, 100, 50, 30, 1000, 1.0, 2.0, 50],
      ['trace-a', 1, 180, 60, 35, 1100, 2.5, 3.7, 60],
      ['trace-b', 0, 120, 40, 32, 900, 1.5, 2.3, 40],
      ['trace-b', 1, 200, 70, 40, 1400, 3.0, 4.5, 70],
      ['trace-a', 2, 240, 55, 33, 1050, 4.0, 5.1, 55],
    ] as const
  ).map(([conv, turn, isl, osl, ttft, e2e, s, e, expected]) =>
    arec({ conv, turn, isl, osl, ttft, e2e, sent: s * 1000, done: e * 1000, expected }),
  );

const identity: InferencexAgenticIdentity = {
  hw: 'h200',
  conc: 2,
  image: 'img',
  recipe_fingerprint: '',
  model: 'm',
  infmax_model_prefix: 'dsr1',
  framework: 'vllm',
  precision: 'fp8',
  spec_decoding: 'none',
  disagg: false,
  is_multinode: false,
  tp: 4,
  ep: 1,
  dp_attention: 'false',
  kv_offloading: 'none',
  kv_offload_backend: null,
  allocated_cpu_dram_gb: null,
  pp: 2,
  dcp_size: 1,
  pcp_size: 2,
};

describe('aggregateAgentic', () => {
  it('computes the §4.4 block of the five-record case', () => {
    const m = aggregateAgentic(input(five()));
    AgenticMetricsSchema.parse(m);
    expect(m.latency.ttftMs).toMatchObject({ count: 5, mean: 34, p50: 33 });
    expect(m.latency.ttftMs.p90).toBeCloseTo(38, 10);
    expect(m.latency.e2elMs.mean).toBeCloseTo(1090, 10);
    expect(m.tokens).toMatchObject({ totalInput: 840, totalOutput: 275 });
    expect(m.tokens.outputExpected.mean).toBe(55);
    expect(m.throughput!.durationS).toBeCloseTo(4.1, 12);
    expect(m.throughput!.gpus).toBe(16);
    expect(m.qps!.samples).toBe(3);
    // Last observation: A/2's last token 4000 + 1050 = 5050, short of 1000 + 0.98 · 4200 = 5116: 4050/4200 = 0.964.
    expect(m.coverage.fraction).toBeCloseTo(4050 / 4200, 12);
    expect(m.submissionInvalidReasons).toEqual(['insufficient_profile_metric_coverage']);
    expect(m.cache).toEqual({ theoreticalPrefixCacheHit: null, theoreticalCacheHitRate: null });
  });

  it('a point whose profiling phase it covers, with all gates passed, is a valid submission', () => {
    const m = aggregateAgentic(
      input(five(), {
        replay: { profilingStartMs: 1000, profilingEndMs: 5100, creditDropCount: 0, runCancelled: false },
      }),
    );
    // 4050 / 4100 = 0.9878 ≥ 0.98.
    expect(m.submissionValid).toBe(true);
    expect(m.submissionInvalidReasons).toEqual([]);
  });

  it('gives nulls, not zeros, without a successful record, and says why it is invalid', () => {
    const m = aggregateAgentic(
      input([arec({ fail: 'http_5xx' }), arec({ phase: 'warmup' }), arec({ cancelled: true })]),
    );
    AgenticMetricsSchema.parse(m);
    expect(m.latency.ttftMs.mean).toBeNull();
    expect(m.interactivity.e2eNormIntvty.p90).toBeNull();
    expect(m.throughput).toBeNull();
    expect(m.qps).toBeNull();
    expect(m.accounting).toMatchObject({ recordsTotal: 3, recordsProfiled: 0, recordsCancelled: 1 });
    expect(m.health.cancelledCount).toBe(1);
    expect(m.errorGate).toMatchObject({ errors: 1, completed: 1, passed: false });
    expect(m.submissionInvalidReasons).toEqual([
      'no_successful_requests',
      'insufficient_profile_metric_coverage',
      'error_rate_exceeded',
    ]);
  });

  it('takes prefill + decode as the GPUs when no total is given', () => {
    const m = aggregateAgentic(input(five(), { gpus: { total: null, prefill: 32, decode: 32 } }));
    // spec §10 case 29: 64 GPUs for all per-GPU throughputs; 1115 / 4.1 / 64.
    expect(m.throughput!.perGpu.total).toBeCloseTo(1115 / 4.1 / 64, 10);
    expect(m.throughput!.perGpu.input).toBeCloseTo(840 / 4.1 / 64, 10);
  });

  it('on the engine clock, takes the engine’s stamps for the figures and the wall times for coverage', () => {
    // Wall: sent 1000, first token 1100, last 5100. Engine: arrival 0, first token 40, last 440, OSL 11.
    const r = arec({ sent: 1000, ttft: 100, e2e: 4100, osl: 11 });
    r.engine = { arrivalMs: 0, scheduledMs: null, firstTokenMs: 40, lastTokenMs: 440, chunkGapsMs: [] };
    const m = aggregateAgentic(
      input([r], {
        clock: 'engine',
        replay: { profilingStartMs: 1000, profilingEndMs: 5100, creditDropCount: 0, runCancelled: false },
      }),
    );
    // TTFT 40; ITL (440 − 40)/10 = 40; the engine's done is its last token, so full-response ITL = ITL.
    expect(m.latency.ttftMs.mean).toBe(40);
    expect(m.latency.itlMs.mean).toBe(40);
    expect(m.latency.fullResponseItlMs.mean).toBe(40);
    // Coverage on the wall clock: the last token at 5100 reaches the phase's end.
    expect(m.coverage).toMatchObject({ lastObservationMs: 5100, fraction: 1, passed: true });
  });

  it('on the wall clock against a scaled simulator, reads wall ms × scale', () => {
    const r = arec({ sent: 0, ttft: 10, e2e: 110, osl: 11 });
    const m = aggregateAgentic(input([r], { engine: { ...input([]).engine, timeScale: 4 } }));
    // × 4: TTFT 40, ITL (440 − 40)/10 = 40.
    expect(m.latency.ttftMs.mean).toBe(40);
    expect(m.latency.itlMs.mean).toBe(40);
  });

  it('warmup never leaks into the figures (spec §10 case 18)', () => {
    const records = [
      arec({ phase: 'warmup', isl: 10_000, ttft: 9000, e2e: 9500 }),
      arec({ isl: 100, osl: 50, ttft: 30, e2e: 200 }),
    ];
    const out = toInferencexAgentic(aggregateAgentic(input(records)), identity, null);
    expect(out.request_metrics.latency.ttft.mean).toBe(0.03);
    expect(out.server_metrics.tokens).toMatchObject({ prompt_total: 100, generation_total: 50 });
  });
});

// The top-level fields of spec §7.6, written out from its text (single-node topology).
const SPEC_TOP_LEVEL = [
  'hw',
  'conc',
  'image',
  'recipe_fingerprint',
  'model',
  'infmax_model_prefix',
  'framework',
  'precision',
  'spec_decoding',
  'disagg',
  'scenario_type',
  'is_multinode',
  'tp',
  'ep',
  'dp_attention',
  'kv_offloading',
  'kv_offload_backend',
  'allocated_cpu_dram_gb',
  'num_requests_total',
  'num_requests_successful',
  'request_accounting',
  'pp',
  'dcp_size',
  'pcp_size',
  'request_metrics',
  'server_metrics',
  'kv_cache_pool_tokens',
  'warnings',
];
const SPEC_MULTI_NODE = [
  ...['tp', 'pp', 'dcp_size', 'pcp_size', 'ep', 'dp_attention', 'num_workers'].flatMap((k) => [
    `prefill_${k}`,
    `decode_${k}`,
  ]),
  'num_prefill_gpu',
  'num_decode_gpu',
  'prefill_hw',
  'decode_hw',
];
const SPEC_OPTIONAL = ['router', 'kv_p2p_transfer', 'dataset'];

describe('the §7.6 AgentX aggregate', () => {
  const out = toInferencexAgentic(aggregateAgentic(input(five())), identity, null);

  it('has exactly the spec’s field set', () => {
    expect(Object.keys(out).sort()).toEqual([...SPEC_TOP_LEVEL].sort());
    expect(Object.keys(InferencexAgenticAggregateSchema.shape).sort()).toEqual(
      [...SPEC_TOP_LEVEL, ...SPEC_MULTI_NODE, ...SPEC_OPTIONAL].sort(),
    );
    expect(Object.keys(out.request_accounting).sort()).toEqual(
      [
        'records_total',
        'records_profiled',
        'records_dropped_total',
        'records_warmup_dropped',
        'records_error_dropped',
        'error_categories',
      ].sort(),
    );
    expect(Object.keys(out.request_metrics).sort()).toEqual(
      ['qps', 'latency', 'tokens', 'throughput', 'cache'].sort(),
    );
    expect(Object.keys(out.request_metrics.latency).sort()).toEqual(
      [
        'ttft',
        'e2el',
        'itl',
        'tpot',
        'intvty',
        'e2e_norm_intvty',
        'full_response_itl',
        'full_response_intvty',
      ].sort(),
    );
    expect(Object.keys(out.request_metrics.tokens).sort()).toEqual(
      ['input', 'output_actual', 'output_expected'].sort(),
    );
    expect(Object.keys(out.request_metrics.throughput).sort()).toEqual(
      ['input', 'output', 'total', 'duration_seconds', 'per_gpu'].sort(),
    );
    expect(Object.keys(out.server_metrics).sort()).toEqual(
      ['present', 'adapter', 'metric_count', 'cache', 'kv_cache', 'kv_offload', 'tokens', 'sources'].sort(),
    );
    expect(Object.keys(out.server_metrics.cache)).toHaveLength(14);
    expect(Object.keys(out.server_metrics.kv_cache)).toHaveLength(5);
    expect(Object.keys(out.server_metrics.kv_offload)).toHaveLength(6);
    // No flat metric keys at the top level.
    expect(out).not.toHaveProperty('mean_ttft');
    expect(out).not.toHaveProperty('p90_itl');
    InferencexAgenticAggregateSchema.parse(out);
  });

  it('holds the five-record case’s figures, rounded as the reference rounds them', () => {
    const rm = out.request_metrics;
    expect(rm.latency.ttft).toMatchObject({ mean: 0.034, p50: 0.033, p90: 0.038 });
    expect(rm.latency.e2el.mean).toBe(1.09);
    // 840/4.1 = 204.8780487…, 275/4.1 = 67.0731707…, 1115/4.1 = 271.9512195…, ÷16 = 16.9969512…
    expect(rm.throughput).toEqual({
      input: { tokens_per_second: 204.87805 },
      output: { tokens_per_second: 67.07317 },
      total: { tokens_per_second: 271.95122 },
      duration_seconds: 4.1,
      per_gpu: { total_tput_tps: 16.99695, output_tput_tps: 4.19207, input_tput_tps: 12.80488 },
    });
    // Windows [2, 1, 1].
    expect(rm.qps).toEqual({
      window_seconds: 1,
      samples: 3,
      mean: 1.33333,
      p50: 1,
      p75: 1.5,
      p90: 1.8,
      p95: 1.9,
      std: 0.4714,
    });
    expect(rm.tokens.output_expected.mean).toBe(55);
    expect(rm.cache.theoretical_cache_hit_rate).toBeNull();
    expect(out.server_metrics).toMatchObject({ present: false, adapter: null });
    expect(out.server_metrics.tokens).toMatchObject({
      prompt_total: 840,
      generation_total: 275,
      requests_completed: 5,
    });
    expect(out.kv_cache_pool_tokens).toBeNull();
    expect(out.warnings).toEqual([SERVER_METRICS_MISSING]);
    expect(out.num_requests_total).toBe(5);
    expect(out.num_requests_successful).toBe(5);
  });

  it('writes the reference’s empties: zeros for a distribution, {} for e2e_norm_intvty, qps and throughput', () => {
    const empty = toInferencexAgentic(aggregateAgentic(input([arec({ fail: 'http_5xx' })])), identity, null);
    expect(empty.request_metrics.latency.ttft).toEqual({ mean: 0, p50: 0, p75: 0, p90: 0, p95: 0, std: 0 });
    expect(empty.request_metrics.latency.e2e_norm_intvty).toEqual({});
    expect(empty.request_metrics.latency.intvty).toEqual({});
    expect(empty.request_metrics.qps).toEqual({});
    expect(empty.request_metrics.throughput).toEqual({});
    expect(empty.request_accounting.error_categories).toEqual({ http_5xx: 1 });
    expect(empty.num_requests_successful).toBe(0);
  });

  it('takes scraped server metrics as given, and the KV pool from them', () => {
    const scraped = { ...out.server_metrics, present: true, adapter: 'vllm', metric_count: 12 };
    scraped.kv_cache = { ...scraped.kv_cache, gpu_total_tokens: 11_500_000 };
    const withServer = toInferencexAgentic(aggregateAgentic(input(five())), identity, scraped);
    expect(withServer.kv_cache_pool_tokens).toBe(11_500_000);
    expect(withServer.server_metrics.adapter).toBe('vllm');
    expect(withServer).not.toHaveProperty('warnings');
  });
});
