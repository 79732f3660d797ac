import * as z from 'zod';
import { CONTAINER_RUNTIMES, ENGINE_KINDS, EngineLaunchSchema } from './engine-launch.ts';
import { MatrixRowSchema } from './matrix-row.ts';

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

/** What the client does at a point: the fixed-seq-len benchmark of `infx bench`. */
export const PointBenchSchema = z.strictObject({
  isl: z.int().positive(),
  osl: z.int().positive(),
  randomRangeRatio: z.number().min(0).max(1),
  numPrompts: z.int().positive(),
  warmup: z.int().nonnegative(),
  endpoint: z.enum(['chat', 'completions']),
  tokenizer: z
    .string()
    .nullable()
    .describe('Hugging Face tokenizer directory; null: the built-in o200k_base'),
  seed: z.int(),
  maxFailureRate: z.number().min(0).max(1),
  requestTimeoutS: z.number().positive(),
});

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
  runId: z.string(),
  pointId: z.string().describe('stable within the run; the folder name under points/'),
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
});

/** `point.json` of one attempt: the spec plus what this attempt actually launched. */
export const PointAttemptSchema = PointSpecSchema.extend({
  attempt: z.int().positive(),
  host: z.string(),
  startedAt: isoTime,
  launch: EngineLaunchSchema.nullable().describe('null when the engine could not even be rendered'),
  slurmJobId: z.string().nullable(),
});

export const PointStatusSchema = z.strictObject({
  schemaVersion: z.literal(RUN_DIR_SCHEMA_VERSION),
  pointId: z.string(),
  attempt: z.int().positive(),
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
  }),
]);

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
  runId: z.string(),
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
export type RunOptions = z.infer<typeof RunOptionsSchema>;
export type RunManifest = z.infer<typeof RunManifestSchema>;
export type SkippedRow = z.infer<typeof SkippedRowSchema>;
export type Executor = (typeof EXECUTORS)[number];
