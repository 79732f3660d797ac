import type * as z from 'zod';
import { type AgenticTrace, AgenticTraceSchema } from '../../schema/agentic-trace.ts';
import { TraceCorpusError, TraceUsageError } from './errors.ts';
import { type Line, MAX_LINE_BYTES, readLines } from './lines.ts';
import { traceContext } from './max-context.ts';
import { isTrace } from './trace-check.ts';

/**
 * Reading a trace corpus: `traces.jsonl` files, one trace per line, streamed one trace at a time so that
 * memory is bounded by the largest trace, not the corpus. A line that is not a trace stops the read with
 * its file:line and the field; blank lines are skipped; `maxContext` drops whole traces (counted); a
 * corpus with no trace left is an error.
 */

export interface CorpusOptions {
  /** Drop traces whose `max(in + out)` exceeds this many tokens; null or absent: keep all. */
  maxContext?: number | null;
  maxLineBytes?: number;
}

export interface DroppedTrace {
  file: string;
  line: number;
  id: string;
  context: number;
}

/** What a read found, filled in as it goes and complete once the traces have all been taken. */
export interface CorpusReport {
  files: string[];
  /** Traces kept. */
  traces: number;
  /** Traces left out by `maxContext`, in file order. */
  dropped: DroppedTrace[];
  maxContext: number | null;
}

export const FORMAT_HINT =
  'each line of a traces.jsonl file is one trace in the Weka kv-cache-tester format (client-metrics §2.2): ' +
  '{id, block_size, tool_tokens, system_tokens, requests: [{type: "n"|"s", t, in, out, hash_ids, …} | ' +
  '{type: "subagent", t, agent_id, requests: […]}]}';

/** One zod issue as a reader can act on it: the field's path in the trace, and what is wrong there. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  const discriminator = (issue as { discriminator?: string }).discriminator;
  // zod puts a discriminator's issue at the entry or at the field itself, depending on the version.
  const field =
    discriminator === undefined || issue.path.at(-1) === discriminator
      ? path
      : [path, discriminator].filter(Boolean).join('.');
  const what =
    issue.code === 'invalid_type' && /received undefined$/.test(issue.message)
      ? `missing (expected ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`})`
      : discriminator !== undefined
        ? `must be one of "n", "s", "subagent"`
        : issue.message.replace(/^Invalid input: /, '');
  return `${field || '(the line)'}: ${what}`;
}

/** Parses one line as a trace, or throws naming file:line, the trace's id where it has one, and the field. */
export function parseTraceLine(file: string, line: Line): AgenticTrace {
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (err) {
    throw new TraceCorpusError(
      `${file}:${line.lineNo}: not JSON (${printable((err as Error).message)})`,
      FORMAT_HINT,
    );
  }
  return checkTrace(file, line.lineNo, value);
}

/** `value` (a parsed line) as a trace, or the error naming file:line, the trace's id and the field. */
export function checkTrace(file: string, lineNo: number, value: unknown): AgenticTrace {
  // The fast check accepts only what the schema accepts; zod words what it refuses (trace-check.ts).
  if (isTrace(value)) return value;
  const parsed = AgenticTraceSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const id = (value as { id?: unknown } | null)?.id;
  const issues = parsed.error.issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new TraceCorpusError(
    `${file}:${lineNo}:${typeof id === 'string' ? ` trace ${id}:` : ''} ${describeIssue(issues[0] as z.core.$ZodIssue)}${more}`,
    FORMAT_HINT,
  );
}

/** The traces of `files`, in order, with `report` filled in along the way. */
export async function* readCorpus(
  files: readonly string[],
  options: CorpusOptions = {},
  report: CorpusReport = newReport(files, options),
): AsyncGenerator<AgenticTrace> {
  if (files.length === 0)
    throw new TraceUsageError('no trace files given: name one or more traces.jsonl files');
  const maxContext = options.maxContext ?? null;
  for (const file of files) {
    for await (const line of readLines(file, options.maxLineBytes ?? MAX_LINE_BYTES)) {
      if (line.text.trim() === '') continue;
      const trace = parseTraceLine(file, line);
      if (maxContext !== null) {
        const context = traceContext(trace);
        if (context > maxContext) {
          report.dropped.push({ file, line: line.lineNo, id: trace.id, context });
          continue;
        }
      }
      report.traces++;
      yield trace;
    }
  }
  if (report.traces === 0) throw noTraceLeft(report);
}

/** The error of a read that kept no trace: an empty corpus, or every trace over `--max-context`. */
export function noTraceLeft(report: CorpusReport): TraceCorpusError {
  const { files, dropped, maxContext } = report;
  if (dropped.length > 0)
    return new TraceCorpusError(
      `every trace of ${files.join(', ')} needs more context than --max-context ${maxContext}: ` +
        `${dropped.length} dropped, none left`,
      `raise --max-context (the smallest trace needs ${Math.min(...dropped.map((d) => d.context))} tokens)`,
    );
  return new TraceCorpusError(`the corpus is empty: no trace in ${files.join(', ')}`, FORMAT_HINT);
}

export function newReport(files: readonly string[], options: CorpusOptions = {}): CorpusReport {
  return { files: [...files], traces: 0, dropped: [], maxContext: options.maxContext ?? null };
}

/** The whole corpus in memory (tests, small corpora): the traces and the report. */
export async function loadCorpus(
  files: readonly string[],
  options: CorpusOptions = {},
): Promise<{ traces: AgenticTrace[]; report: CorpusReport }> {
  const report = newReport(files, options);
  const traces: AgenticTrace[] = [];
  for await (const trace of readCorpus(files, options, report)) traces.push(trace);
  return { traces, report };
}

/** `3 traces dropped by --max-context 256000 (the longest needs 301,248 tokens)`: for stderr. */
export function droppedNote(report: CorpusReport): string | null {
  if (report.dropped.length === 0) return null;
  const longest = Math.max(...report.dropped.map((d) => d.context));
  const n = report.dropped.length;
  return `${n} trace${n === 1 ? '' : 's'} over --max-context ${report.maxContext} dropped (the longest needs ${longest} tokens)`;
}

/** JSON.parse quotes the text it choked on: a binary file's bytes would reach the terminal as they are. */
const printable = (text: string) =>
  text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
    /[\u0000-\u001f\u007f-\u009f\ufffd]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
