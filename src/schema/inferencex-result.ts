import * as z from 'zod';

/**
 * The reference client's raw fixed-seq-len result (`benchmark_serving.py --save-result`,
 * client-metrics-spec §7.1), with its exact field names, so the reference's processors
 * (process_result.py, aggregate_power.py) and dashboard ingest read what infx writes. Latencies are ms,
 * times Unix seconds. Where the reference had no measurement it wrote 0, so this schema has no nulls
 * except the goodput key (the key really ends in a colon) and an unset max concurrency.
 */

export const INFERENCEX_LATENCY_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export const INFERENCEX_LATENCY_STATS = ['mean', 'median', 'std', 'p90', 'p99', 'p99.9'] as const;
export type InferencexLatencyMetric = (typeof INFERENCEX_LATENCY_METRICS)[number];
export type InferencexLatencyStat = (typeof INFERENCEX_LATENCY_STATS)[number];
export type InferencexLatencyKey = `${InferencexLatencyStat}_${InferencexLatencyMetric}_ms`;

/** The latency keys in the order the reference writes them: metric by metric, then stat by stat. */
export const INFERENCEX_LATENCY_KEYS: readonly InferencexLatencyKey[] = INFERENCEX_LATENCY_METRICS.flatMap(
  (m) => INFERENCEX_LATENCY_STATS.map((s): InferencexLatencyKey => `${s}_${m}_ms`),
);

const latencyShape = Object.fromEntries(INFERENCEX_LATENCY_KEYS.map((k) => [k, z.number()])) as Record<
  InferencexLatencyKey,
  z.ZodNumber
>;

const count = z.int().nonnegative();

export const InferencexRawResultSchema = z
  .object({
    /** Local time of the run in the reference ("%Y%m%d-%H%M%S"); infx writes UTC. */
    date: z.string().regex(/^\d{8}-\d{6}$/, 'date must look like YYYYmmdd-HHMMSS'),
    backend: z.string(),
    model_id: z.string(),
    tokenizer_id: z.string(),
    best_of: z.int().positive(),
    num_prompts: z.int().positive(),
    request_rate: z.union([z.number().positive(), z.literal('inf')]),
    burstiness: z.number().positive(),
    max_concurrency: z.int().positive().nullable(),
    /** Seconds from the benchmark start to the last request finishing (drain tail included). */
    duration: z.number().nonnegative(),
    benchmark_start_time_unix: z.number(),
    benchmark_end_time_unix: z.number(),
    completed: count,
    total_input_tokens: count,
    total_output_tokens: count,
    request_throughput: z.number().nonnegative(),
    'request_goodput:': z.number().nullable(),
    output_throughput: z.number().nonnegative(),
    total_token_throughput: z.number().nonnegative(),
    /** Prompt length of every benchmark request, failures included, in dispatch order. */
    input_lens: z.array(count),
    /** Output length of every benchmark request; 0 for a failure. */
    output_lens: z.array(count),
    ...latencyShape,
    // Present only with --save-detailed.
    ttfts: z.array(z.number()).optional(),
    itls: z.array(z.array(z.number())).optional(),
    generated_texts: z.array(z.string()).optional(),
    errors: z.array(z.string()).optional(),
  })
  // `--metadata KEY=VALUE` pairs land at the top level as strings.
  .catchall(z.string());
export type InferencexRawResult = z.infer<typeof InferencexRawResultSchema>;
