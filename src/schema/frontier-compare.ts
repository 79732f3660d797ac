import * as z from 'zod';
import { AgenticConfigSchema } from './agentic-curve.ts';
import { CompareSideSchema, CurveSummarySchema } from './compare-report.ts';
import { ConfigIdentitySchema, CurveEngineSchema } from './curve.ts';

/**
 * `infx compare RUN --baseline RUN2 --against frontier --format json`: each config of the run against the
 * Pareto frontier of *all* the baseline's configs of the same model, precision, hardware and workload (input
 * and output lengths), served by the same kind of engine (simulated with simulated, real with real): "the
 * published curve". At the interactivity of each of the config's valid points, the frontier's throughput per
 * GPU is read by Steffen monotone interpolation between its knots, never extrapolated: a point outside the
 * frontier's interactivity range gets no frontier value and no gain. These are interpolation estimates on
 * the baseline's frontier, not measured matched-latency comparisons. Null: not measured, or not comparable.
 *
 * An agentic-coding config (AgentX replay) is compared with the frontier of the baseline's agentic configs of
 * its model, precision and hardware, whatever their KV offload, at matched generation interactivity p90
 * (1 / ITL, client-metrics §4.4): what user thread 000 compares its disaggregated AgentX points at.
 */

export const FRONTIER_COMPARE_SCHEMA_VERSION = 2;

const num = z.number().nullable();

/** What a frontier groups: configs with these equal (and the engine kind) share one published curve. */
export const FrontierGroupSchema = z.strictObject({
  model: z.string(),
  precision: z.string(),
  hardware: z.string(),
  workload: z.enum(['fixed_seq_len', 'agentic_traces']),
  /** Fixed-seq-len lengths; null for agentic traces (a replay has none). */
  isl: z.int().positive().nullable(),
  osl: z.int().positive().nullable(),
  engine: CurveEngineSchema.shape.kind,
});

/** The interactivity the points are matched at: the report's stat for fixed lengths, generation p90 for agentic. */
export const FrontierAxisSchema = z.strictObject({
  metric: z.enum(['interactivity', 'generation-interactivity']),
  stat: z.enum(['median', 'p90']),
});

/** One knot of the baseline's frontier: a valid baseline point no other valid point of the group beats. */
export const FrontierKnotSchema = z.strictObject({
  interactivity: z.number(),
  tputPerGpu: z.number(),
  /** The config (and concurrency) the knot comes from; the first when several points share it. */
  configKey: z.string(),
  label: z.string(),
  /** Concurrency; the users of an agentic point. */
  conc: z.int().positive(),
  runId: z.string(),
});

export const FrontierSchema = z.strictObject({
  /** The baseline configs of the group: every one of them, on the frontier or not. */
  configs: z.array(
    z.strictObject({
      configKey: z.string(),
      label: z.string(),
      points: z.int().nonnegative(),
      validPoints: z.int().nonnegative(),
      /** Its knots on the frontier; 0: the other configs beat it everywhere. */
      frontPoints: z.int().nonnegative(),
    }),
  ),
  knots: z.array(FrontierKnotSchema),
  /** Interactivity range of the frontier, tok/s/user; null: no knot. */
  interactivity: z.tuple([z.number(), z.number()]).nullable(),
  /** The largest throughput/GPU of any valid baseline point of the group, and whose it is. */
  maxTputPerGpu: num,
  maxConfigKey: z.string().nullable(),
});

export const FrontierPointSchema = z.strictObject({
  /** The run's measured point compared. */
  conc: z.int().positive(),
  runId: z.string(),
  interactivity: z.number(),
  tputPerGpu: z.number(),
  /**
   * ok: inside the frontier's interactivity range (an interpolation estimate, or a knot); outside-frontier:
   * beyond it on `side`, never extrapolated, no gain.
   */
  status: z.enum(['ok', 'outside-frontier']),
  side: z.enum(['below', 'above']).nullable(),
  /** The frontier's throughput/GPU at this interactivity; null when outside. */
  frontierTputPerGpu: num,
  /** Whether the interactivity is a knot of the frontier (a measured baseline point, no interpolation). */
  atKnot: z.boolean(),
  /** 100 · (run − frontier) / frontier, when ok and the frontier is above 0. */
  gainPct: num,
});

export const FrontierComparisonSchema = z.strictObject({
  configKey: z.string(),
  config: z.union([ConfigIdentitySchema, AgenticConfigSchema]),
  /** `dsr1 1k/1k h200 sglang fp8 1×tp4+3×tp4 disagg`, and ` (simulated)` for a simulated config. */
  label: z.string(),
  axis: FrontierAxisSchema,
  engine: z.strictObject({
    kind: CurveEngineSchema.shape.kind,
    simulators: z.strictObject({ run: z.array(z.string()), baseline: z.array(z.string()) }),
  }),
  group: FrontierGroupSchema,
  /** The config's own curve in the run. */
  run: CurveSummarySchema,
  /** Null: the baseline has no config of the group. */
  frontier: FrontierSchema.nullable(),
  /** One row per valid point of the config, by interactivity. */
  points: z.array(FrontierPointSchema),
  /** Over the points that are ok. */
  gainPct: z.strictObject({ min: num, max: num }),
  /** 100 · (the config's max throughput/GPU − the frontier's max) / the frontier's max. */
  maxTputChangePct: num,
  notes: z.array(z.string()),
});

export const FrontierCompareReportSchema = z.strictObject({
  schemaVersion: z.literal(FRONTIER_COMPARE_SCHEMA_VERSION),
  kind: z.literal('frontier-compare-report'),
  run: CompareSideSchema,
  baseline: CompareSideSchema,
  /** Always `frontier`: what `--against` chose (`config` prints a `compare-report`). */
  against: z.literal('frontier'),
  interactivityStat: z.enum(['median', 'p90']),
  configs: z.array(FrontierComparisonSchema),
  notes: z.array(z.string()),
});

export type FrontierGroup = z.infer<typeof FrontierGroupSchema>;
export type FrontierAxis = z.infer<typeof FrontierAxisSchema>;
export type FrontierKnot = z.infer<typeof FrontierKnotSchema>;
export type Frontier = z.infer<typeof FrontierSchema>;
export type FrontierPoint = z.infer<typeof FrontierPointSchema>;
export type FrontierComparison = z.infer<typeof FrontierComparisonSchema>;
export type FrontierCompareReport = z.infer<typeof FrontierCompareReportSchema>;
