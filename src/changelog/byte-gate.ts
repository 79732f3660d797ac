import { validateRawChange } from './byte-rule.ts';
import { compareEntries, DEFAULT_REPO, type PrContext } from './compare.ts';
import { ChangelogError } from './errors.ts';
import { parseChangelog } from './parse-file.ts';

/**
 * The byte gate: the library contract the reference's CI never runs (changelog-pr-spec §1.4–§1.6, §1.7's
 * "stricter byte gate"): both files parse, the entries compare in the PR's context (or main's), and the
 * raw change keeps history byte for byte. The first failure, with its line and fix, or what was appended.
 */

export type ByteGateResult =
  | { ok: true; appended: number; corrections: number }
  | { ok: false; message: string; line: number | null; hint: string | null };

export function checkByteGate(
  base: Buffer,
  head: Buffer,
  pr: PrContext,
  file: string,
  repo = DEFAULT_REPO,
): ByteGateResult {
  try {
    const baseEntries = parseChangelog(base, `${file} at the base`);
    const headEntries = parseChangelog(head, file);
    // With entries appended, the bytes are judged first (as the reference's verdicts are): an edit of
    // history is then named as such, not as the entry it happens to change.
    const added = headEntries.length - baseEntries.length;
    if (added > 0) validateRawChange(base, head, added, 0);
    const { appended, corrections } = compareEntries(baseEntries, headEntries, pr, repo);
    validateRawChange(base, head, appended.length, corrections);
    return { ok: true, appended: appended.length, corrections };
  } catch (err) {
    if (!(err instanceof ChangelogError)) throw err;
    return { ok: false, message: err.message, line: err.line, hint: err.hint ?? null };
  }
}
