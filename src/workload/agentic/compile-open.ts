import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import { tokenizerFingerprint } from '../fingerprint.ts';
import { defaultPromptCacheDir } from '../prompt-cache.ts';
import type { TextTokenizer } from '../types.ts';
import { type OpenedCache, openCompiledFile, writeCompiled } from './compile-cache.ts';
import { corpusHash } from './compile-hash.ts';
import { compileKey } from './compile-key.ts';
import { assembleTrace, compileTraceParts, type TraceParts } from './compile-trace.ts';
import type { CompiledCorpus, CompiledTrace } from './compile-types.ts';
import { buildWordPool } from './compile-words.ts';
import { type CorpusOptions, type DroppedTrace, newReport, noTraceLeft, parseTraceLine } from './corpus.ts';
import { TraceCorpusError, TraceUsageError } from './errors.ts';
import { indexLines, LineIndexer, type LineSpan, readSpan } from './line-index.ts';
import { MAX_LINE_BYTES } from './lines.ts';
import { traceContext } from './max-context.ts';

/**
 * A compiled corpus opened for a start that cannot wait for all of it: the first request of a replay
 * needs one trace, and a public-size corpus is GBs of JSON (seconds of parsing and checking). Opening
 * hashes the files (or finds their hash remembered) and, in the same pass, finds where each trace line
 * is; then a trace is read, validated and compiled when first asked for, in file order, and `complete()`
 * does the rest between the replay's work, validates every line and writes the compile cache. Warm (the
 * cache holds these bytes compiled), opening checks the cache file and decodes a trace when asked for.
 *
 * Validation is not dropped, only moved: a bad line is the same error (file:line, trace id, field) from
 * whichever of `getCompiled`, `getTrace` or `complete` reaches it first, and every later call throws it
 * again. A corpus with no trace left is the same error as `readCorpus`'s.
 */

export interface CompileOptions extends CorpusOptions {
  tokenizer: TextTokenizer;
  seed: number;
  /** Cache root: undefined = the prompt cache's (honours INFX_NO_CACHE), null = no cache. */
  cacheDir?: string | null;
}

export interface OpenedCorpus {
  /** The cache key ('' when not cacheable). */
  readonly key: string;
  /** Whether the compile cache held this corpus. */
  readonly fromCache: boolean;
  /** Each file's SHA-256 from the opening pass, in order; null when it did not hash (no cache). */
  readonly fileHashes: readonly string[] | null;
  readonly seed: number;
  readonly tokenizer: string;
  /** The filler words (compile-words.ts). */
  readonly words: readonly string[];
  /**
   * Trace lines: the non-blank lines, before `maxContext` drops any (an upper bound of the traces kept:
   * an index past the last answers undefined). From the cache, the traces kept plus those dropped, so a
   * replay's seeded order over `0 … lines − 1` is the same cold and warm.
   */
  readonly lines: number;
  /**
   * The i-th trace kept (0-based, file order), compiled; undefined past the last. Reads, validates and
   * compiles the lines up to it first. Throws a bad line's TraceCorpusError, or the empty-corpus one.
   */
  getCompiled(i: number): CompiledTrace | undefined;
  /**
   * `getCompiled(i)` without holding the event loop for the lines before it: one line at a time,
   * yielding between them (a lane that starts on a later trace waits while the others dispatch).
   */
  whenCompiled(i: number): Promise<CompiledTrace | undefined>;
  /** The i-th trace kept as its line parses (validated), read again on each call (a replay plans from it). */
  getTrace(i: number): AgenticTrace | undefined;
  /**
   * Every line read, validated and compiled (yielding to the event loop between traces), the compile
   * cache written: the whole corpus, as `compileCorpus` returns it. Rejects as `getCompiled` throws.
   */
  complete(): Promise<CompiledCorpus>;
}

interface Kept {
  parts: TraceParts | null;
  compiled: CompiledTrace | null;
  span: LineSpan;
}

export async function openCompiledCorpus(
  files: readonly string[],
  opts: CompileOptions,
): Promise<OpenedCorpus> {
  if (files.length === 0)
    throw new TraceUsageError('no trace files given: name one or more traces.jsonl files');
  const maxLineBytes = opts.maxLineBytes ?? MAX_LINE_BYTES;
  const maxContext = opts.maxContext ?? null;
  const root = opts.cacheDir === undefined ? defaultPromptCacheDir() : opts.cacheDir;
  const fingerprint = tokenizerFingerprint(opts.tokenizer);
  // The hashing pass indexes the lines too; a file whose hash was remembered is indexed only if needed.
  const indexers = files.map((file, i) => new LineIndexer(file, i, maxLineBytes));
  const indexed = files.map(() => false);
  const failed = files.map(() => false);
  const hashes: string[] = [];
  const corpus =
    root === null || fingerprint === null
      ? ''
      : await corpusHash(
          files,
          root,
          (i, chunk) => {
            indexed[i] = true;
            if (failed[i]) return;
            try {
              (indexers[i] as LineIndexer).push(chunk);
            } catch {
              failed[i] = true; // indexLines below throws it with the rest of the reader's errors.
            }
          },
          hashes,
        );
  const fileHashes = corpus !== '' && hashes.length === files.length ? hashes : null;
  const key = compileKey(corpus, fingerprint, opts.seed, maxContext);
  if (key !== '' && root !== null) {
    const hit = openCompiledFile(root, key);
    // An entry that does not say where its traces' lines are is one an older writer left: compile again.
    if (hit?.sources != null) return openWarm(files, key, hit, hit.sources, fileHashes);
  }
  const spans: LineSpan[] = [];
  for (const [i, file] of files.entries())
    spans.push(
      ...(indexed[i] && !failed[i]
        ? (indexers[i] as LineIndexer).finish()
        : await indexLines(file, i, maxLineBytes)),
    );
  return openCold(files, key, root, spans, opts, fileHashes);
}

/** The trace on `span`'s line, validated; null for a line blank but for non-ASCII spaces. */
function parseSpan(files: readonly string[], span: LineSpan): AgenticTrace | null {
  const file = files[span.file] as string;
  const text = readSpan(file, span);
  if (text.trim() === '') return null;
  return parseTraceLine(file, { lineNo: span.lineNo, text });
}

function openCold(
  files: readonly string[],
  key: string,
  root: string | null,
  spans: readonly LineSpan[],
  opts: CompileOptions,
  fileHashes: readonly string[] | null,
): OpenedCorpus {
  const maxContext = opts.maxContext ?? null;
  const words = buildWordPool(opts.tokenizer);
  const kept: Kept[] = [];
  const dropped: DroppedTrace[] = [];
  /**
   * Traces compiled ahead of the file order, by line (a replay's seeded order starts anywhere): with no
   * `maxContext` nothing is dropped, so the i-th kept trace is the i-th line but for a line of only
   * non-ASCII spaces, which then is an error rather than a shifted index.
   */
  const early = new Map<number, Kept>();
  let next = 0;
  let error: unknown = null;
  const fail = (err: unknown): never => {
    error = err;
    throw err;
  };
  // One line: read, validate, drop or compile. An error sticks: the line is never skipped.
  const step = (): void => {
    if (error !== null) throw error;
    const ahead = early.get(next);
    if (ahead !== undefined) {
      if (kept.length !== next)
        fail(
          blankLine(
            files,
            spans.find((s, j) => j < next && parseSpan(files, s) === null),
          ),
        );
      early.delete(next++);
      kept.push(ahead);
      return;
    }
    const span = spans[next] as LineSpan;
    try {
      const trace = parseSpan(files, span);
      next++;
      if (trace === null) {
        if (early.size > 0) fail(blankLine(files, span));
        return;
      }
      if (maxContext !== null) {
        const context = traceContext(trace);
        if (context > maxContext) {
          dropped.push({ file: files[span.file] as string, line: span.lineNo, id: trace.id, context });
          return;
        }
      }
      const parts = compileTraceParts(trace);
      kept.push({ parts, compiled: assembleTrace(parts), span });
    } catch (err) {
      error = err;
      throw err;
    }
  };
  const report = () => ({ ...newReport(files, opts), traces: kept.length, dropped });
  const reach = (i: number): Kept | undefined => {
    if (error !== null) throw error;
    if (!Number.isInteger(i) || i < 0) return undefined;
    if (maxContext === null && kept.length === next && i > next && i < spans.length) {
      const ahead = early.get(i);
      if (ahead !== undefined) return ahead;
      const span = spans[i] as LineSpan;
      try {
        const trace = parseSpan(files, span);
        if (trace !== null) {
          const parts = compileTraceParts(trace);
          const k: Kept = { parts, compiled: assembleTrace(parts), span };
          early.set(i, k);
          return k;
        }
      } catch (err) {
        fail(err);
      }
    }
    while (kept.length <= i && next < spans.length) step();
    if (kept.length === 0 && next >= spans.length) throw noTraceLeft(report());
    return kept[i];
  };
  let done: Promise<CompiledCorpus> | null = null;
  const complete = async (): Promise<CompiledCorpus> => {
    while (next < spans.length) {
      step();
      await yieldToLoop();
    }
    reach(0);
    const traces = kept.map((k) => k.parts as TraceParts);
    if (key !== '' && root !== null)
      writeCompiled(root, key, {
        seed: opts.seed,
        tokenizer: opts.tokenizer.name,
        words,
        dropped,
        traces,
        sources: kept.map((k) => k.span),
      });
    return {
      key,
      seed: opts.seed,
      tokenizer: opts.tokenizer.name,
      words,
      traces: kept.map((k) => k.compiled as CompiledTrace),
      dropped,
      fromCache: false,
    };
  };
  const whenCompiled = async (i: number): Promise<CompiledTrace | undefined> => {
    const direct = maxContext === null && kept.length === next;
    while (!direct && error === null && Number.isInteger(i) && kept.length <= i && next < spans.length) {
      step();
      await yieldToLoop();
    }
    return reach(i)?.compiled ?? undefined;
  };
  return {
    key,
    fromCache: false,
    fileHashes,
    seed: opts.seed,
    tokenizer: opts.tokenizer.name,
    words,
    lines: spans.length,
    getCompiled: (i) => reach(i)?.compiled ?? undefined,
    whenCompiled,
    getTrace(i) {
      const k = reach(i);
      return k === undefined ? undefined : (parseSpan(files, k.span) ?? undefined);
    },
    complete() {
      done ??= complete();
      return done;
    },
  };
}

function blankLine(files: readonly string[], span: LineSpan | undefined): TraceCorpusError {
  const where = span === undefined ? '' : `${files[span.file]}:${span.lineNo}: `;
  return new TraceCorpusError(
    `${where}a line of only non-ASCII spaces among the traces (they were being read out of order)`,
    'remove the line',
  );
}

function openWarm(
  files: readonly string[],
  key: string,
  hit: OpenedCache,
  sources: readonly LineSpan[],
  fileHashes: readonly string[] | null,
): OpenedCorpus {
  const compiled: (CompiledTrace | undefined)[] = [];
  const get = (i: number): CompiledTrace | undefined => {
    if (!Number.isInteger(i) || i < 0 || i >= hit.traceCount) return undefined;
    let trace = compiled[i];
    if (trace === undefined) {
      // The digest held, so this is a writer's bug: compile the trace from its line rather than fail.
      const parts =
        hit.trace(i) ?? compileTraceParts(parseSpan(files, sources[i] as LineSpan) as AgenticTrace);
      trace = assembleTrace(parts);
      compiled[i] = trace;
    }
    return trace;
  };
  let done: Promise<CompiledCorpus> | null = null;
  return {
    key,
    fromCache: true,
    fileHashes,
    seed: hit.seed,
    tokenizer: hit.tokenizer,
    words: hit.words,
    lines: hit.traceCount + hit.dropped.length,
    getCompiled: get,
    whenCompiled: async (i) => get(i),
    getTrace(i) {
      const span = sources[i];
      return span === undefined || !Number.isInteger(i) ? undefined : (parseSpan(files, span) ?? undefined);
    },
    complete() {
      done ??= (async () => {
        const traces: CompiledTrace[] = [];
        for (let i = 0; i < hit.traceCount; i++) traces.push(get(i) as CompiledTrace);
        return {
          key,
          seed: hit.seed,
          tokenizer: hit.tokenizer,
          words: hit.words,
          traces,
          dropped: hit.dropped,
          fromCache: true,
        };
      })();
      return done;
    },
  };
}
