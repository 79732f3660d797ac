import { INFERENCEX_LATENCY_METRICS, type InferencexRawResult } from '../schema/inferencex-result.ts';
import type { PointResultOf, Stats } from '../schema/point-result.ts';
import type { RequestRecord } from '../schema/request-record.ts';
import { ENV_VAR, type InferencexAggregateEnv, InferencexAggregateError } from './inferencex-env.ts';
import { benchmarkRecords, outcomeOf, tokensOf } from './records.ts';

export {
  type InferencexAggregateEnv,
  InferencexAggregateError,
  inferencexEnvFromVariables,
} from './inferencex-env.ts';

/** What the raw file carries that a PointResult does not. */
export interface InferencexRawMeta {
  /** The reference's backend name: 'vllm', 'openai', 'openai-chat', … */
  backend: string;
  modelId: string;
  tokenizerId: string;
  /** Defaults to 1, the only value the reference's CI uses. */
  bestOf?: number;
  /** Run date; defaults to the result's createdAt. */
  date?: Date;
  /** `--metadata KEY=VALUE` pairs, written at the top level as the reference does. */
  metadata?: Readonly<Record<string, string>>;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** "%Y%m%d-%H%M%S". The reference prints local time; infx prints UTC so a file does not depend on TZ. */
export function inferencexDate(d: Date): string {
  return (
    `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
  );
}

const STAT_OF = {
  mean: 'mean',
  median: 'median',
  std: 'std',
  p90: 'p90',
  p99: 'p99',
  'p99.9': 'p99.9',
} as const satisfies Record<string, keyof Stats>;

const LATENCY_OF = { ttft: 'ttftMs', tpot: 'tpotMs', itl: 'itlMs', e2el: 'e2elMs' } as const;

/**
 * The reference client's raw result (spec §7.1) for one infx point, so the reference's processors and
 * dashboard can consume infx runs unchanged.
 *
 * infx says null for "not measured"; the reference wrote 0 there (NumPy over an empty list replaced by
 * [0]), and its processors expect numbers, so every null becomes 0 here. Per-request lengths use the same
 * token counts as the PointResult (server usage, else the client's count), so Σ input_lens over
 * successes equals total_input_tokens; cancelled requests, like failures, have output length 0.
 */
export function toInferencexRaw(
  result: PointResultOf<'fixed-seq-len'>,
  records: readonly RequestRecord[],
  meta: InferencexRawMeta,
): InferencexRawResult {
  const orZero = (v: number | null): number => v ?? 0;
  const bench = benchmarkRecords(records);
  const raw: Record<string, unknown> = {
    date: inferencexDate(meta.date ?? new Date(result.createdAt)),
    backend: meta.backend,
    model_id: meta.modelId,
    tokenizer_id: meta.tokenizerId,
    best_of: meta.bestOf ?? 1,
    num_prompts: result.workload.numPrompts,
    ...meta.metadata,
    request_rate: result.load.requestRate,
    burstiness: result.load.burstiness,
    max_concurrency: result.load.concurrency,
    duration: result.timing.durationS,
    benchmark_start_time_unix: result.timing.startUnixMs / 1000,
    benchmark_end_time_unix: result.timing.endUnixMs / 1000,
    completed: result.counts.completed,
    total_input_tokens: result.tokens.totalInput,
    total_output_tokens: result.tokens.totalOutput,
    request_throughput: orZero(result.throughput.requestsPerS),
    'request_goodput:': null,
    output_throughput: orZero(result.throughput.outputTokensPerS),
    total_token_throughput: orZero(result.throughput.totalTokensPerS),
    input_lens: bench.map((r) => tokensOf(r).input),
    output_lens: bench.map((r) => (outcomeOf(r) === 'completed' ? tokensOf(r).output : 0)),
  };
  for (const m of INFERENCEX_LATENCY_METRICS) {
    const stats = result.latency[LATENCY_OF[m]];
    for (const [s, field] of Object.entries(STAT_OF)) {
      raw[`${s}_${m}_ms`] = orZero(stats[field]);
    }
  }
  return raw as InferencexRawResult;
}

export type InferencexAggregateValue = string | number | boolean | { name: string; version: string };
export type InferencexAggregateRow = Record<string, InferencexAggregateValue>;

function fail(message: string): never {
  throw new InferencexAggregateError(message);
}

function requireVars(env: InferencexAggregateEnv, fields: readonly (keyof InferencexAggregateEnv)[]): void {
  const missing = fields.filter((f) => env[f] === undefined).map((f) => ENV_VAR[f]);
  if (missing.length > 0) fail(`Missing required environment variables: ${missing.join(', ')}`);
}

/** ROUTER_METADATA: absent, "" or "null" mean none; otherwise exactly {name, version}, both non-empty. */
function routerOf(text: string | undefined): { name: string; version: string } | null {
  if (text === undefined || text === '' || text === 'null') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('ROUTER_METADATA must contain valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    fail("ROUTER_METADATA must contain exactly 'name' and 'version'");
  }
  const keys = Object.keys(parsed).sort();
  if (keys.length !== 2 || keys[0] !== 'name' || keys[1] !== 'version') {
    fail("ROUTER_METADATA must contain exactly 'name' and 'version'");
  }
  const { name, version } = parsed as Record<string, unknown>;
  if (typeof name !== 'string' || !name || typeof version !== 'string' || !version) {
    fail('ROUTER_METADATA name and version must be non-empty strings');
  }
  return { name, version };
}

/** Python's float() on a JSON value: numbers and numeric strings; anything else is an error here. */
function toFloat(key: string, v: unknown): number {
  const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(x)) fail(`raw result field '${key}' is not a number: ${JSON.stringify(v)}`);
  return x;
}

function gpuFields(raw: InferencexRawResult, env: InferencexAggregateEnv): InferencexAggregateRow {
  const total = toFloat('total_token_throughput', raw.total_token_throughput);
  const output = toFloat('output_throughput', raw.output_throughput);
  if (!env.isMultinode) {
    if (env.disagg) fail('Disaggregated mode requires multinode setup.');
    requireVars(env, ['tp', 'ep', 'dpAttention']);
    const tp = env.tp!;
    const [pp, dcp, pcp] = [env.pp ?? 1, env.dcpSize ?? 1, env.pcpSize ?? 1];
    if (pp <= 0 || dcp <= 0 || pcp <= 0) fail('PP_SIZE, DCP_SIZE, and PCP_SIZE must be positive integers.');
    // The reference divides by zero here; infx says what is wrong instead.
    if (tp <= 0) fail('TP must be a positive integer.');
    // DCP shards the KV cache inside the TP group and adds no GPUs; EP and DP-attention reuse the TP ranks.
    const gpus = tp * pp * pcp;
    return {
      is_multinode: false,
      tp,
      pp,
      dcp_size: dcp,
      pcp_size: pcp,
      ep: env.ep!,
      dp_attention: env.dpAttention!,
      tput_per_gpu: total / gpus,
      output_tput_per_gpu: output / gpus,
      input_tput_per_gpu: (total - output) / gpus,
    };
  }
  requireVars(env, [
    'prefillGpus',
    'decodeGpus',
    'prefillNumWorkers',
    'prefillTp',
    'prefillEp',
    'prefillDpAttention',
    'decodeNumWorkers',
    'decodeTp',
    'decodeEp',
    'decodeDpAttention',
  ]);
  const prefillHw = env.prefillHardware ?? '';
  const decodeHw = env.decodeHardware ?? '';
  if (Boolean(prefillHw) !== Boolean(decodeHw)) {
    fail('PREFILL_HARDWARE and DECODE_HARDWARE must be specified together.');
  }
  const p = { pp: env.prefillPp ?? 1, dcp: env.prefillDcpSize ?? 1, pcp: env.prefillPcpSize ?? 1 };
  const d = { pp: env.decodePp ?? 1, dcp: env.decodeDcpSize ?? 1, pcp: env.decodePcpSize ?? 1 };
  if ([p.pp, p.dcp, p.pcp, d.pp, d.dcp, d.pcp].some((v) => v <= 0)) {
    fail('Multinode PP, DCP, and PCP sizes must be positive integers.');
  }
  const prefillGpus = env.prefillGpus!;
  const decodeGpus = env.decodeGpus!;
  const totalGpus = prefillGpus + decodeGpus;
  if (totalGpus <= 0) fail('Multinode results require at least one GPU.');
  if (prefillGpus <= 0) fail('Multinode results require at least one prefill GPU.');
  // No decode GPUs means an aggregated multi-node deployment: output is spread over all GPUs and the
  // decode parallelism is reported as absent (TP/EP 0, PP/DCP/PCP 1).
  const hasDecode = decodeGpus > 0;
  const row: InferencexAggregateRow = {
    is_multinode: true,
    prefill_tp: env.prefillTp!,
    prefill_pp: p.pp,
    prefill_dcp_size: p.dcp,
    prefill_pcp_size: p.pcp,
    prefill_ep: env.prefillEp!,
    prefill_dp_attention: env.prefillDpAttention!,
    prefill_num_workers: env.prefillNumWorkers!,
    decode_tp: hasDecode ? env.decodeTp! : 0,
    decode_pp: hasDecode ? d.pp : 1,
    decode_dcp_size: hasDecode ? d.dcp : 1,
    decode_pcp_size: hasDecode ? d.pcp : 1,
    decode_ep: hasDecode ? env.decodeEp! : 0,
    decode_dp_attention: env.decodeDpAttention!,
    decode_num_workers: env.decodeNumWorkers!,
    num_prefill_gpu: prefillGpus,
    num_decode_gpu: decodeGpus,
    tput_per_gpu: total / totalGpus,
    output_tput_per_gpu: output / (hasDecode ? decodeGpus : totalGpus),
    input_tput_per_gpu: (total - output) / prefillGpus,
  };
  if (prefillHw) {
    row.prefill_hw = prefillHw;
    row.decode_hw = decodeHw;
  }
  return row;
}

/**
 * The reference's `process_result.py` (spec §4.3, §7.2): one aggregate row from a raw result and the
 * job's environment. Keys come out in the reference's order. Every raw key ending in "ms" is copied in
 * seconds without its "_ms"; every key containing "tpot" also yields an "intvty" key = 1000 / value(ms),
 * so pXX_intvty is the slow-tail interactivity and std_intvty is a reciprocal kept only for parity.
 * Raw throughputs are not copied, only their per-GPU values. Errors are InferencexAggregateError with
 * the reference's messages.
 *
 * A TPOT of 0, where the reference crashes on 1000/0: a zero std (identical TPOTs, as a deterministic
 * engine gives, or a single request) is a real measurement of a key that means nothing as a
 * reciprocal, so its intvty key is left out; any other zero TPOT means TPOT was not measured (the raw
 * file's 0 for null), so there is no interactivity to report and the row is refused.
 */
export function toInferencexAggregateRow(
  raw: InferencexRawResult,
  env: InferencexAggregateEnv,
): InferencexAggregateRow {
  if (raw.max_concurrency === null || raw.max_concurrency === undefined) {
    fail('raw result has no max_concurrency (the reference needs --max-concurrency)');
  }
  const row: InferencexAggregateRow = {
    hw: env.hw,
    conc: Math.trunc(toFloat('max_concurrency', raw.max_concurrency)),
    image: env.image,
    model: raw.model_id,
    infmax_model_prefix: env.modelPrefix,
    framework: env.framework,
    precision: env.precision,
    spec_decoding: env.specDecoding,
    disagg: env.disagg,
    recipe_fingerprint: env.recipeFingerprint ?? '',
    isl: env.isl,
    osl: env.osl,
  };
  const router = routerOf(env.routerMetadata);
  if (router) row.router = router;
  if (env.kvP2pTransfer) row.kv_p2p_transfer = env.kvP2pTransfer;
  Object.assign(row, gpuFields(raw, env));

  for (const [key, value] of Object.entries(raw)) {
    if (key.endsWith('ms')) row[key.replaceAll('_ms', '')] = toFloat(key, value) / 1000;
    if (key.includes('tpot')) {
      const ms = toFloat(key, value);
      if (ms === 0 && key.startsWith('std_')) continue;
      if (ms === 0)
        fail(`raw result field '${key}' is 0: TPOT was not measured, so there is no interactivity`);
      row[key.replaceAll('_ms', '').replaceAll('tpot', 'intvty')] = 1000 / ms;
    }
  }
  return row;
}
