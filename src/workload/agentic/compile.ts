import { createHash } from 'node:crypto';
import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import { tokenizerFingerprint } from '../fingerprint.ts';
import { defaultPromptCacheDir } from '../prompt-cache.ts';
import type { TextTokenizer } from '../types.ts';
import { readCompiled, writeCompiled } from './compile-cache.ts';
import { corpusHash } from './compile-hash.ts';
import { assembleTrace, compileTraceParts, type TraceParts } from './compile-trace.ts';
import type { CompiledCorpus } from './compile-types.ts';
import { buildWordPool } from './compile-words.ts';
import { type CorpusOptions, type DroppedTrace, newReport, readCorpus } from './corpus.ts';

/**
 * Compiling an agentic corpus (client-metrics §2.3): once per (corpus bytes, tokenizer, seed), cached on
 * disk by content hash. The tokenizer is used here only, to pick the filler words; replaying a compiled
 * corpus never tokenizes (compile-body.ts).
 */

/** Bump when anything that changes compiled output changes (the message rules, block texts, layout). */
export const COMPILER_VERSION = 1;

export interface CompileOptions extends CorpusOptions {
  tokenizer: TextTokenizer;
  seed: number;
  /** Cache root: undefined = the prompt cache's (honours INFX_NO_CACHE), null = no cache. */
  cacheDir?: string | null;
}

/** Compiles traces already in memory (no cache). */
export function compileTraces(
  traces: Iterable<AgenticTrace>,
  opts: Pick<CompileOptions, 'tokenizer' | 'seed'>,
): CompiledCorpus {
  const parts: TraceParts[] = [];
  for (const trace of traces) parts.push(compileTraceParts(trace));
  return finish('', opts.seed, opts.tokenizer.name, buildWordPool(opts.tokenizer), [], parts, false);
}

/** Compiles the corpus of `files`, or reads it from the cache when these exact bytes were compiled before. */
export async function compileCorpus(files: readonly string[], opts: CompileOptions): Promise<CompiledCorpus> {
  const root = opts.cacheDir === undefined ? defaultPromptCacheDir() : opts.cacheDir;
  const fingerprint = tokenizerFingerprint(opts.tokenizer);
  const corpus = root === null || fingerprint === null ? '' : await corpusHash(files, root);
  const key =
    corpus === ''
      ? ''
      : createHash('sha256')
          .update(
            JSON.stringify({
              compiler: COMPILER_VERSION,
              corpus,
              tokenizer: fingerprint,
              seed: opts.seed,
              maxContext: opts.maxContext ?? null,
            }),
          )
          .digest('hex');
  if (key !== '' && root !== null) {
    const hit = readCompiled(root, key);
    if (hit !== null) return finish(key, hit.seed, hit.tokenizer, hit.words, hit.dropped, hit.traces, true);
  }
  const parts: TraceParts[] = [];
  const report = newReport(files, opts);
  for await (const trace of readCorpus(files, opts, report)) parts.push(compileTraceParts(trace));
  const words = buildWordPool(opts.tokenizer);
  if (key !== '' && root !== null)
    writeCompiled(root, key, {
      seed: opts.seed,
      tokenizer: opts.tokenizer.name,
      words,
      dropped: report.dropped,
      traces: parts,
    });
  return finish(key, opts.seed, opts.tokenizer.name, words, report.dropped, parts, false);
}

function finish(
  key: string,
  seed: number,
  tokenizer: string,
  words: string[],
  dropped: DroppedTrace[],
  parts: TraceParts[],
  fromCache: boolean,
): CompiledCorpus {
  return { key, seed, tokenizer, words, traces: parts.map(assembleTrace), dropped, fromCache };
}
