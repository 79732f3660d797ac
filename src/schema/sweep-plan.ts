import * as z from 'zod';
import { MatrixRowSchema } from './matrix-row.ts';

/**
 * What a labelled PR (or a push to main) would run, in the reference workflow's buckets
 * (matrix-spec §8.2 step 6, §9; changelog-pr-spec §3). Printed by `infx matrix plan --format json`.
 */

const rows = z.array(MatrixRowSchema);

export const SweepBucketsSchema = z.strictObject({
  single_node: z
    .record(z.string(), rows)
    .describe('seq-len name (1k1k, 8k1k, <isl>_<osl>) or "agentic" → rows'),
  multi_node: z.record(z.string(), rows),
  evals: rows.describe('single-node fixed-seq-len eval rows'),
  agentic_evals: rows,
  multinode_evals: rows,
  multinode_agentic_evals: rows,
});

export const JobFamilySchema = z.strictObject({
  name: z.string(),
  bucket: z.string(),
  jobs: z.int(),
  failFast: z.boolean(),
  /** The reference workflow only dispatches 1k1k, 8k1k and agentic buckets. */
  dispatched: z.boolean(),
});

export const SweepPlanSchema = z.strictObject({
  schemaVersion: z.literal(1),
  event: z.enum(['pr', 'push']),
  labels: z.array(z.string()),
  primaryLabel: z.string().nullable(),
  modifiers: z.array(z.string()),
  runs: z.boolean(),
  reason: z.string(),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
  trimConc: z.boolean(),
  failFast: z.boolean(),
  agentxFast: z.boolean(),
  reuseEligible: z.boolean(),
  throughput: z.boolean().describe('false when evals-only suppresses the throughput jobs'),
  canary: z
    .strictObject({ bucket: z.string(), row: MatrixRowSchema })
    .nullable()
    .describe('the single-node point run first; null when there is no canary'),
  buckets: SweepBucketsSchema,
  remaining: z
    .record(z.string(), rows)
    .describe('single-node 1k1k/8k1k rows left after the canary is taken out'),
  families: z.array(JobFamilySchema),
});

export type SweepBuckets = z.infer<typeof SweepBucketsSchema>;
export type JobFamily = z.infer<typeof JobFamilySchema>;
export type SweepPlan = z.infer<typeof SweepPlanSchema>;
