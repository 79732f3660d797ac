import { createHash } from 'node:crypto';

/**
 * The compile cache's key: what the compiled output depends on, and nothing else — the corpus bytes (a
 * content hash, compile-hash.ts), the tokenizer, the seed, the context cap and the compiler version.
 */

/** Bump when anything that changes compiled output changes (the message rules, block texts, layout). */
export const COMPILER_VERSION = 1;

/** '' (no caching) when the corpus hash or the tokenizer's fingerprint is unknown. */
export function compileKey(
  corpus: string,
  tokenizer: string | null,
  seed: number,
  maxContext: number | null,
): string {
  if (corpus === '' || tokenizer === null) return '';
  return createHash('sha256')
    .update(JSON.stringify({ compiler: COMPILER_VERSION, corpus, tokenizer, seed, maxContext }))
    .digest('hex');
}
