import * as z from 'zod';
import { ConfigIdentitySchema, CurveEngineSchema } from './curve.ts';
import { RUN_STATUSES } from './store.ts';

/**
 * An agentic-coding point as the store hands it to the dashboard: its curve (`agentic_traces`, no lengths,
 * the KV offload measured) at one number of users, with the agentic figures charts plot (client-metrics
 * §4.4). Null: not measured. Interactivity p90 is the slow tail (p90 ≤ p50).
 */

export const AgenticConfigSchema = ConfigIdentitySchema.omit({ isl: true, osl: true }).extend({
  benchmarkType: z.literal('agentic_traces'),
  /** As the key writes it without `kv`: `none`, `dram`, `dram-hicache@1.2`. */
  kvOffload: z.string(),
});
export type AgenticConfig = z.infer<typeof AgenticConfigSchema>;

const num = z.number().nullable();

export const AgenticCurveMetricsSchema = z.strictObject({
  /** E2E-normalized interactivity (OSL / E2EL), tok/s/user: the headline x-axis is its p90. */
  e2eNormIntvty: z.strictObject({ p50: num, p90: num }),
  /** Generation interactivity (1 / ITL), tok/s/user. */
  intvtyP90: num,
  ttftP90Ms: num,
  /** Tokens/s per GPU over every allocated GPU (§4.4). */
  tputPerGpu: num,
  outputTputPerGpu: num,
  inputTputPerGpu: num,
  /** Fractions in [0, 1]: the runtime theoretical prefix-cache hit rate, and the server's scraped one. */
  theoreticalCacheHitRate: num,
  serverCacheHitRate: num,
  submissionValid: z.boolean().nullable(),
});
export type AgenticCurveMetrics = z.infer<typeof AgenticCurveMetricsSchema>;

export const AgenticCurvePointSchema = z.strictObject({
  runId: z.string(),
  pointId: z.string(),
  attempt: z.int().positive(),
  configKey: z.string(),
  config: AgenticConfigSchema,
  engine: CurveEngineSchema,
  /** Concurrent users (lanes: live trajectory trees), the reference's conc. */
  users: z.int().positive(),
  gpus: z.int().nonnegative(),
  image: z.string(),
  createdAt: z.string(),
  valid: z.boolean(),
  metrics: AgenticCurveMetricsSchema,
});
export type AgenticCurvePoint = z.infer<typeof AgenticCurvePointSchema>;

/** `GET /api/agentic-points`: a run's agentic points, or the newest per (config, users) of a status. */
export const AgenticPointsQuerySchema = z.strictObject({
  run: z.string().trim().min(1).max(500).optional(),
  /** Default official. */
  status: z.enum(RUN_STATUSES).optional(),
  model: z.string().trim().min(1).max(500).optional(),
});
export type AgenticPointsQuery = z.infer<typeof AgenticPointsQuerySchema>;

export const AgenticPointsResponseSchema = z.array(AgenticCurvePointSchema);
