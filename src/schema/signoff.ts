import * as z from 'zod';

/** What `infx signoff verify` reports: each check of a CODEOWNER's sign-off, and the verdict. */

export const SignoffCheckSchema = z.strictObject({
  /** trigger, checklist, runs, signed, codeowner. */
  id: z.string(),
  /** na counts as a pass. */
  status: z.enum(['pass', 'fail', 'na']),
  message: z.string(),
});
export type SignoffCheck = z.infer<typeof SignoffCheckSchema>;

export const SignoffReportSchema = z.strictObject({
  schemaVersion: z.literal(1),
  /** The head commit the verdict is pinned to, when given. */
  sha: z.string().nullable(),
  author: z.string(),
  pass: z.boolean(),
  /** The workflow run ids the comment links. */
  runIds: z.array(z.string()),
  checks: z.array(SignoffCheckSchema),
});
export type SignoffReport = z.infer<typeof SignoffReportSchema>;
