import * as z from 'zod';

/**
 * What `infx check` reports (src/check): feasibility findings about benchmark points, before any GPU time
 * is spent. `infx check --format json` prints a CheckReport; the review bot reads the same shape.
 */

export const CHECK_SEVERITIES = ['error', 'warning', 'note'] as const;
export const CheckSeveritySchema = z.enum(CHECK_SEVERITIES);
export type CheckSeverity = z.infer<typeof CheckSeveritySchema>;

export const CheckFindingSchema = z.strictObject({
  /** error: the point cannot run as configured (exit 1); warning: it runs but measures less than it says; note: a requirement to confirm. */
  severity: CheckSeveritySchema,
  /** Stable rule id (memory.weights, memory.kv-context, image.unpinned, …; see src/check/rules.ts). */
  rule: z.string(),
  configKey: z.string(),
  /** The master config file that defines the key. */
  file: z.string().nullable(),
  /** The point, e.g. "tp=2 ep=1 conc=64 isl=8192 osl=1024"; null when the finding is about the whole config. */
  point: z.string().nullable(),
  /** The point without its concurrency: findings of one topology group on it. */
  topology: z.string().nullable(),
  conc: z.int().nullable(),
  /** Multi-node rows: which worker pool the finding is about. */
  worker: z.enum(['prefill', 'decode']).nullable(),
  /** The accelerator (catalog id) the numbers were computed for. */
  hardware: z.string().nullable(),
  /** What is wrong, with the numbers (GiB = 2^30 bytes). */
  message: z.string(),
  /** How to fix it. */
  fix: z.string().nullable(),
  /** The numbers behind the message, by name (…GiB in GiB, …Tokens in tokens). */
  numbers: z.record(z.string(), z.number()),
});
export type CheckFinding = z.infer<typeof CheckFindingSchema>;

export const CheckReportSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** No errors. */
  ok: z.boolean(),
  gpuMemoryUtilization: z.number().gt(0).lte(1),
  summary: z.strictObject({
    configs: z.int().nonnegative(),
    points: z.int().nonnegative(),
    errors: z.int().nonnegative(),
    warnings: z.int().nonnegative(),
    notes: z.int().nonnegative(),
    configsWithErrors: z.int().nonnegative(),
    pointsWithErrors: z.int().nonnegative(),
  }),
  /** Every config checked, in config order, with the number of points it expands to. */
  configs: z.array(
    z.strictObject({ configKey: z.string(), file: z.string(), points: z.int().nonnegative() }),
  ),
  findings: z.array(CheckFindingSchema),
});
export type CheckReport = z.infer<typeof CheckReportSchema>;
