import * as z from 'zod';
import { CurveEngineSchema, CurveMetricsSchema, CurvePointSchema } from './curve.ts';
import { EngineLaunchSchema } from './engine-launch.ts';
import { ATTEMPT_FILES, POINT_PHASES, PointEngineSchema, SkippedRowSchema } from './run-dir.ts';
import {
  AttemptStatusSchema,
  PointOutcomeSchema,
  RUN_STATUSES,
  RunEngineSchema,
  RunStatusEventSchema,
  RunStatusSchema,
  StoredChangelogEntrySchema,
  StoredRunSchema,
} from './store.ts';

/**
 * The dashboard's JSON API (`infx serve`, src/web): the query parameters each endpoint accepts and the shape
 * of every response. Query parameters are an allow-list: an unknown or repeated key is a 400, as is a value
 * that does not parse. Lists are comma-separated (`precision=fp4,fp8`).
 */

/**
 * Every error: `{error: {code, message, param?}}` with status 400 (bad request), 404 (no such thing), 405, or
 * 421 (host-not-allowed: a Host header the server does not answer for, see infx serve --allowed-host).
 */
export const ApiErrorSchema = z.strictObject({
  error: z.strictObject({
    code: z.enum([
      'bad-request',
      'not-found',
      'no-run-dir',
      'method-not-allowed',
      'host-not-allowed',
      'internal',
    ]),
    message: z.string(),
    /** The query parameter (or path segment) at fault. */
    param: z.string().optional(),
  }),
});
export type ApiError = z.infer<typeof ApiErrorSchema>;

// ---- query parameters ----

const text = z.string().trim().min(1, 'must not be empty').max(500);
const list = z
  .string()
  .max(4000)
  .transform((s) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== ''),
  );
const positiveInt = z
  .string()
  .regex(/^\d+$/, 'must be a whole number')
  .transform(Number)
  .pipe(z.int().positive().max(10_000_000));
const positiveNumber = z
  .string()
  .regex(/^\d+(\.\d+)?([eE][+-]?\d+)?$/, 'must be a positive number')
  .transform(Number)
  .pipe(z.number().positive().finite());

/** The selection the inference view is drawn from: the filters of /api/filters, /api/points, /api/export.csv. */
export const SelectionQueryShape = {
  /** Model key (the row's model-prefix, e.g. dsr1). */
  model: text.optional(),
  /** Workload: input and output sequence lengths, given together. */
  isl: positiveInt.optional(),
  osl: positiveInt.optional(),
  precision: list.optional(),
  /** Base GPU keys (h100, mi355x…). */
  hardware: list.optional(),
  framework: list.optional(),
  /** One run's points instead of the latest per config and concurrency. */
  run: text.optional(),
  /** Which runs count (default official); ignored when `run` is given (the run's own status counts). */
  status: z.enum(RUN_STATUSES).optional(),
};

const workloadPair = <T extends { isl?: number | undefined; osl?: number | undefined }>(
  q: T,
  ctx: z.RefinementCtx,
) => {
  if ((q.isl === undefined) !== (q.osl === undefined))
    ctx.addIssue({
      code: 'custom',
      path: [q.isl === undefined ? 'isl' : 'osl'],
      message: 'isl and osl name the workload together: give both or neither',
    });
};

export const FiltersQuerySchema = z.strictObject(SelectionQueryShape).superRefine(workloadPair);
export type FiltersQuery = z.infer<typeof FiltersQuerySchema>;

export const PointsQuerySchema = z
  .strictObject({
    ...SelectionQueryShape,
    /** Configs left out: their ids (see configId in src/web/config-id.ts), e.g. the legend's hidden series. */
    hide: list.optional(),
  })
  .superRefine(workloadPair);
export type PointsQuery = z.infer<typeof PointsQuerySchema>;

export const ExportQuerySchema = z
  .strictObject({
    ...SelectionQueryShape,
    hide: list.optional(),
    /** $/GPU-hour for the cost columns; default: the catalog's estimate of each config's GPU. */
    price: positiveNumber.optional(),
  })
  .superRefine(workloadPair);
export type ExportQuery = z.infer<typeof ExportQuerySchema>;

export const RunsQuerySchema = z.strictObject({ status: z.enum(RUN_STATUSES).optional() });

export const CompareQuerySchema = z.strictObject({
  run: text,
  /** A stored run id, or `official` (the latest official result of each of the run's configs). */
  baseline: text.default('official'),
  /**
   * config: each config with the same config of the baseline (a `compare-report`); frontier: each config
   * with the frontier of all the baseline's configs of its model, precision, hardware and workload (a
   * `frontier-compare-report`, as `infx compare --against frontier`; takes no `at`, `price` or `noise`).
   */
  against: z.enum(['config', 'frontier']).default('config'),
  /** Interactivities (tok/s/user) to compare at; default: 5 over each config's overlap. */
  at: list.pipe(z.array(positiveNumber).min(1).max(50)).optional(),
  interactivity: z.enum(['median', 'p90']).default('median'),
  price: positiveNumber.optional(),
  /**
   * The run-to-run spread, % of the baseline, within which a gain is no difference (as `infx compare
   * --noise`; 0 counts any difference); default: measured from the stored repeats, else assumed.
   */
  noise: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a percentage from 0 to 100')
    .transform(Number)
    .pipe(z.number().min(0).max(100))
    .optional(),
});
export type CompareQuery = z.infer<typeof CompareQuerySchema>;

export const FileQuerySchema = z.strictObject({
  /** Which attempt's file; default: the attempt whose result is stored, else the newest. */
  attempt: positiveInt.optional(),
});

/** Files of an attempt folder the API serves (read from the run directory). */
export const RUN_FILE_NAMES = [
  ATTEMPT_FILES.requests,
  ATTEMPT_FILES.log,
  ATTEMPT_FILES.pointLog,
  ATTEMPT_FILES.status,
  ATTEMPT_FILES.point,
] as const;
export type RunFileName = (typeof RUN_FILE_NAMES)[number];

// ---- responses ----

const option = z.strictObject({
  value: z.string(),
  label: z.string(),
  /** Configs with data under the other current selections. */
  configs: z.int().nonnegative(),
});
export type FilterOption = z.infer<typeof option>;

export const FilterRunSchema = z.strictObject({
  runId: z.string(),
  createdAt: z.string(),
  status: RunStatusSchema,
  planned: z.int().nonnegative(),
  ingested: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  missing: z.int().nonnegative(),
  /** What served its stored results: simulated, real or mixed. */
  engine: RunEngineSchema,
});

/** `GET /api/filters`: the effective selection and, per filter, the values that have data. */
export const FiltersResponseSchema = z.strictObject({
  /**
   * The selection after snapping (dashboard-spec §4.13.2): a value without data is replaced (single
   * selects: by the default, the value with the most configs) or dropped (lists; an empty list means all).
   */
  selection: z.strictObject({
    status: RunStatusSchema,
    run: z.string().nullable(),
    model: z.string().nullable(),
    isl: z.int().positive().nullable(),
    osl: z.int().positive().nullable(),
    precision: z.array(z.string()),
    hardware: z.array(z.string()),
    framework: z.array(z.string()),
  }),
  options: z.strictObject({
    /** Statuses with stored results (value: the status, configs: its runs with results). */
    status: z.array(option),
    /** Runs of the selected status that measured the selected model and workload, newest first. */
    run: z.array(FilterRunSchema),
    model: z.array(option),
    /** value: `ISL/OSL`, e.g. `1024/1024`; label: `1k/1k`. */
    workload: z.array(option.extend({ isl: z.int().positive(), osl: z.int().positive() })),
    /** Each narrowed by the model, the workload and the other two lists. */
    precision: z.array(option),
    hardware: z.array(option),
    framework: z.array(option),
  }),
  /** Configs matching the whole selection. */
  configs: z.int().nonnegative(),
});
export type FiltersResponse = z.infer<typeof FiltersResponseSchema>;
export type FilterSelection = FiltersResponse['selection'];

/** An engine process as launched: its role and exact command line (environment values are not served). */
export const EngineCommandSchema = z.strictObject({
  role: EngineLaunchSchema.shape.processes.element.shape.role,
  argv: z.array(z.string()),
  /** Names of the variables set on top of the inherited environment (values are not served). */
  envKeys: z.array(z.string()),
});

export const RunAttemptSchema = z.strictObject({
  attempt: z.int().positive(),
  status: AttemptStatusSchema,
  phase: z.enum(POINT_PHASES).nullable(),
  reason: z.string().nullable(),
  interrupted: z.boolean(),
  valid: z.boolean().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  durationS: z.number().nullable(),
  host: z.string().nullable(),
  slurmJobId: z.string().nullable(),
  /** From the attempt's point.json when the run directory is known; null otherwise. */
  engine: z.array(EngineCommandSchema).nullable(),
  /** The last lines of server.log (status.json) when the engine failed and the run directory is known. */
  logTail: z.array(z.string()),
  /** API paths of the attempt's files on disk (only when the run directory is known and the file exists). */
  files: z.partialRecord(z.enum(RUN_FILE_NAMES), z.string()),
});
export type RunAttempt = z.infer<typeof RunAttemptSchema>;

export const RunPointSchema = z.strictObject({
  pointId: z.string(),
  index: z.int().nonnegative(),
  configKey: z.string(),
  /** `llama8b 256/64 h100 vllm bf16 tp1`, with ` (simulated)` after it for a simulated point. */
  label: z.string(),
  /**
   * What served the point: its stored result's engine and simulator version; without a result, what the
   * plan would have run it on (simulator null).
   */
  engine: CurveEngineSchema,
  conc: z.int().positive(),
  gpus: z.int().nonnegative(),
  image: z.string(),
  bucket: z.string(),
  outcome: PointOutcomeSchema,
  /** The attempt whose result is stored; null unless ingested. */
  attempt: z.int().positive().nullable(),
  /** failed/missing: where and why (the newest attempt). */
  phase: z.enum(POINT_PHASES).nullable(),
  reason: z.string().nullable(),
  /** The stored result passed the validity gate; null: no result. */
  valid: z.boolean().nullable(),
  /** Engine settings of the plan (kind, container, time scale, faults), from the stored manifest. */
  engineSettings: PointEngineSchema.nullable(),
  /** The stored result's headline metrics (throughput per GPU, interactivity, TTFT, E2E); null: no result. */
  metrics: CurveMetricsSchema.nullable(),
  /** The stored result's measured requests that completed and that failed; null: no result. */
  requests: z.strictObject({ ok: z.int().nonnegative(), failed: z.int().nonnegative() }).nullable(),
  attempts: z.array(RunAttemptSchema),
  links: z.strictObject({
    /** `/api/runs/:id/points/:pointId/result` when a result is stored. */
    result: z.string().nullable(),
    /** requests.jsonl and server.log of the chosen (else newest) attempt, when the run directory is known. */
    requests: z.string().nullable(),
    serverLog: z.string().nullable(),
    /** An agentic point with its requests on disk: the run page drawing its session timeline. */
    timeline: z.string().nullable(),
  }),
});
export type RunPoint = z.infer<typeof RunPointSchema>;

/** `GET /api/runs/:id`: the run and every planned point with its attempts. */
export const RunDetailSchema = z.strictObject({
  run: StoredRunSchema,
  /** Where this server reads the run's files from; null when it does not know (see runDirNote). */
  runDir: z.string().nullable(),
  runDirNote: z.string().nullable(),
  points: z.array(RunPointSchema),
  /** Matrix rows the sweep could not run (agentic, eval-only), from the stored manifest. */
  skipped: z.array(SkippedRowSchema),
  /** The changelog entries that selected the run (empty: none linked). */
  changelog: z.array(StoredChangelogEntrySchema),
  /** Every status the run has had: who set it, when and why. */
  statusHistory: z.array(RunStatusEventSchema),
  /** The run's stored accuracy evals, and how many fell below their threshold (the evaluation page). */
  evals: z.strictObject({ total: z.int(), below: z.int() }),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

export const RunsResponseSchema = z.array(StoredRunSchema);

const chartSideSchema = z.strictObject({
  label: z.string(),
  runIds: z.array(z.string()),
  points: z.array(CurvePointSchema),
});

/** `GET /api/points`: the points of the selection, ordered by config and concurrency. */
export const PointsResponseSchema = z.array(CurvePointSchema);

/** `GET /api/compare/points`: the points of both sides, to draw the compare view's chart. */
export const ComparePointsResponseSchema = z.strictObject({
  run: chartSideSchema,
  baseline: chartSideSchema,
});
export type ComparePointsResponse = z.infer<typeof ComparePointsResponseSchema>;

/** `GET /api/health`. */
export const HealthResponseSchema = z.strictObject({
  ok: z.literal(true),
  /** The database, password redacted. */
  db: z.string(),
  /** Whether the UI is built and served (dist/web). */
  ui: z.boolean(),
  runsDirs: z.array(z.string()),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;
