import { createHash } from 'node:crypto';
import type { TextTokenizer } from './types.ts';

/** A loaded tokenizer plus what identifies it for caches of prompts built with it. */
export interface LoadedTokenizer extends TextTokenizer {
  /** Hash of the tokenizer's files (or built-in name) and of the tokenizer library versions. */
  readonly fingerprint: string;
}

/**
 * Versions of the libraries that tokenize and render templates (pinned in package.json; a test checks
 * they match what is installed). They are part of every fingerprint: a new library version may tokenize
 * differently, so prompt caches built with the old one must not be reused.
 */
export const TOKENIZER_LIBRARIES = {
  'gpt-tokenizer': '4.0.0',
  '@huggingface/tokenizers': '0.2.0',
  '@huggingface/jinja': '0.5.11',
} as const;

export function fingerprintOf(parts: readonly (string | null)[]): string {
  const hash = createHash('sha256').update(JSON.stringify(TOKENIZER_LIBRARIES));
  for (const p of parts) hash.update(p === null ? '\0\u0001' : `\0${p}`);
  return hash.digest('hex').slice(0, 32);
}

/** The fingerprint of a tokenizer from `loadTokenizer`; null for any other `TextTokenizer` (not cacheable). */
export function tokenizerFingerprint(tokenizer: TextTokenizer): string | null {
  const fp = (tokenizer as Partial<LoadedTokenizer>).fingerprint;
  return typeof fp === 'string' && fp.length > 0 ? fp : null;
}
