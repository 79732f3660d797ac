import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import { type CompileOptions, openCompiledCorpus } from './compile-open.ts';
import { assembleTrace, compileTraceParts, type TraceParts } from './compile-trace.ts';
import type { CompiledCorpus } from './compile-types.ts';
import { buildWordPool } from './compile-words.ts';
import type { DroppedTrace } from './corpus.ts';

/**
 * Compiling an agentic corpus (client-metrics §2.3): once per (corpus bytes, tokenizer, seed), cached on
 * disk by content hash. The tokenizer is used here only, to pick the filler words; replaying a compiled
 * corpus never tokenizes (compile-body.ts). A replay's start opens the corpus with `openCompiledCorpus`
 * (compile-open.ts) instead: one trace compiled when first asked for, the rest later.
 */

export { COMPILER_VERSION } from './compile-key.ts';
export type { CompileOptions, OpenedCorpus } from './compile-open.ts';
export { openCompiledCorpus } from './compile-open.ts';

/** Compiles traces already in memory (no cache). */
export function compileTraces(
  traces: Iterable<AgenticTrace>,
  opts: Pick<CompileOptions, 'tokenizer' | 'seed'>,
): CompiledCorpus {
  const parts: TraceParts[] = [];
  for (const trace of traces) parts.push(compileTraceParts(trace));
  return finish('', opts.seed, opts.tokenizer.name, buildWordPool(opts.tokenizer), [], parts, false);
}

/**
 * Compiles the corpus of `files`, or reads it from the cache when these exact bytes were compiled before:
 * all of it at once (openCompiledCorpus gives one trace at a time, for a fast start).
 */
export async function compileCorpus(files: readonly string[], opts: CompileOptions): Promise<CompiledCorpus> {
  return (await openCompiledCorpus(files, opts)).complete();
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
