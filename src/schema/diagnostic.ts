import * as z from 'zod';

/** A path into a parsed document: mapping keys and sequence indices, from the root. */
export const DocPathSchema = z.array(z.union([z.string(), z.number().int()]));
export type DocPath = z.infer<typeof DocPathSchema>;

/**
 * One problem found in an input file. `rule` is a stable identifier (documented in the README) so that
 * tools and tests can match on it; `message` says what is wrong and how to fix it.
 */
export const DiagnosticSchema = z.strictObject({
  severity: z.enum(['error', 'warning']),
  rule: z.string(),
  message: z.string(),
  file: z.string(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  path: DocPathSchema,
});
export type Diagnostic = z.infer<typeof DiagnosticSchema>;
