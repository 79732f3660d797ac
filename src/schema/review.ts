import * as z from 'zod';

/**
 * What `infx review` reports (src/review): a deterministic review of a config change between two git
 * revisions, one finding per rule and place. `infx review --format json` prints a ReviewReport.
 */

export const REVIEW_SEVERITIES = ['blocking', 'warning'] as const;

export const ReviewFindingSchema = z.strictObject({
  /** blocking: the change must not merge as it is (exit 1); warning: merge only knowingly. */
  severity: z.enum(REVIEW_SEVERITIES),
  /** Stable rule id (changelog.missing, changelog.gate, changelog.byte-rule, evals.grouping-collision, check.<rule>, pr-body.*). */
  rule: z.string(),
  /** The file the finding is about, relative to the work tree; null: the change as a whole. */
  file: z.string().nullable(),
  /** 1-based line in the head revision's file; null when no one line is at fault. */
  line: z.int().nullable(),
  /** The master config key, for findings about one config. */
  configKey: z.string().nullable(),
  message: z.string(),
  /** How to fix it. */
  fix: z.string().nullable(),
});
export type ReviewFinding = z.infer<typeof ReviewFindingSchema>;

export const ReviewReportSchema = z.strictObject({
  schemaVersion: z.literal(1),
  baseRef: z.string(),
  headRef: z.string(),
  /** Files the change touches, and the master config keys whose entries differ base → head. */
  changedFiles: z.array(z.string()),
  changedConfigs: z.array(z.string()),
  blocking: z.int(),
  warnings: z.int(),
  findings: z.array(ReviewFindingSchema),
});
export type ReviewReport = z.infer<typeof ReviewReportSchema>;
