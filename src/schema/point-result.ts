import * as z from 'zod';
import { AgenticMetricsSchema } from './agentic-metrics.ts';
import { CONFIG_BOUNDS } from './master-config.ts';
import { ErrorCategorySchema } from './request-record.ts';
import { type OfKind, type Workload, type WorkloadKind, WorkloadSchema } from './workload.ts';

/**
 * `result.json`: every metric of one benchmark point (client-metrics-spec §4.2–4.3), produced by the
 * client and metrics layers and read by store, analysis and web. Null always means "not measured"
 * (no successful request, no usage from the server, …); a measured zero is a real zero.
 */

export const POINT_RESULT_SCHEMA_VERSION = 2;

/**
 * The largest point infx will run. Past these a value is a typo or an expansion gone wrong (a `conc-end`
 * of 10¹² reached `infx bench` and began building 10¹³ prompts), not a benchmark: `infx bench` refuses it
 * before building anything. concurrency and isl/osl are config validation's CONFIG_BOUNDS
 * (schema/master-config.ts: maxConcurrency, maxSeqLen), so a config that validates can run.
 * - concurrency: 100,000 streams (one connection each);
 * - isl, osl: 10⁷ tokens, above any model's context window;
 * - numPrompts, warmup: a million requests (10 × the largest concurrency, the default);
 * - promptTokens: numPrompts × isl, the prompt text to build and hold (2³² tokens is ~16 GB of text).
 */
export const POINT_LIMITS = {
  concurrency: CONFIG_BOUNDS.maxConcurrency,
  isl: CONFIG_BOUNDS.maxSeqLen,
  osl: CONFIG_BOUNDS.maxSeqLen,
  numPrompts: 1_000_000,
  warmup: 1_000_000,
  promptTokens: 2 ** 32,
} as const;

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

/**
 * How far the engine fell behind its own schedule while the point was measured (simulated engines report
 * it; see `infx sim serve`). Wall milliseconds: they are about this machine, not about the simulated GPU.
 */
export const EngineLagSchema = z.strictObject({
  /** Engine steps (and other timed events: KV transfers, scheduled arrivals) in the measured phase. */
  steps: z.int().nonnegative(),
  /** Steps whose tokens went out later than their due wall time by more than the engine's tolerance. */
  missedDeadlines: z.int().nonnegative(),
  /** Wall ms the engine's schedule slipped (steps started late because the host was busy). */
  behindMs: z.number().nonnegative(),
  /** Lockstep: times the engine held its clock for a request the client still owed it, and the wall ms. */
  lockstepWaits: z.int().nonnegative(),
  lockstepWaitMs: z.number().nonnegative(),
  /** Lockstep waits that ran out: the engine went on without the request, so client delay became engine time. */
  lockstepTimeouts: z.int().nonnegative(),
});

/**
 * What served the point, and which clock its figures are on. `simulated`: a server that said it is infx's
 * simulated engine (or scripted test server) and its version; `real`: any other server. With `clock:
 * engine` every latency and rate comes from the engine's own timestamps (the simulated engine stamps
 * each chunk), so they do not depend on this machine's load; `wall` is the client's monotonic clock.
 */
export type EngineLag = z.infer<typeof EngineLagSchema>;

export const EngineInfoSchema = z.strictObject({
  kind: z.enum(['simulated', 'real']),
  /** The simulator's version (infx version and performance-model revision); null for a real engine. */
  simulator: z.string().nullable(),
  /** Speed-up the server announced: simulated ms per wall ms. */
  timeScale: z.number().positive().nullable(),
  clock: z.enum(['engine', 'wall']),
  /** The engine held its clock while the client owed it a request (closed-loop turnaround cost no time). */
  lockstep: z.boolean(),
  lag: EngineLagSchema.nullable(),
  /** The engine fell behind beyond the documented threshold: the point is not valid. */
  engineLimited: z.boolean(),
  reasons: z.array(z.string()),
});
export type EngineInfo = z.infer<typeof EngineInfoSchema>;

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
  }),
  engine: EngineInfoSchema,
  /** What the point ran, by kind (schema/workload.ts). */
  workload: WorkloadSchema,
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
    /**
     * Measured window on the clock of the figures (`engine.clock`): after warmup, until the last request
     * finished (drain tail included). Engine clock: the engine's ms; wall clock: ms from the clock origin.
     */
    startMs: z.number(),
    endMs: z.number(),
    durationS: z.number(),
    /** The same window as the client saw it on its own clock (ms from the clock origin), and its length. */
    wallStartMs: z.number(),
    wallEndMs: z.number(),
    wallDurationS: z.number(),
    /** Real wall-clock times of the window (Unix ms). */
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
    /**
     * Successful benchmark requests whose server usage failed the client's check (requests.jsonl
     * `usageFlag`): their counts are the client's. The gate fails above maxFailureRate of scheduled.
     * Absent in results written before the check existed.
     */
    usageFlagged: z.int().nonnegative().optional(),
  }),
  tokens: z.strictObject({
    totalInput: z.int().nonnegative(),
    totalOutput: z.int().nonnegative(),
    /** Where the counts came from: server usage for all requests, client re-tokenization, or both. */
    source: z.enum(['server', 'client', 'mixed', 'none']),
    /** Requests whose client-side count differs from the server's usage. */
    mismatch: z.strictObject({ input: z.int().nonnegative(), output: z.int().nonnegative() }),
    /**
     * Successful requests whose server prompt_tokens / completion_tokens was rejected by the usage check
     * (the client's count used instead). Absent in results written before the check existed.
     */
    flagged: z.strictObject({ input: z.int().nonnegative(), output: z.int().nonnegative() }).optional(),
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
  /**
   * Figures on the engine clock: the same metrics from the client's wall clock (wall ms × time scale,
   * so comparable), kept to show how far this machine's timing was from the engine's. Null otherwise.
   */
  wallClock: WindowMetricsSchema.nullable(),
  client: ClientHealthSchema,
  gate: z.strictObject({
    maxFailureRate: z.number(),
    passed: z.boolean(),
    reason: z.string().nullable(),
  }),
  /**
   * Agentic-coding points only: the AgentX metrics (client-metrics-spec §4.4), the reference's figures for
   * a replay. The fields above hold the same records seen as for any point (benchmark phase).
   */
  agentic: AgenticMetricsSchema.optional(),
  /**
   * Gate passed, and neither the client nor the engine was the bottleneck; for an agentic point also the
   * reference's `submission_valid`.
   */
  valid: z.boolean(),
});
export type PointResult = z.infer<typeof PointResultSchema>;
/** A result of a workload of kind K: what that kind's aggregator returns. */
export type PointResultOf<K extends WorkloadKind> = Omit<PointResult, 'workload'> & {
  workload: OfKind<Workload, K>;
};
