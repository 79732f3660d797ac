import yaml from 'js-yaml';
import { YAML11_SCHEMA } from '../config/yaml11.ts';
import { type ChangelogEntry, ChangelogEntrySchema } from '../schema/changelog-entry.ts';
import { ChangelogError } from './errors.ts';
import { issuesText } from './parse-file.ts';

/**
 * The entries a change adds to the changelog, as the reference's CI gate reads them (changelog-pr-spec
 * §1.7, §2.1): the added lines of the two-tree diff, joined and parsed as YAML. A removed line with
 * anything but whitespace fails, whatever the byte contract would allow (a historical pr-link correction
 * or a stale branch shows up this way).
 */

export interface DiffLines {
  added: string[];
  removed: string[];
}

/** The added and removed lines of a unified diff's hunks (headers and context left out). */
export function diffLines(diff: string): DiffLines {
  const added: string[] = [];
  const removed: string[] = [];
  let inHunk = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (line.startsWith('diff --git')) inHunk = false;
    else if (!inHunk) continue;
    else if (line.startsWith('+')) added.push(line.slice(1));
    else if (line.startsWith('-')) removed.push(line.slice(1));
  }
  return { added, removed };
}

/** The entries added by `diff` of `file`, validated; the reference's messages where it has one. */
export function addedEntries(diff: string, file: string): ChangelogEntry[] {
  const { added, removed } = diffLines(diff);
  const deleted = removed.find((l) => l.trim() !== '');
  if (deleted !== undefined)
    throw new ChangelogError(
      `Deletions are not allowed in ${file}. Only additions to the changelog are permitted. Found deleted line: ${deleted}`,
    );
  const text = added.join('\n');
  if (text.trim() === '') throw new ChangelogError('No additions found in the changelog file.');
  let parsed: unknown;
  try {
    // PyYAML's YAML 1.1 as the reference reads it; js-yaml rejects duplicate keys.
    parsed = yaml.load(text, { schema: YAML11_SCHEMA });
  } catch (err) {
    throw new ChangelogError(
      `the lines added to ${file} are not valid YAML: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  if (parsed === null || parsed === undefined || (Array.isArray(parsed) && parsed.length === 0))
    throw new ChangelogError('No valid YAML entries found in the changelog additions.');
  if (!Array.isArray(parsed))
    throw new ChangelogError(
      `the lines added to ${file} parse as one ${typeof parsed}, not a list of entries: each entry starts with '- config-keys:'`,
    );
  return parsed.map((item, i) => {
    const r = ChangelogEntrySchema.safeParse(item);
    if (!r.success)
      throw new ChangelogError(
        `added entry ${i + 1} of ${file} fails ChangelogEntry validation: ${issuesText(r.error)}`,
      );
    return r.data;
  });
}
