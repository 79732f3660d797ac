import * as z from 'zod';
import { ErrorCategorySchema } from './request-record.ts';

/**
 * `result.json`: every metric of one benchmark point (client-metrics-spec §4.2–4.3), produced by the
 * client and metrics layers and read by store, analysis and web. Null always means "not measured"
 * (no successful request, no usage from the server, …); a measured zero is a real zero.
 */

export const POINT_RESULT_SCHEMA_VERSION = 1;

/** Percentiles reported for every latency distribution. */
export const PERCENTILES = [50, 75, 90, 95, 99, 99.9] as const;

const num = z.number().nullable();

/** Summary of one distribution. `std` is the population standard deviation, as NumPy's default. */
export const StatsSchema = z.strictObject({
  count: z.int().nonnegative(),
  mean: num,
  std: num,
  min: num,
  max: num,
  median: num,
  p75: num,
  p90: num,
  p95: num,
  p99: num,
  'p99.9': num,
});
export type Stats = z.infer<typeof StatsSchema>;

/** Interactivity (tokens/s/user) = 1000 / TPOT(ms) per statistic; the pXX of it is the slow tail. */
export const InteractivitySchema = z.strictObject({
  mean: num,
  median: num,
  p75: num,
  p90: num,
  p95: num,
  p99: num,
  'p99.9': num,
});

export const LatencySetSchema = z.strictObject({
  /** Time to first token (any channel), from the request being sent. */
  ttftMs: StatsSchema,
  /** Time per output token after the first, per request: (E2EL − TTFT) / (output tokens − 1). */
  tpotMs: StatsSchema,
  /** Gaps between token-carrying chunks, all requests pooled. */
  itlMs: StatsSchema,
  /** Sent → last token. */
  e2elMs: StatsSchema,
});

export const QueueInclusiveSchema = z.strictObject({
  /** Scheduled → sent: time a request waited in the client for a slot or for the socket. */
  queueMs: StatsSchema,
  /** Scheduled → first token. */
  ttftMs: StatsSchema,
  /** Scheduled → last token. */
  e2elMs: StatsSchema,
});

export const ThroughputSchema = z.strictObject({
  requestsPerS: num,
  inputTokensPerS: num,
  outputTokensPerS: num,
  totalTokensPerS: num,
  /** Per allocated GPU: total over all GPUs, output over decode GPUs, input over prefill GPUs. */
  perGpu: z.strictObject({
    total: num,
    output: num,
    input: num,
  }),
});

export const WindowMetricsSchema = z.strictObject({
  startMs: z.number(),
  endMs: z.number(),
  durationS: z.number(),
  completed: z.int().nonnegative(),
  throughput: ThroughputSchema,
  latency: LatencySetSchema,
  interactivity: InteractivitySchema,
});

export const ClientHealthSchema = z.strictObject({
  workers: z.int().positive(),
  /** Event-loop delay of the busiest client thread while measuring. */
  eventLoopDelayMs: z.strictObject({ p50: num, p99: num, max: num }),
  /** Event-loop utilisation (0–1) of the busiest client thread. */
  eventLoopUtilization: num,
  /** Client process CPU time over the measured window, as % of one core. */
  cpuPercent: num,
  /** How late requests went out relative to when they were due (sent − scheduled, ms). */
  sendLagMs: z.strictObject({ p50: num, p99: num, max: num }),
  /** The client, not the server, set the pace: the point is not valid. */
  clientLimited: z.boolean(),
  reasons: z.array(z.string()),
});

export const PointResultSchema = z.strictObject({
  schemaVersion: z.literal(POINT_RESULT_SCHEMA_VERSION),
  kind: z.literal('point-result'),
  tool: z.strictObject({ name: z.literal('infx'), version: z.string() }),
  createdAt: z.iso.datetime(),
  seed: z.int(),
  target: z.strictObject({
    baseUrl: z.string(),
    model: z.string(),
    endpoint: z.enum(['chat', 'completions']),
    /**
     * Speed-up the server reported (simulated engines). Record times, latencies and rates are then in
     * simulated time (wall time × timeScale); client-health figures stay in wall time.
     */
    timeScale: z.number().positive().nullable(),
  }),
  workload: z.strictObject({
    kind: z.literal('fixed-seq-len'),
    isl: z.int().positive(),
    osl: z.int().positive(),
    randomRangeRatio: z.number().min(0).max(1),
    numPrompts: z.int().positive(),
    warmup: z.int().nonnegative(),
    ignoreEos: z.boolean(),
    tokenizer: z.strictObject({
      kind: z.enum(['builtin', 'huggingface']),
      name: z.string(),
      path: z.string().nullable(),
    }),
    chatTemplate: z.boolean(),
  }),
  load: z.strictObject({
    concurrency: z.int().positive(),
    requestRate: z.union([z.number().positive(), z.literal('inf')]),
    burstiness: z.number().positive(),
  }),
  gpus: z.strictObject({
    total: z.int().positive().nullable(),
    prefill: z.int().positive().nullable(),
    decode: z.int().positive().nullable(),
  }),
  timing: z.strictObject({
    /** Wall-clock time (Unix ms) at the monotonic clock origin of the records. */
    clockOriginUnixMs: z.number(),
    /** Measured window: after warmup, until the last request finished (drain tail included). */
    startMs: z.number(),
    endMs: z.number(),
    durationS: z.number(),
    startUnixMs: z.number(),
    endUnixMs: z.number(),
  }),
  counts: z.strictObject({
    scheduled: z.int().nonnegative(),
    completed: z.int().nonnegative(),
    failed: z.int().nonnegative(),
    cancelled: z.int().nonnegative(),
    failureRate: z.number(),
    warmupCompleted: z.int().nonnegative(),
    warmupFailed: z.int().nonnegative(),
    /** Successful requests that produced fewer tokens than asked for although ignore_eos was on. */
    shortOutput: z.int().nonnegative(),
  }),
  tokens: z.strictObject({
    totalInput: z.int().nonnegative(),
    totalOutput: z.int().nonnegative(),
    /** Where the counts came from: server usage for all requests, client re-tokenization, or both. */
    source: z.enum(['server', 'client', 'mixed', 'none']),
    /** Requests whose client-side count differs from the server's usage. */
    mismatch: z.strictObject({ input: z.int().nonnegative(), output: z.int().nonnegative() }),
  }),
  errors: z.strictObject({
    byCategory: z.partialRecord(ErrorCategorySchema, z.int().positive()),
    warmupByCategory: z.partialRecord(ErrorCategorySchema, z.int().positive()),
    /** Up to a few messages per category, to tell what went wrong without opening requests.jsonl. */
    samples: z.array(z.strictObject({ category: ErrorCategorySchema, message: z.string() })),
  }),
  throughput: ThroughputSchema,
  /** Server-view latencies: from the moment the request was sent. */
  latency: LatencySetSchema,
  queueInclusive: QueueInclusiveSchema,
  interactivity: InteractivitySchema,
  /** Same metrics over the window where all CONC slots were busy (ramp-up and drain tail cut off). */
  steadyState: WindowMetricsSchema.nullable(),
  client: ClientHealthSchema,
  gate: z.strictObject({
    maxFailureRate: z.number(),
    passed: z.boolean(),
    reason: z.string().nullable(),
  }),
  /** Gate passed and the client was not the bottleneck. */
  valid: z.boolean(),
});
export type PointResult = z.infer<typeof PointResultSchema>;
