import * as z from 'zod';
import { SCENARIO_TYPES } from './enums.ts';
import { bool, closed, list, nonEmptyStr, posInt, report, str } from './zod-helpers.ts';

/** One `perf-changelog.yaml` entry (changelog-pr-spec §1.2; matrix-spec §8.1). */
export const ChangelogEntrySchema = closed({
  'config-keys': list(nonEmptyStr()).min(1, { error: 'must name at least one config key or pattern' }),
  description: list(str()).min(1, { error: 'must have at least one line' }),
  'pr-link': str(),
  'evals-only': bool().default(false).describe('suppress throughput; run the default eval subset'),
  'all-evals': bool().default(false).describe('expand evals to every eligible row and suppress throughput'),
  'append-only': bool().default(false).describe('run only points newly added relative to the base revision'),
  'eval-min-prefill-ep': posInt()
    .optional()
    .describe('drop multi-node eval rows whose prefill.ep is below this'),
  'scenario-type': list(z.enum(SCENARIO_TYPES))
    .min(1, { error: 'must not be empty (omit it for both)' })
    .optional(),
}).superRefine((v, ctx) => {
  if (v['append-only'] && (v['evals-only'] || v['all-evals'] || v['eval-min-prefill-ep'] !== undefined)) {
    report(ctx, {
      rule: 'changelog.append-only-evals',
      path: ['append-only'],
      message: 'append-only cannot be combined with eval selection fields',
    });
  }
});

export type ChangelogEntryInput = z.input<typeof ChangelogEntrySchema>;
export type ChangelogEntry = z.output<typeof ChangelogEntrySchema>;

/**
 * The changelog entries that selected a run, as the changelog processor prints them under
 * `changelog_metadata` (changelog-pr-spec §2.7): the revisions compared and the entries added between them.
 */
export const ChangelogMetadataSchema = z.strictObject({
  base_ref: z.string().min(1),
  head_ref: z.string().min(1),
  entries: z.array(ChangelogEntrySchema).min(1, { error: 'must hold at least one changelog entry' }),
});
export type ChangelogMetadata = z.output<typeof ChangelogMetadataSchema>;
