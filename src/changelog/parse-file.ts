import yaml from 'js-yaml';
import { YAML11_SCHEMA } from '../config/yaml11.ts';
import { ChangelogEntrySchema } from '../schema/changelog-entry.ts';
import { ChangelogError } from './errors.ts';

/**
 * A whole `perf-changelog.yaml` read as the reference's byte gate reads it (changelog-pr-spec §1.1,
 * §1.6): the checks run in its order, each message prefixed with the caller's label, and the raw
 * mappings returned. A failure that sits on one line carries it (`ChangelogError.line`).
 */

export const ENTRY_START = '- config-keys:';

/** The 1-based line of byte offset `at`. */
export function lineAt(bytes: Buffer, at: number): number {
  let line = 1;
  for (let i = 0; i < at && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

function firstByte(bytes: Buffer, value: number): number | null {
  const i = bytes.indexOf(value);
  return i < 0 ? null : lineAt(bytes, i);
}

/** Lines of `text` that start an entry. */
export function entryStartLines(text: string): number[] {
  const out: number[] = [];
  text.split('\n').forEach((l, i) => {
    if (l.startsWith(ENTRY_START)) out.push(i + 1);
  });
  return out;
}

/** A schema failure's issues on one line: `path: message; …`. */
export function issuesText(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

export function parseChangelog(bytes: Buffer, label: string): Record<string, unknown>[] {
  const fail = (message: string, line: number | null = null): never => {
    throw new ChangelogError(`${label} ${message}`, line);
  };
  if (bytes.length === 0 || bytes[bytes.length - 1] !== 0x0a)
    fail('does not end with a newline', lineAt(bytes, bytes.length));
  const cr = firstByte(bytes, 0x0d);
  if (cr !== null) fail('contains CR characters', cr);
  const tab = firstByte(bytes, 0x09);
  if (tab !== null) fail('contains tabs', tab);
  const nul = firstByte(bytes, 0x00);
  if (nul !== null) fail('contains NUL bytes', nul);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    return fail(`is not UTF-8: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = yaml.load(text, { schema: YAML11_SCHEMA });
  } catch (err) {
    const mark = (err as { mark?: { line?: number } }).mark;
    // PyYAML's wording for a repeated key, which the reference's messages (and tests) use.
    const reason = (err as Error).message
      .split('\n')[0]
      ?.replace('duplicated mapping key', 'found duplicate key');
    return fail(`is not valid YAML: ${reason}`, mark?.line === undefined ? null : mark.line + 1);
  }
  if (!Array.isArray(doc)) return fail('root must be a YAML list');
  const starts = entryStartLines(text);
  if (starts.length !== doc.length)
    fail(`has ${starts.length} top-level config entries but YAML parsed ${doc.length} entries`);
  doc.forEach((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      fail(`entry ${i + 1} is not a mapping`, starts[i] ?? null);
    const r = ChangelogEntrySchema.safeParse(entry);
    if (!r.success) {
      fail(`entry ${i + 1} fails ChangelogEntry validation: ${issuesText(r.error)}`, starts[i] ?? null);
    }
  });
  return doc as Record<string, unknown>[];
}
