import * as z from 'zod';

/**
 * The agentic metrics of a point (client-metrics-spec §4.4 with the addendum's §1 corrections), and the
 * reference's AgentX aggregate file (§7.6) that `--format inferencex` writes so its processors read infx
 * runs unchanged. Null means "not measured" (no successful profiling record, no timestamps), never 0.
 */

const num = z.number().nullable();

/** The statistics the reference reports for every agentic distribution (§4.4), plus the sample count. */
export const AgenticStatsSchema = z.strictObject({
  count: z.int().nonnegative(),
  mean: num,
  p50: num,
  p75: num,
  p90: num,
  p95: num,
  /** Population standard deviation; 0 for one value. */
  std: num,
});
export type AgenticStats = z.infer<typeof AgenticStatsSchema>;

/**
 * Interactivity, tokens/s/user: each statistic s is `1000 / s(per-request ms per token)`, so p90 is the
 * slow tail (p90 ≤ p50) and `mean` is the reciprocal of the mean, not the mean of reciprocals. `std` is
 * the population std of the per-request reciprocals (§4.4).
 */
export const AgenticInteractivitySchema = AgenticStatsSchema.omit({ count: true });
export type AgenticInteractivity = z.infer<typeof AgenticInteractivitySchema>;

export const AgenticAccountingSchema = z.strictObject({
  /** Every record of the point, warmup and failures included. */
  recordsTotal: z.int().nonnegative(),
  /** Kept: profiling phase and no error (cancelled records are errors here, as in the reference). */
  recordsProfiled: z.int().nonnegative(),
  /** total − kept; not warmup + error, since a warmup record can also be an error. */
  recordsDroppedTotal: z.int().nonnegative(),
  recordsWarmupDropped: z.int().nonnegative(),
  recordsErrorDropped: z.int().nonnegative(),
  /** Of the error-dropped profiling records, those the client cut at the end of the run (counted apart). */
  recordsCancelled: z.int().nonnegative(),
  /** Error-dropped records by category (infx's categories, schema/request-record.ts). */
  errorCategories: z.record(z.string(), z.int().positive()),
});
export type AgenticAccounting = z.infer<typeof AgenticAccountingSchema>;

export const AgenticThroughputSchema = z.strictObject({
  /** First start to last end of the kept records, s (not the configured duration). */
  durationS: z.number().positive(),
  inputTokensPerS: z.number(),
  outputTokensPerS: z.number(),
  totalTokensPerS: z.number(),
  /** Every allocated GPU (prefill and decode together) divides all three (§4.4, unlike fixed-seq-len). */
  gpus: z.int().positive().nullable(),
  perGpu: z.strictObject({ total: num, output: num, input: num }),
});
export type AgenticThroughput = z.infer<typeof AgenticThroughputSchema>;

/** Completions per 1-second window from the first completion (§4.4). */
export const AgenticQpsSchema = z.strictObject({
  windowSeconds: z.literal(1),
  /** Number of whole windows; 0 when the completions span less than one second. */
  samples: z.int().nonnegative(),
  /** With no whole window: completions / span. */
  mean: z.number(),
  p50: num,
  p75: num,
  p90: num,
  p95: num,
  std: num,
});
export type AgenticQps = z.infer<typeof AgenticQpsSchema>;

/** AIPerf's `theoretical_prefix_cache_hit` aggregate over successful profiling records (addendum §1.4). */
export const TheoreticalPrefixCacheHitSchema = z.strictObject({
  unit: z.literal('%'),
  /** 100 · sum / count. */
  avg: z.number(),
  /** Σ hit blocks. */
  sum: z.int().nonnegative(),
  /** Σ blocks. */
  count: z.int().positive(),
});
export type TheoreticalPrefixCacheHit = z.infer<typeof TheoreticalPrefixCacheHitSchema>;

export const AgenticHealthSchema = z.strictObject({
  /** Profiling requests the server refused as over its context (each ended its session). */
  contextOverflowCount: z.int().nonnegative(),
  /** contextOverflowCount / profiling requests; null with no profiling request. */
  contextOverflowRate: num,
  /** Successful profiling requests whose output length is not the trace's recorded one. */
  oslMismatchCount: z.int().nonnegative(),
  /** Requests the replay could not dispatch on schedule (reported by the replay). */
  creditDropCount: z.int().nonnegative(),
  /** Profiling requests cut at the end of the run (not errors of the server). */
  cancelledCount: z.int().nonnegative(),
  branchStats: z.strictObject({
    /** Subagent and flat-chain conversations that sent at least one profiling request. */
    childrenSpawned: z.int().nonnegative(),
    /** Of those, the ones with a failed profiling request (cancellations aside). */
    childrenErrored: z.int().nonnegative(),
    /** Of those, the ones cut at the end of the run. */
    childrenTruncated: z.int().nonnegative(),
  }),
});
export type AgenticHealth = z.infer<typeof AgenticHealthSchema>;

/** AIPerf agentx-v1.0.4: TTFT/ITL observations must reach through 98% of the profiling phase (§2.8). */
export const AgenticCoverageSchema = z.strictObject({
  phaseStartMs: z.number(),
  phaseEndMs: z.number(),
  /** The latest first-token or last-token time of a kept record; null with none. */
  lastObservationMs: num,
  /** (lastObservation − phaseStart) / (phaseEnd − phaseStart), clamped to [0, 1]; null with none. */
  fraction: num,
  required: z.number(),
  passed: z.boolean(),
});
export type AgenticCoverage = z.infer<typeof AgenticCoverageSchema>;

/** validate_agentic_result's gate: errors / completed ≤ threshold, inclusive (§2.10). */
export const AgenticErrorGateSchema = z.strictObject({
  errors: z.int().nonnegative(),
  /** Successful plus failed profiling requests (cancellations are neither). */
  completed: z.int().nonnegative(),
  threshold: z.number(),
  passed: z.boolean(),
  /** The reference's message when it fails; null when it passes. */
  message: z.string().nullable(),
});
export type AgenticErrorGate = z.infer<typeof AgenticErrorGateSchema>;

export const SUBMISSION_INVALID_REASONS = [
  'insufficient_profile_metric_coverage',
  'context_overflow_rate_exceeded',
  'run_cancelled',
  'error_rate_exceeded',
  'duration_below_submission_minimum',
  'no_successful_requests',
] as const;
export const SubmissionInvalidReasonSchema = z.enum(SUBMISSION_INVALID_REASONS);
export type SubmissionInvalidReason = z.infer<typeof SubmissionInvalidReasonSchema>;

/** What the server's `/metrics` said over the profiling phase (§7.5); filled by the scraper, not here. */
export const InferencexAgenticServerMetricsSchema = z.strictObject({
  present: z.boolean(),
  adapter: z.string().nullable(),
  metric_count: z.int().nonnegative(),
  cache: z.strictObject({
    gpu_cache_hit_rate: num,
    cpu_cache_hit_rate: num,
    external_cache_hit_rate: num,
    overall_cache_hit_rate: num,
    prefix_cache_hits: num,
    prefix_cache_queries: num,
    external_prefix_cache_hits: num,
    external_prefix_cache_queries: num,
    cached_tokens_by_source: z.record(z.string(), z.number()).nullable(),
    frontend_cache_hit_rate: num,
    router_kv_hit_rate: num,
    router_shared_cache_hit_rate: num,
    frontend_cached_tokens: num,
    frontend_input_tokens: num,
  }),
  kv_cache: z.strictObject({
    gpu_usage_pct: num,
    gpu_total_tokens: num,
    cpu_usage_pct: num,
    cpu_used_tokens: num,
    cpu_total_tokens: num,
  }),
  kv_offload: z.strictObject({
    bytes_gpu_to_cpu: num,
    bytes_cpu_to_gpu: num,
    time_gpu_to_cpu: num,
    time_cpu_to_gpu: num,
    bandwidth_gpu_to_cpu_bytes_per_second: num,
    bandwidth_cpu_to_gpu_bytes_per_second: num,
  }),
  tokens: z.strictObject({
    prompt_total: num,
    generation_total: num,
    requests_completed: num,
    prompt_by_source: z.strictObject({
      gpu_cache_hit: num,
      cpu_or_external_cache_hit: num,
      computed: num,
      raw: num,
    }),
  }),
  sources: z.array(z.record(z.string(), z.unknown())),
});
export type InferencexAgenticServerMetricsBlock = z.infer<typeof InferencexAgenticServerMetricsSchema>;

/** The agentic block of a point result. Latencies are ms. */
export const AgenticMetricsSchema = z.strictObject({
  accounting: AgenticAccountingSchema,
  latency: z.strictObject({
    ttftMs: AgenticStatsSchema,
    /** Request latency: sent → last content token. */
    e2elMs: AgenticStatsSchema,
    /** Per request (E2EL − TTFT) / (OSL − 1): the reference's ITL, identical to TPOT. */
    itlMs: AgenticStatsSchema,
    tpotMs: AgenticStatsSchema,
    /** Per request (response end − first token) / (OSL − 1): robust to parsers that hide content chunks. */
    fullResponseItlMs: AgenticStatsSchema,
  }),
  interactivity: z.strictObject({
    /** Generation interactivity: 1 / ITL. */
    intvty: AgenticInteractivitySchema,
    /** The headline x-axis: OSL / E2EL per request, inverted per statistic. */
    e2eNormIntvty: AgenticInteractivitySchema,
    fullResponseIntvty: AgenticInteractivitySchema,
  }),
  tokens: z.strictObject({
    input: AgenticStatsSchema,
    outputActual: AgenticStatsSchema,
    outputExpected: AgenticStatsSchema,
    totalInput: z.int().nonnegative(),
    totalOutput: z.int().nonnegative(),
  }),
  /** Null without timestamps or with a span ≤ 0. */
  throughput: AgenticThroughputSchema.nullable(),
  /** Null with fewer than two completions or a span ≤ 0. */
  qps: AgenticQpsSchema.nullable(),
  cache: z.strictObject({
    theoreticalPrefixCacheHit: TheoreticalPrefixCacheHitSchema.nullable(),
    /** Σ hit / Σ blocks over successful profiling records; null with no blocks. */
    theoreticalCacheHitRate: num,
  }),
  health: AgenticHealthSchema,
  coverage: AgenticCoverageSchema,
  errorGate: AgenticErrorGateSchema,
  submissionValid: z.boolean(),
  submissionInvalidReasons: z.array(SubmissionInvalidReasonSchema),
  /**
   * What the server's `/metrics` said over the profiling phase (§7.5: cache hit rates by tier), in the
   * reference's shape; null when the server has no /metrics or it could not be read.
   */
  server: InferencexAgenticServerMetricsSchema.nullable(),
});
export type AgenticMetrics = z.infer<typeof AgenticMetricsSchema>;

// The reference's AgentX aggregate `<RESULT_FILENAME>.json` (§7.6), with its exact field names. Values are
// rounded as the reference rounds them (metrics/agentic/round.ts). A statistic block is `{}` where the
// reference writes one empty, so every key of a block is optional.

const statBlock = z.strictObject({
  mean: z.number().optional(),
  p50: z.number().optional(),
  p75: z.number().optional(),
  p90: z.number().optional(),
  p95: z.number().optional(),
  std: z.number().optional(),
});
export type InferencexAgenticStatBlock = z.infer<typeof statBlock>;

const tps = z.strictObject({ tokens_per_second: z.number() });
const nullNum = z.number().nullable();

export const InferencexAgenticRequestMetricsSchema = z.strictObject({
  qps: z.strictObject({
    window_seconds: z.literal(1).optional(),
    samples: z.int().nonnegative().optional(),
    mean: z.number().optional(),
    p50: z.number().optional(),
    p75: z.number().optional(),
    p90: z.number().optional(),
    p95: z.number().optional(),
    std: z.number().optional(),
  }),
  latency: z.strictObject({
    ttft: statBlock,
    e2el: statBlock,
    itl: statBlock,
    tpot: statBlock,
    intvty: statBlock,
    e2e_norm_intvty: statBlock,
    full_response_itl: statBlock,
    full_response_intvty: statBlock,
  }),
  tokens: z.strictObject({ input: statBlock, output_actual: statBlock, output_expected: statBlock }),
  throughput: z.union([
    z.strictObject({
      input: tps,
      output: tps,
      total: tps,
      duration_seconds: z.number(),
      per_gpu: z.strictObject({
        total_tput_tps: z.number(),
        output_tput_tps: z.number(),
        input_tput_tps: z.number(),
      }),
    }),
    z.strictObject({}),
  ]),
  cache: z.strictObject({ theoretical_cache_hit_rate: nullNum }),
});

export type InferencexAgenticServerMetrics = z.infer<typeof InferencexAgenticServerMetricsSchema>;

const count = z.int().nonnegative();
export const InferencexAgenticAggregateSchema = z.strictObject({
  hw: z.string(),
  conc: z.int().positive(),
  image: z.string(),
  recipe_fingerprint: z.string(),
  model: z.string(),
  infmax_model_prefix: z.string(),
  framework: z.string(),
  precision: z.string(),
  spec_decoding: z.string(),
  disagg: z.boolean(),
  scenario_type: z.literal('agentic-coding'),
  is_multinode: z.boolean(),
  tp: count,
  ep: count,
  dp_attention: z.string(),
  kv_offloading: z.enum(['none', 'dram']),
  kv_offload_backend: z.strictObject({ name: z.string(), version: z.string().optional() }).nullable(),
  allocated_cpu_dram_gb: z.number().nullable(),
  num_requests_total: count,
  num_requests_successful: count,
  request_accounting: z.strictObject({
    records_total: count,
    records_profiled: count,
    records_dropped_total: count,
    records_warmup_dropped: count,
    records_error_dropped: count,
    error_categories: z.record(z.string(), z.int().positive()),
  }),
  // Single node.
  pp: count.optional(),
  dcp_size: count.optional(),
  pcp_size: count.optional(),
  // Multi node.
  prefill_tp: count.optional(),
  prefill_pp: count.optional(),
  prefill_dcp_size: count.optional(),
  prefill_pcp_size: count.optional(),
  prefill_ep: count.optional(),
  prefill_dp_attention: z.string().optional(),
  prefill_num_workers: count.optional(),
  decode_tp: count.optional(),
  decode_pp: count.optional(),
  decode_dcp_size: count.optional(),
  decode_pcp_size: count.optional(),
  decode_ep: count.optional(),
  decode_dp_attention: z.string().optional(),
  decode_num_workers: count.optional(),
  num_prefill_gpu: count.optional(),
  num_decode_gpu: count.optional(),
  prefill_hw: z.string().optional(),
  decode_hw: z.string().optional(),
  router: z.strictObject({ name: z.string(), version: z.string() }).optional(),
  kv_p2p_transfer: z.string().optional(),
  dataset: z.record(z.string(), z.unknown()).optional(),
  request_metrics: InferencexAgenticRequestMetricsSchema,
  server_metrics: InferencexAgenticServerMetricsSchema,
  kv_cache_pool_tokens: nullNum,
  warnings: z.array(z.string()).optional(),
});
export type InferencexAgenticAggregate = z.infer<typeof InferencexAgenticAggregateSchema>;
