import * as z from 'zod';
import { ConfigIdentitySchema, CurveEngineSchema } from './curve.ts';
import { RUN_ENGINES } from './store.ts';

/**
 * `infx compare --format json`: a run's curves against a baseline's, config by config (same config key).
 * Throughput per GPU is compared at matched interactivity on each side's Pareto front (Steffen monotone
 * interpolation, never extrapolated), plus the reference's table at equal concurrency
 * (client-metrics-spec §8.1). Each matched gain is judged against the config's run-to-run spread (measured
 * from repeated results where they exist, else an assumed floor, or `--noise`): a gain inside it is reported
 * but is no difference. Null: not measured, or not comparable.
 *
 * Version 2: verdicts (per matched point, per config, overall) and the noise threshold behind them; what
 * served each side (simulated or real engines: a simulated config is only ever matched with a simulated
 * one, as their config keys differ) and the report's notes.
 */

export const COMPARE_REPORT_SCHEMA_VERSION = 2;

const num = z.number().nullable();
const range = z.tuple([z.number(), z.number()]).nullable();

export const CompareSideSchema = z.strictObject({
  /** What the user named: a run directory, a run id, or `official`. */
  label: z.string(),
  runIds: z.array(z.string()),
  /** What served its results: simulated, real or mixed; null: no results. */
  engine: z.enum(RUN_ENGINES).nullable(),
});

const EngineKindSchema = CurveEngineSchema.shape.kind;

/**
 * better: every matched point is inside the spread or above it, at least one above; worse: the mirror;
 * mixed: some above and some below; no-difference: every matched point inside the spread; same-run: the
 * run and the baseline are the same run (same run ids, same results); not-comparable: no matched point.
 */
export const VerdictSchema = z.enum([
  'better',
  'worse',
  'mixed',
  'no-difference',
  'same-run',
  'not-comparable',
]);

/** A matched point's gain against the spread; not-compared: outside a front. */
export const PointVerdictSchema = z.enum(['better', 'worse', 'within-noise', 'same-run', 'not-compared']);

/** The run-to-run spread a config's gains are judged against. */
export const ConfigNoiseSchema = z.strictObject({
  /** A gain g counts only when |g| > thresholdPct (percent of the baseline). */
  thresholdPct: z.number().nonnegative(),
  /**
   * measured: the largest (max − min)/mean of throughput/GPU among results of this config at one
   * concurrency and image from different runs (the run compared excluded); flag: `--noise`; assumed: the
   * default floor, no repeats seen.
   */
  source: z.enum(['measured', 'assumed', 'flag']),
  /** The measured spread, %, also when `--noise` overrides it; null: no repeats. */
  measuredPct: num,
  /** Results the spread was measured from (in groups of two or more runs); 0: none. */
  repeats: z.int().nonnegative(),
  /** Distinct runs those results come from. */
  runs: z.int().nonnegative(),
  /** Concurrencies with repeats. */
  concs: z.array(z.int().positive()),
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
  /** The gain against the config's noise threshold. */
  verdict: PointVerdictSchema,
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
  /** `llama8b 256/64 h100 vllm bf16 tp1`, and ` (simulated)` after it for a simulated config. */
  label: z.string(),
  /** Both sides are simulated, or both real; the simulator versions each side's results come from. */
  engine: z.strictObject({
    kind: EngineKindSchema,
    simulators: z.strictObject({ run: z.array(z.string()), baseline: z.array(z.string()) }),
  }),
  verdict: VerdictSchema,
  noise: ConfigNoiseSchema,
  run: CurveSummarySchema,
  baseline: CurveSummarySchema,
  /** Interactivity range both fronts cover; null when they do not overlap. */
  overlap: range,
  matched: z.array(MatchedPointSchema),
  /** Over the matched points that are ok (noise or not: see `verdict`). */
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

export const ConfigOnlySchema = z.strictObject({
  configKey: z.string(),
  label: z.string(),
  engine: EngineKindSchema,
});

export const CompareReportSchema = z.strictObject({
  schemaVersion: z.literal(COMPARE_REPORT_SCHEMA_VERSION),
  kind: z.literal('compare-report'),
  run: CompareSideSchema,
  baseline: CompareSideSchema,
  /** better or worse only when every config is; mixed when configs (or points) disagree. */
  verdict: VerdictSchema,
  noise: z.strictObject({
    /** `--noise`: the threshold for every config; null: measured where repeats exist, else assumed. */
    flagPct: num,
    /** The floor assumed where no repeats were seen. */
    assumedPct: z.number().nonnegative(),
    /** Whether other stored runs of the results database were searched for repeats. */
    storedRuns: z.boolean(),
  }),
  interactivityStat: z.enum(['median', 'p90']),
  /** Interactivities the user asked for; null: 5 evenly spaced over each config's overlap. */
  at: z.array(z.number()).nullable(),
  configs: z.array(ConfigComparisonSchema),
  onlyInRun: z.array(ConfigOnlySchema),
  onlyInBaseline: z.array(ConfigOnlySchema),
  /** What the reader should know about the comparison as a whole, e.g. a simulated side and a real one. */
  notes: z.array(z.string()),
});

export type Verdict = z.infer<typeof VerdictSchema>;
export type PointVerdict = z.infer<typeof PointVerdictSchema>;
export type ConfigNoise = z.infer<typeof ConfigNoiseSchema>;
export type CompareSide = z.infer<typeof CompareSideSchema>;
export type CurveSummary = z.infer<typeof CurveSummarySchema>;
export type MatchedValues = z.infer<typeof MatchedValuesSchema>;
export type MatchedPoint = z.infer<typeof MatchedPointSchema>;
export type EqualConcMetric = z.infer<typeof EqualConcMetricSchema>;
export type ConfigComparison = z.infer<typeof ConfigComparisonSchema>;
export type CompareReport = z.infer<typeof CompareReportSchema>;
