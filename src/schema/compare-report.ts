import * as z from 'zod';
import { ConfigIdentitySchema } from './curve.ts';

/**
 * `infx compare --format json`: a run's curves against a baseline's, config by config (same config key).
 * Throughput per GPU is compared at matched interactivity on each side's Pareto front (Steffen monotone
 * interpolation, never extrapolated), plus the reference's table at equal concurrency
 * (client-metrics-spec §8.1). Null: not measured, or not comparable.
 */

export const COMPARE_REPORT_SCHEMA_VERSION = 1;

const num = z.number().nullable();
const range = z.tuple([z.number(), z.number()]).nullable();

export const CompareSideSchema = z.strictObject({
  /** What the user named: a run directory, a run id, or `official`. */
  label: z.string(),
  runIds: z.array(z.string()),
});

export const CurveSummarySchema = z.strictObject({
  points: z.int().nonnegative(),
  /** Points whose result passed the validity gate; only these make the front. */
  validPoints: z.int().nonnegative(),
  frontPoints: z.int().nonnegative(),
  /** Interactivity range of the front, tok/s/user. */
  interactivity: range,
  maxTputPerGpu: num,
});

export const MatchedValuesSchema = z.strictObject({
  tputPerGpu: num,
  outputTputPerGpu: num,
  /** $ per million total (input + output) tokens at this throughput. */
  costPerMTokens: num,
  costPerMOutputTokens: num,
});

export const MatchedPointSchema = z.strictObject({
  /** Interactivity compared at, tok/s/user. */
  interactivity: z.number(),
  /** ok: inside both fronts; otherwise outside one or both (never extrapolated, not compared). */
  status: z.enum(['ok', 'outside-run', 'outside-baseline', 'outside-both']),
  run: MatchedValuesSchema,
  baseline: MatchedValuesSchema,
  /** 100 · (run − baseline) / baseline, when ok and the baseline is above 0. */
  gainPct: num,
});

export const EqualConcMetricSchema = z.strictObject({
  metric: z.string(),
  unit: z.string(),
  better: z.enum(['higher', 'lower']),
  run: num,
  baseline: num,
  delta: num,
  pct: num,
  /** Whether the change goes the good way; null when not comparable or no change. */
  improved: z.boolean().nullable(),
});

export const ConfigComparisonSchema = z.strictObject({
  configKey: z.string(),
  config: ConfigIdentitySchema,
  label: z.string(),
  run: CurveSummarySchema,
  baseline: CurveSummarySchema,
  /** Interactivity range both fronts cover; null when they do not overlap. */
  overlap: range,
  matched: z.array(MatchedPointSchema),
  /** Over the matched points that are ok. */
  gainPct: z.strictObject({ mean: num, min: num, max: num }),
  /** 100 · (max tput/GPU of the run − that of the baseline) / that of the baseline. */
  maxTputChangePct: num,
  /** The run's front covers the baseline's interactivity range. */
  covers: z.boolean(),
  /** Covers, and at every interactivity of the baseline's range the run is at least as high. */
  dominates: z.boolean(),
  price: z.strictObject({ perGpuHour: num, source: z.enum(['flag', 'catalog', 'unknown']) }),
  equalConcurrency: z.array(
    z.strictObject({ conc: z.int().positive(), metrics: z.array(EqualConcMetricSchema) }),
  ),
  notes: z.array(z.string()),
});

export const ConfigOnlySchema = z.strictObject({ configKey: z.string(), label: z.string() });

export const CompareReportSchema = z.strictObject({
  schemaVersion: z.literal(COMPARE_REPORT_SCHEMA_VERSION),
  kind: z.literal('compare-report'),
  run: CompareSideSchema,
  baseline: CompareSideSchema,
  interactivityStat: z.enum(['median', 'p90']),
  /** Interactivities the user asked for; null: 5 evenly spaced over each config's overlap. */
  at: z.array(z.number()).nullable(),
  configs: z.array(ConfigComparisonSchema),
  onlyInRun: z.array(ConfigOnlySchema),
  onlyInBaseline: z.array(ConfigOnlySchema),
});

export type CompareSide = z.infer<typeof CompareSideSchema>;
export type CurveSummary = z.infer<typeof CurveSummarySchema>;
export type MatchedValues = z.infer<typeof MatchedValuesSchema>;
export type MatchedPoint = z.infer<typeof MatchedPointSchema>;
export type EqualConcMetric = z.infer<typeof EqualConcMetricSchema>;
export type ConfigComparison = z.infer<typeof ConfigComparisonSchema>;
export type CompareReport = z.infer<typeof CompareReportSchema>;
