import { describe, expect, it } from 'vitest';
import { UNMEASURED_CLIENT } from '../../test/support/metrics.ts';
import {
  INFERENCEX_LATENCY_KEYS,
  type InferencexRawResult,
  InferencexRawResultSchema,
} from '../schema/inferencex-result.ts';
import type { PointResultOf } from '../schema/point-result.ts';
import type { RequestRecord } from '../schema/request-record.ts';
import { aggregatePoint } from './fixed-seq-len.ts';
import {
  type InferencexAggregateEnv,
  InferencexAggregateError,
  inferencexDate,
  inferencexEnvFromVariables,
  toInferencexAggregateRow,
  toInferencexRaw,
} from './inferencex.ts';

const BASE_ENV: InferencexAggregateEnv = {
  hw: 'h100',
  image: 'vllm/vllm-openai:v0.11.0',
  modelPrefix: 'llama70b',
  framework: 'vllm',
  precision: 'fp8',
  specDecoding: 'none',
  isl: 1024,
  osl: 1024,
  disagg: false,
  isMultinode: false,
  tp: 8,
  ep: 1,
  dpAttention: 'false',
};

const MULTI: InferencexAggregateEnv = {
  ...BASE_ENV,
  tp: undefined,
  ep: undefined,
  dpAttention: undefined,
  isMultinode: true,
  disagg: true,
  prefillGpus: 20,
  decodeGpus: 8,
  prefillNumWorkers: 5,
  prefillTp: 4,
  prefillEp: 4,
  prefillDpAttention: 'false',
  decodeNumWorkers: 1,
  decodeTp: 8,
  decodeEp: 8,
  decodeDpAttention: 'true',
};

/** A raw result with just the fields a test is about (the rest of the file does not matter to the row). */
const raw = (fields: Record<string, unknown>): InferencexRawResult =>
  ({
    model_id: 'm',
    max_concurrency: 64,
    total_token_throughput: 0,
    output_throughput: 0,
    ...fields,
  }) as never;

const row = (fields: Record<string, unknown>, env: Partial<InferencexAggregateEnv> = {}) =>
  toInferencexAggregateRow(raw(fields), { ...BASE_ENV, ...env });

describe('toInferencexAggregateRow (process_result.py)', () => {
  it('case 1: single node divides by TP', () => {
    const r = row({ total_token_throughput: 15000.5, output_throughput: 12000, max_concurrency: 64 });
    expect(r).toMatchObject({
      tput_per_gpu: 1875.0625,
      output_tput_per_gpu: 1500,
      input_tput_per_gpu: 375.0625,
      conc: 64,
      is_multinode: false,
      disagg: false,
    });
    expect(r).not.toHaveProperty('total_token_throughput');
  });

  it('case 2: every key ending in ms becomes seconds without _ms', () => {
    const r = row({ ttft_p50_ms: 150.5, e2e_latency_p99_ms: 2500, custom_metric_ms: 500 });
    expect(r).toMatchObject({ ttft_p50: 0.1505, e2e_latency_p99: 2.5, custom_metric: 0.5 });
    expect(r).not.toHaveProperty('ttft_p50_ms');
  });

  it('case 3: tpot keys also give interactivity 1000/ms (slow tail at p99)', () => {
    const r = row({ tpot_p50_ms: 20, tpot_p99_ms: 50 });
    expect(r).toMatchObject({ intvty_p50: 50, intvty_p99: 20, tpot_p50: 0.02, tpot_p99: 0.05 });
    const r2 = row({ tpot_p50_ms: 25, tpot_p99_ms: 45 });
    expect(r2.intvty_p50).toBe(40);
    expect(r2.intvty_p99).toBeCloseTo(22.222, 3);
  });

  it('case 4: TP×PP×PCP GPUs; DCP is metadata only', () => {
    const r = row(
      { total_token_throughput: 8000, output_throughput: 6000 },
      { tp: 4, pp: 2, dcpSize: 2, pcpSize: 2 },
    );
    expect(r).toMatchObject({ tput_per_gpu: 500, output_tput_per_gpu: 375, input_tput_per_gpu: 125 });
    expect(r).toMatchObject({ tp: 4, pp: 2, dcp_size: 2, pcp_size: 2 });
  });

  it('case 5: multi node divides output by decode GPUs and input by prefill GPUs', () => {
    const r = toInferencexAggregateRow(
      raw({ total_token_throughput: 28000, output_throughput: 16000 }),
      MULTI,
    );
    expect(r).toMatchObject({ tput_per_gpu: 1000, output_tput_per_gpu: 2000, input_tput_per_gpu: 600 });
    expect(r).toMatchObject({ is_multinode: true, num_prefill_gpu: 20, num_decode_gpu: 8, decode_tp: 8 });
    const r2 = toInferencexAggregateRow(
      raw({ total_token_throughput: 15000.5, output_throughput: 12000 }),
      MULTI,
    );
    expect(r2.tput_per_gpu).toBeCloseTo(535.732, 3);
    expect(r2.output_tput_per_gpu).toBe(1500);
    expect(r2.input_tput_per_gpu).toBe(150.025);
  });

  it('case 6: no decode GPUs spreads output over all GPUs and reports decode parallelism as absent', () => {
    const env = { ...MULTI, prefillGpus: 8, decodeGpus: 0, decodePp: 2 };
    const r = toInferencexAggregateRow(raw({ total_token_throughput: 8000, output_throughput: 6000 }), env);
    expect(r).toMatchObject({ tput_per_gpu: 1000, output_tput_per_gpu: 750, input_tput_per_gpu: 250 });
    expect(r).toMatchObject({
      decode_tp: 0,
      decode_ep: 0,
      num_decode_gpu: 0,
      decode_pp: 1,
      decode_pcp_size: 1,
    });
  });

  it('case 7: refuses impossible setups with the reference messages', () => {
    const fails = (env: Partial<InferencexAggregateEnv>, message: string | RegExp) => {
      const call = () => toInferencexAggregateRow(raw({}), { ...MULTI, ...env });
      expect(call).toThrow(InferencexAggregateError);
      expect(call).toThrow(message);
    };
    fails({ prefillGpus: 0, decodeGpus: 0 }, 'Multinode results require at least one GPU.');
    fails({ prefillGpus: 0, decodeGpus: 8 }, 'Multinode results require at least one prefill GPU.');
    fails({ isMultinode: false, disagg: true }, 'Disaggregated mode requires multinode setup.');
    fails({ prefillHardware: 'gb200' }, 'PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.');
    fails(
      { routerMetadata: '{"name":"vllm-router"}' },
      "ROUTER_METADATA must contain exactly 'name' and 'version'",
    );
    fails({ routerMetadata: '{"name":"r","version":""}' }, 'name and version must be non-empty strings');
    fails({ routerMetadata: '{nope' }, 'ROUTER_METADATA must contain valid JSON');
    fails(
      { decodeTp: undefined, prefillEp: undefined },
      'Missing required environment variables: PREFILL_EP, DECODE_TP',
    );
    fails({ isMultinode: false, disagg: false, tp: undefined }, 'Missing required environment variables: TP');
    fails({ decodePcpSize: 0 }, 'Multinode PP, DCP, and PCP sizes must be positive integers.');
  });

  it('writes optional router, hardware pair and fingerprint fields', () => {
    const env = { ...MULTI, prefillHardware: 'gb200', decodeHardware: 'gb300' };
    const r = toInferencexAggregateRow(raw({}), { ...env, routerMetadata: '{"version":"1","name":"r"}' });
    expect(r).toMatchObject({ prefill_hw: 'gb200', decode_hw: 'gb300', router: { name: 'r', version: '1' } });
    expect(r.recipe_fingerprint).toBe('');
    expect(toInferencexAggregateRow(raw({}), { ...MULTI, routerMetadata: 'null' })).not.toHaveProperty(
      'router',
    );
  });

  it('refuses an unmeasured (zero) TPOT but leaves out the intvty of a zero std', () => {
    expect(() => row({ p99_tpot_ms: 0 })).toThrow(InferencexAggregateError);
    const r = row({ std_tpot_ms: 0, mean_tpot_ms: 20 });
    expect(r).toMatchObject({ std_tpot: 0, mean_intvty: 50 });
    expect(r).not.toHaveProperty('std_intvty');
  });
});

let n = 0;
function rec(over: Partial<RequestRecord> & { out?: number | null }): RequestRecord {
  const { out = 10, ...rest } = over;
  const sent = rest.sentMs ?? 0;
  return {
    index: n++,
    phase: 'benchmark',
    promptIndex: 0,
    worker: 0,
    scheduledMs: sent,
    sentMs: sent,
    firstByteMs: sent + 20,
    firstTokenMs: sent + 20,
    lastTokenMs: sent + 200,
    doneMs: sent + 210,
    chunkGapsMs: [20, 20],
    contentChunks: 3,
    reasoningChunks: 0,
    inputTokens: { target: 100, client: 98, server: 100 },
    outputTokens: { requested: 10, client: 10, server: out },
    usageFlag: null,
    ok: true,
    error: null,
    cancelled: false,
    engine: null,
    ...rest,
  };
}

function point(records: RequestRecord[]): PointResultOf<'fixed-seq-len'> {
  return aggregatePoint({
    records,
    tool: { name: 'infx', version: '0.1.0' },
    createdAt: '2025-01-05T07:08:09.000Z',
    seed: 0,
    target: { baseUrl: 'http://x', model: 'org/model', endpoint: 'completions' },
    engine: { kind: 'real', simulator: null, timeScale: null, lockstep: false, lag: null },
    clock: 'wall',
    workload: {
      kind: 'fixed-seq-len',
      isl: 100,
      osl: 10,
      randomRangeRatio: 0.8,
      numPrompts: records.length,
      warmup: 0,
      ignoreEos: true,
      tokenizer: { kind: 'builtin', name: 't', path: null },
      chatTemplate: false,
    },
    load: { concurrency: 2, requestRate: 'inf', burstiness: 1 },
    gpus: { total: 8, prefill: null, decode: null },
    clockOriginUnixMs: 1_700_000_000_000,
    maxFailureRate: 0.05,
    client: UNMEASURED_CLIENT,
  });
}

const META = { backend: 'vllm', modelId: 'org/model', tokenizerId: 'org/model' };
const failure = {
  ok: false,
  error: { category: 'http_5xx' as const, message: 'boom', status: 500, bodyExcerpt: null },
};

describe('toInferencexRaw', () => {
  const records = [
    rec({ sentMs: 0 }),
    rec({ sentMs: 0, ...failure, inputTokens: { target: 100, client: 97, server: null } }),
    rec({ sentMs: 210, out: 1 }),
  ];

  it('writes the reference fields in the reference order and validates', () => {
    const r = toInferencexRaw(point(records), records, { ...META, metadata: { tp: '8' } });
    expect(InferencexRawResultSchema.parse(r)).toEqual(r);
    expect(Object.keys(r)).toEqual([
      'date',
      'backend',
      'model_id',
      'tokenizer_id',
      'best_of',
      'num_prompts',
      'tp',
      'request_rate',
      'burstiness',
      'max_concurrency',
      'duration',
      'benchmark_start_time_unix',
      'benchmark_end_time_unix',
      'completed',
      'total_input_tokens',
      'total_output_tokens',
      'request_throughput',
      'request_goodput:',
      'output_throughput',
      'total_token_throughput',
      'input_lens',
      'output_lens',
      ...INFERENCEX_LATENCY_KEYS,
    ]);
    expect(INFERENCEX_LATENCY_KEYS.slice(0, 6)).toEqual([
      'mean_ttft_ms',
      'median_ttft_ms',
      'std_ttft_ms',
      'p90_ttft_ms',
      'p99_ttft_ms',
      'p99.9_ttft_ms',
    ]);
    expect(r).toMatchObject({
      date: '20250105-070809',
      request_rate: 'inf',
      max_concurrency: 2,
      num_prompts: 3,
      completed: 2,
      'request_goodput:': null,
      duration: 0.42,
      benchmark_start_time_unix: 1_700_000_000,
      benchmark_end_time_unix: 1_700_000_000.42,
    });
  });

  it('lists every request in input_lens and gives failures output length 0', () => {
    const r = toInferencexRaw(point(records), records, META);
    expect(r.input_lens).toEqual([100, 97, 100]);
    expect(r.output_lens).toEqual([10, 0, 1]);
    expect(r.total_output_tokens).toBe(11);
    expect(r.mean_ttft_ms).toBe(20);
    expect(r.median_tpot_ms).toBe(20); // (200 − 20) / 9; the 1-token request has no TPOT
  });

  it('writes 0 where infx has null, as the reference did', () => {
    const failed = [rec({ ...failure }), rec({ ...failure })];
    const p = point(failed);
    expect(p.latency.ttftMs.mean).toBeNull();
    const r = toInferencexRaw(p, failed, META);
    for (const k of INFERENCEX_LATENCY_KEYS) expect(r[k]).toBe(0);
    expect(r.output_lens).toEqual([0, 0]);
    expect(InferencexRawResultSchema.parse(r)).toEqual(r);
  });

  it('feeds the aggregate row: ms keys in seconds, TPOT as interactivity', () => {
    const r = toInferencexRaw(point(records), records, META);
    const agg = toInferencexAggregateRow(r, BASE_ENV);
    expect(agg.median_tpot).toBe(0.02);
    expect(agg.median_intvty).toBe(50);
    expect(agg.tput_per_gpu).toBe(r.total_token_throughput / 8);
    expect(Object.keys(agg).slice(0, 12)).toEqual([
      'hw',
      'conc',
      'image',
      'model',
      'infmax_model_prefix',
      'framework',
      'precision',
      'spec_decoding',
      'disagg',
      'recipe_fingerprint',
      'isl',
      'osl',
    ]);
  });

  it('formats the date as YYYYmmdd-HHMMSS in UTC', () => {
    expect(inferencexDate(new Date('1999-12-31T23:59:58.999Z'))).toBe('19991231-235958');
  });
});

describe('inferencexEnvFromVariables', () => {
  const vars = {
    RUNNER_TYPE: 'b200',
    FRAMEWORK: 'sglang',
    PRECISION: 'fp4',
    SPEC_DECODING: 'mtp',
    ISL: '8192',
    OSL: '1024',
    DISAGG: 'False',
    MODEL_PREFIX: 'dsr1',
    IMAGE: 'img',
    TP: '8',
    EP_SIZE: '8',
    DP_ATTENTION: 'true',
    PCP_SIZE: '2',
  };

  it('reads the variables process_result.py reads', () => {
    const env = inferencexEnvFromVariables(vars);
    expect(env).toMatchObject({
      hw: 'b200',
      isl: 8192,
      disagg: false,
      isMultinode: false,
      tp: 8,
      pcpSize: 2,
    });
    expect(env.dpAttention).toBe('true');
    const r = toInferencexAggregateRow(raw({ total_token_throughput: 1600, output_throughput: 800 }), env);
    expect(r.tput_per_gpu).toBe(100);
  });

  it('names missing base variables and rejects non-integers', () => {
    const { IMAGE: _, OSL: __, ...partial } = vars;
    expect(() => inferencexEnvFromVariables(partial)).toThrow(
      'Missing required environment variables: OSL, IMAGE',
    );
    expect(() => inferencexEnvFromVariables({ ...vars, TP: 'eight' })).toThrow(
      "TP must be an integer, got 'eight'",
    );
  });
});
