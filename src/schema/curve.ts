import * as z from 'zod';
import { EngineInfoSchema } from './point-result.ts';

/**
 * What store hands to analysis: the identity of a curve (one serving deployment on one workload) and its
 * measured points. A config is what the dashboard draws as one line; a point is that config at one
 * concurrency in one run. Every key is non-null, so a natural key never duplicates on re-ingest
 * (dashboard-spec §8 pitfall 17).
 */

export const PoolSchema = z.strictObject({
  tp: z.int().nonnegative(),
  ep: z.int().nonnegative(),
  dpAttn: z.boolean(),
  pp: z.int().nonnegative(),
  dcp: z.int().nonnegative(),
  pcp: z.int().nonnegative(),
  /** Workers in the pool; 0 for a single-node config, whose one server is described by both pools. */
  workers: z.int().nonnegative(),
  gpus: z.int().nonnegative(),
});

export const ConfigIdentitySchema = z.strictObject({
  /** Model key: the row's model-prefix, e.g. dsr1. */
  model: z.string(),
  /** Base GPU key from the runner (suffixes and node index stripped), e.g. h200. */
  hardware: z.string(),
  framework: z.string(),
  precision: z.string(),
  specDecoding: z.string(),
  disagg: z.boolean(),
  multiNode: z.boolean(),
  prefill: PoolSchema,
  decode: PoolSchema,
  /** Workload: fixed-seq-len input/output lengths. */
  isl: z.int().positive(),
  osl: z.int().positive(),
});

/** The numbers a chart or a comparison needs from one point (all from its PointResult; null: not measured). */
export const CurveMetricsSchema = z.strictObject({
  tputPerGpu: z.number().nullable(),
  outputTputPerGpu: z.number().nullable(),
  inputTputPerGpu: z.number().nullable(),
  /** tok/s/user = 1000 / TPOT; median and tail (p90, p99: the slow users). */
  interactivity: z.strictObject({
    median: z.number().nullable(),
    p90: z.number().nullable(),
    p99: z.number().nullable(),
  }),
  ttftMs: z.strictObject({
    median: z.number().nullable(),
    p90: z.number().nullable(),
    p99: z.number().nullable(),
  }),
  e2elMs: z.strictObject({
    median: z.number().nullable(),
    p90: z.number().nullable(),
    p99: z.number().nullable(),
  }),
  /** Joules per output token over all GPUs, where power was measured. */
  joulesPerOutputToken: z.number().nullable(),
});

/**
 * What served a point: infx's simulated engine (or scripted test server) or a real engine, and the
 * simulator's version (null for a real engine, and for a simulated result stored by an infx older than
 * point-result schema 2, which did not record it). Simulated and real results of one deployment are two
 * curves: the config key of a simulated one ends in `|sim` (src/store/identity.ts), so they never merge.
 */
export const CurveEngineSchema = z.strictObject({
  kind: EngineInfoSchema.shape.kind,
  simulator: z.string().nullable(),
});

export const CurvePointSchema = z.strictObject({
  runId: z.string(),
  pointId: z.string(),
  attempt: z.int().positive(),
  configKey: z
    .string()
    .describe('canonical key of the config identity (stable across runs); simulated results end in |sim'),
  config: ConfigIdentitySchema,
  engine: CurveEngineSchema,
  conc: z.int().positive(),
  gpus: z.int().nonnegative(),
  image: z.string(),
  createdAt: z.string(),
  valid: z.boolean(),
  metrics: CurveMetricsSchema,
});

export type Pool = z.infer<typeof PoolSchema>;
export type ConfigIdentity = z.infer<typeof ConfigIdentitySchema>;
export type CurveMetrics = z.infer<typeof CurveMetricsSchema>;
export type CurvePoint = z.infer<typeof CurvePointSchema>;
export type CurveEngine = z.infer<typeof CurveEngineSchema>;
export type EngineKind = CurveEngine['kind'];
