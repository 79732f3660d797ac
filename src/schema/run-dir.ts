import * as z from 'zod';
import { ChangelogMetadataSchema } from './changelog-entry.ts';
import { CONTAINER_RUNTIMES, ENGINE_KINDS, EngineLaunchSchema } from './engine-launch.ts';
import { MatrixRowSchema } from './matrix-row.ts';
import { PointEvalOutcomeSchema, PointEvalSpecSchema } from './point-eval.ts';
import { WorkloadBenchSchema } from './workload.ts';

/**
 * The run directory a sweep writes and ingest reads (DESIGN.md "Run directory"):
 * `<out>/<run-id>/manifest.json` and `<out>/<run-id>/points/<point-id>/attempt-<n>/{point.json,
 * status.json, result.json, requests.jsonl, server.log}`. Every file is written atomically.
 */

export const RUN_DIR_SCHEMA_VERSION = 1;
export const POINT_PHASES = ['setup', 'warmup', 'benchmark', 'teardown'] as const;
export const EXECUTORS = ['local', 'slurm'] as const;

const isoTime = z.string().describe('ISO 8601 UTC time');
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * Ids that become folder names (`<out>/<run-id>/points/<point-id>/attempt-<n>`): a safe character set, so
 * no id — from a flag, a config, a manifest.json or a point.json — can name a path outside its folder.
 * Run ids: letters, digits, `.`, `_`, `-`, starting with a letter or digit, at most 100. Point ids (the
 * reference's result file names, e.g. `dsr1_1k1k_fp8_sglang_tp8-ep1-dpafalse_…_conc4_h200`, `~2` for a
 * repeated row): also `:`, `+`, `=` and `~`, at most 255 (a file name's limit). Neither is `.` or `..`, and
 * neither holds a separator, a NUL or a control character.
 */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const POINT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:+=~-]{0,254}$/;
/** `attempt-<n>` folders: n from 1, written without leading zeros, at most 1,000,000. */
export const ATTEMPT_DIR_PATTERN = /^attempt-([1-9][0-9]{0,6})$/;
export const MAX_ATTEMPT = 1_000_000;

export const isRunId = (s: string): boolean => RUN_ID_PATTERN.test(s);
export const isPointId = (s: string): boolean => POINT_ID_PATTERN.test(s);
/** The attempt number of an `attempt-<n>` folder name; null for any other name. */
export function attemptOfDir(name: string): number | null {
  const m = ATTEMPT_DIR_PATTERN.exec(name);
  const n = m ? Number(m[1]) : Number.NaN;
  return n >= 1 && n <= MAX_ATTEMPT ? n : null;
}

/** Why `id` cannot be a run id, or null when it can. */
export function runIdProblem(id: string): string | null {
  return isRunId(id)
    ? null
    : `run id ${JSON.stringify(id)} is not usable as a folder name: use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 100)`;
}

/** Why `id` cannot be a point id, or null when it can. */
export function pointIdProblem(id: string): string | null {
  return isPointId(id)
    ? null
    : `point id ${JSON.stringify(id.length > 300 ? `${id.slice(0, 300)}…` : id)} is not usable as a folder name: use letters, digits and '.', '_', ':', '+', '=', '~', '-', starting with a letter or digit (at most 255)`;
}

export const RunIdSchema = z.string().regex(RUN_ID_PATTERN, {
  message:
    "not a usable run id: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 (it names a folder)",
});
export const PointIdSchema = z.string().regex(POINT_ID_PATTERN, {
  message:
    "not a usable point id: letters, digits and '.', '_', ':', '+', '=', '~', '-', starting with a letter or digit, at most 255 (it names a folder)",
});
const attemptNumber = z.int().positive().max(MAX_ATTEMPT);

/**
 * What the client does at a point: its workload, tagged by kind (schema/workload.ts). A bench without `kind`
 * (run directories written before kinds) reads as fixed-seq-len.
 */
export const PointBenchSchema = WorkloadBenchSchema;

/** A fault the simulated engine injects, for testing a pipeline's failure handling. */
export const SimFaultSchema = z.strictObject({
  kind: z.enum(['no-start', 'hang', 'crash-after']),
  /** crash-after: measured requests completed before the engine dies. */
  requests: z.int().positive().nullable(),
  /** Attempts that get the fault; null: every attempt. */
  attempts: z.array(z.int().positive()).nullable(),
});

export const PointEngineSchema = z.strictObject({
  kind: z.enum(ENGINE_KINDS),
  container: z.enum(CONTAINER_RUNTIMES),
  /**
   * Simulated engine only: how many times faster than real time it runs; `auto`: as fast as this host
   * sustains for the point (src/sim/engine/time-scale.ts), chosen when the point starts.
   */
  simTimeScale: z.union([z.number().positive(), z.literal('auto')]).nullable(),
  readyTimeoutS: z.number().positive(),
  acceptance: z.union([z.enum(['golden', 'real']), z.number().positive()]),
  faults: z.array(SimFaultSchema),
});

/** One benchmark point: a matrix row at one concurrency, with everything needed to run it anywhere. */
export const PointSpecSchema = z.strictObject({
  schemaVersion: z.literal(RUN_DIR_SCHEMA_VERSION),
  runId: RunIdSchema,
  pointId: PointIdSchema.describe('stable within the run; the folder name under points/'),
  index: z.int().nonnegative().describe('position in the plan'),
  bucket: z.string().describe('fail-fast scope: the job family, e.g. single-node 1k1k'),
  canary: z.boolean(),
  conc: z.int().positive(),
  row: MatrixRowSchema,
  gpus: z.strictObject({
    total: z.int().nonnegative(),
    prefill: z.int().nonnegative().nullable(),
    decode: z.int().nonnegative().nullable(),
  }),
  bench: PointBenchSchema,
  engine: PointEngineSchema,
  /** A `run-eval` row's accuracy eval, run after the benchmark on the same engine (point-eval.ts). */
  eval: PointEvalSpecSchema.nullable().optional(),
});

/** `point.json` of one attempt: the spec plus what this attempt actually launched. */
export const PointAttemptSchema = PointSpecSchema.extend({
  attempt: attemptNumber,
  host: z.string(),
  startedAt: isoTime,
  launch: EngineLaunchSchema.nullable().describe('null when the engine could not even be rendered'),
  slurmJobId: z.string().nullable(),
});

export const PointStatusSchema = z.strictObject({
  schemaVersion: z.literal(RUN_DIR_SCHEMA_VERSION),
  pointId: PointIdSchema,
  attempt: attemptNumber,
  status: z.enum(['ok', 'failed']),
  /** Where it failed; null when ok. */
  phase: z.enum(POINT_PHASES).nullable(),
  reason: z.string().nullable(),
  /** Stopped by Ctrl-C, a cancelled job or fail-fast: resume runs the point again. */
  interrupted: z.boolean(),
  /** The result's validity gate (failure rate, client health); null when no result was written. */
  valid: z.boolean().nullable(),
  startedAt: isoTime,
  finishedAt: isoTime,
  durationS: z.number().nonnegative(),
  host: z.string(),
  engineExit: z
    .strictObject({ code: z.int().nullable(), signal: z.string().nullable() })
    .nullable()
    .describe('how the engine process ended, when it ended on its own'),
  /** The last lines of server.log when the engine failed. */
  logTail: z.array(z.string()),
  /** The point's accuracy eval and its threshold verdict; absent or null when it ran none. */
  eval: PointEvalOutcomeSchema.nullable().optional(),
});

export const RunSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('configs'),
    command: z.enum(['full-sweep', 'test-config']),
    configFiles: z.array(z.strictObject({ path: z.string(), sha256 })),
    runnerConfig: z.strictObject({ path: z.string(), sha256 }),
    selectedKeys: z.array(z.string()).describe('config keys that produced points'),
    filters: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    kind: z.literal('matrix'),
    file: z.strictObject({ path: z.string(), sha256 }),
    /** The file was `infx changelog matrix` output: the entries that selected its rows. */
    changelog: ChangelogMetadataSchema.optional(),
  }),
]);

/**
 * Where a run came from, for reuse and staging (changelog-pr-spec §5.5, §6): the CI event and pull request a
 * sweep ran for (read from GitHub Actions' environment), or `local` with the work tree's commit.
 */
export const RunProvenanceSchema = z.strictObject({
  event: z.string().min(1).describe('pull_request, push, workflow_dispatch, … (GitHub Actions), or local'),
  prNumber: z.int().positive().nullable(),
  headSha: z.string().nullable().describe('the commit benchmarked (a pull request: its head, not the merge)'),
  headBranch: z.string().nullable(),
  workflow: z.string().nullable().describe('the workflow file, e.g. .github/workflows/run-sweep.yml'),
  ciRunId: z.string().nullable(),
  ciRunAttempt: z.int().positive().nullable(),
  runUrl: z.string().nullable(),
  labels: z.array(z.string()).nullable().describe("the pull request's labels when the sweep was planned"),
});

export const SkippedRowSchema = z.strictObject({
  index: z.int().nonnegative(),
  expName: z.string(),
  reason: z.string(),
});

export const RunOptionsSchema = z.strictObject({
  executor: z.enum(EXECUTORS),
  retries: z.int().nonnegative(),
  failFast: z.boolean(),
  canary: z.boolean(),
  parallel: z.int().positive(),
  slurm: z
    .strictObject({
      gpuRequest: z.enum(['gres', 'gpus-per-node', 'none']),
      gpusPerNode: z.int().positive(),
      args: z.array(z.string()),
      timeLimitMin: z.int().positive(),
    })
    .nullable(),
});

export const RunManifestSchema = z.strictObject({
  schemaVersion: z.literal(RUN_DIR_SCHEMA_VERSION),
  runId: RunIdSchema,
  createdAt: isoTime,
  infxVersion: z.string(),
  host: z.strictObject({
    hostname: z.string(),
    platform: z.string(),
    arch: z.string(),
    node: z.string(),
    cpus: z.int(),
  }),
  source: RunSourceSchema,
  /** Absent in manifests written before infx recorded it: such a run is local with no known commit. */
  provenance: RunProvenanceSchema.optional(),
  seed: z.int(),
  options: RunOptionsSchema,
  points: z.array(PointSpecSchema),
  skipped: z.array(SkippedRowSchema).describe('rows the sweep cannot run, and why'),
});

export type PointBench = z.infer<typeof PointBenchSchema>;
export type SimFault = z.infer<typeof SimFaultSchema>;
export type PointEngine = z.infer<typeof PointEngineSchema>;
export type PointSpec = z.infer<typeof PointSpecSchema>;
export type PointAttempt = z.infer<typeof PointAttemptSchema>;
export type PointStatus = z.infer<typeof PointStatusSchema>;
export type PointPhase = (typeof POINT_PHASES)[number];
export type RunSource = z.infer<typeof RunSourceSchema>;
export type RunProvenance = z.infer<typeof RunProvenanceSchema>;
export type RunOptions = z.infer<typeof RunOptionsSchema>;
export type RunManifest = z.infer<typeof RunManifestSchema>;
export type SkippedRow = z.infer<typeof SkippedRowSchema>;
export type Executor = (typeof EXECUTORS)[number];

// ---- The layout: every name in a run directory, in one place ----
//
// Writers (sweep, infx bench, the store's synthetic runs) and readers (ingest, the dashboard, sweep
// status) take the names from here. The paths themselves are built in run-dir-paths.ts, beside this file:
// joining needs node:path, which the browser UI (it reaches this file through web-api.ts) cannot load.

/** The folder under a run directory that holds one folder per point. */
export const POINTS_DIR = 'points';

/** Files at the top of a run directory. */
export const RUN_TOP_FILES = {
  manifest: 'manifest.json',
  /** Held while a sweep writes the directory (src/sweep/lock.ts). */
  lock: 'sweep.lock',
  /** infx bench: the one-row matrix it planned and what it was asked (src/sweep/bench-plan.ts). */
  benchMatrix: 'matrix.json',
  benchRun: 'bench.json',
} as const;

/** Files of a point folder, beside its attempts. */
export const POINT_FILES = {
  /** The point's spec, what a Slurm job or a local child reads to run the point. */
  spec: 'spec.json',
} as const;

/** Files of an attempt folder. */
export const ATTEMPT_FILES = {
  point: 'point.json',
  status: 'status.json',
  result: 'result.json',
  requests: 'requests.jsonl',
  log: 'server.log',
  /** infx bench --format inferencex: the reference client's raw result. */
  inferencex: 'inferencex.json',
  /** The `infx sweep point` child's own output (local and Slurm executors). */
  pointLog: 'infx.log',
  /** Engine process groups started, for reaping them after a crash (src/engines/groups.ts). */
  engineGroups: 'engines.json',
  /** The Slurm job that runs the attempt. */
  slurmJob: 'slurm-job.json',
  /** A run-eval point's accuracy eval: lm-eval's results.json and samples_gsm8k.jsonl in this folder. */
  eval: 'eval',
} as const;

export type AttemptFileName = (typeof ATTEMPT_FILES)[keyof typeof ATTEMPT_FILES];

/** The files of an eval's output folder (`infx eval run --out`, an attempt's `eval/`), as lm-eval names them. */
export const EVAL_FILES = {
  results: 'results.json',
  samples: 'samples_gsm8k.jsonl',
} as const;

/** Why `attempt` cannot number an attempt folder, or null when it can. */
export function attemptProblem(attempt: number): string | null {
  return Number.isInteger(attempt) && attempt >= 1 && attempt <= MAX_ATTEMPT
    ? null
    : `attempt ${attempt} is not a number from 1 to ${MAX_ATTEMPT}`;
}

/** The folder name of attempt `n` (the inverse of attemptOfDir); throws for a number that is not one. */
export function attemptDirName(n: number): string {
  const problem = attemptProblem(n);
  if (problem) throw new RangeError(problem);
  return `attempt-${n}`;
}
