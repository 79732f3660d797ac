import type * as z from 'zod';
import type { Diagnostic, DocPath } from '../schema/diagnostic.ts';
import { InfxError } from '../schema/errors.ts';
import type { SourceMap } from './yaml-source.ts';

/** Turning schema issues into diagnostics that point into the file, and printing them. */

export class ConfigError extends InfxError {
  readonly diagnostics: Diagnostic[];
  constructor(summary: string, diagnostics: Diagnostic[]) {
    super(summary);
    this.name = 'ConfigError';
    this.diagnostics = diagnostics;
  }
}

function ruleOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return 'key.unknown';
    case 'invalid_type':
      return issue.input === undefined ? 'key.required' : 'value.type';
    case 'invalid_value':
      // A literal (e.g. `multinode: false`) that is simply absent is a missing key, not a wrong value.
      return issue.input === undefined ? 'key.required' : 'value.enum';
    case 'too_small':
      return 'value.range';
    case 'too_big':
      // Strings and lists over their length bounds, and integers beyond the safe range (a 23-digit int).
      if (issue.origin === 'string') return 'value.too-long';
      if (issue.origin === 'array') return 'list.too-long';
      if (issue.origin === 'int') return 'value.too-large';
      return 'value.range';
    case 'custom': {
      const rule = (issue.params as { rule?: unknown } | undefined)?.rule;
      return typeof rule === 'string' ? rule : 'value.invalid';
    }
    default:
      return `value.${issue.code}`;
  }
}

/** Python's names for YAML values, as the reference's messages use them (zod stays unloaded here). */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'mapping' : typeof v;
}

export interface IssueContext {
  file: string;
  source: SourceMap;
  /** Prepended to every issue path (e.g. the config key the entry was validated under). */
  prefix: DocPath;
}

export function issueToDiagnostics(issue: z.core.$ZodIssue, ctx: IssueContext): Diagnostic[] {
  const base = [...ctx.prefix, ...(issue.path as DocPath)];
  const rule = ruleOf(issue);
  if (issue.code === 'unrecognized_keys') {
    const path = [...base, issue.keys[0] ?? ''];
    return [at(ctx, path, { key: true }, rule, issue.message)];
  }
  const field = base[base.length - 1];
  let message = issue.message;
  // zod's own words for a closed object given something else ("Invalid input: expected object, …").
  if (issue.code === 'invalid_type' && issue.expected === 'object' && issue.input !== undefined)
    message = `must be a mapping, got ${typeName(issue.input)}`;
  if (typeof field === 'string') {
    if (rule === 'key.required') message = `required key '${field}' is missing`;
    else if (rule.startsWith('value.') || rule.startsWith('list.')) message = `'${field}' ${message}`;
  }
  return [at(ctx, base, {}, rule, clip(message))];
}

/** Messages quote values; a hostile value must not make a diagnostic megabytes long. */
export const MAX_MESSAGE_CHARS = 1_000;

export function clip(message: string): string {
  if (message.length <= MAX_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_MESSAGE_CHARS)}… (${message.length - MAX_MESSAGE_CHARS} more characters)`;
}

/** Drops repeats: one bad value can fail two checks with the same message (e.g. the safe-integer range and a bound). */
export function dedupe(ds: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const key = `${d.file}\u0000${d.line}\u0000${d.column}\u0000${d.rule}\u0000${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function at(
  ctx: Pick<IssueContext, 'file' | 'source'>,
  path: DocPath,
  opts: { key?: boolean },
  rule: string,
  message: string,
  severity: Diagnostic['severity'] = 'error',
): Diagnostic {
  const pos = ctx.source.locate(path, opts);
  return {
    severity,
    rule,
    message,
    file: ctx.file,
    line: pos?.line ?? null,
    column: pos?.column ?? null,
    path,
  };
}

export function formatPath(path: DocPath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line !== null ? `${d.file}:${d.line}:${d.column ?? 1}` : d.file;
  const path = d.path.length > 0 ? ` ${formatPath(d.path)}:` : '';
  return `${where}: ${d.severity} [${d.rule}]${path} ${d.message}`;
}

export const errorsOf = (ds: readonly Diagnostic[]) => ds.filter((d) => d.severity === 'error');

/** Reading order: files as first seen, then line and column; diagnostics without a position first. */
export function sortDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  const fileOrder = new Map<string, number>();
  for (const d of ds) if (!fileOrder.has(d.file)) fileOrder.set(d.file, fileOrder.size);
  return [...ds].sort(
    (a, b) =>
      fileOrder.get(a.file)! - fileOrder.get(b.file)! ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}
