import type { TextTokenizer } from '../types.ts';
import { TraceCorpusError } from './errors.ts';

/**
 * The filler vocabulary of compiled agentic prompts: lowercase words that are one token each in the served
 * model's tokenizer when written with a leading space (" word"). A run of them separated by single spaces
 * splits into one pre-token per word under every byte-level BPE pre-tokenizer we know of (o200k, Llama 3,
 * Qwen, DeepSeek) and under SentencePiece's metaspace, so n words are exactly n tokens and no two blocks
 * can merge across their boundary: a block of `block_size` words is token-exact wherever it sits. The words
 * are ASCII letters only, so their JSON encoding is their text (nothing to escape on the hot path).
 */

/** The pool is a power of two so a hash picks a word with a mask; 4096 words give 12 bits a token. */
export const WORD_POOL_SIZE = 4096;
const WORD = /^[a-z]{3,9}$/;
/**
 * Fewest words that still make every block distinct: 16^64 texts a 64-token block, so two hash ids of a
 * trace meet on the same text with probability ~2^-256 (a tiny test vocabulary passes; real ones have
 * thousands).
 */
export const MIN_WORDS = 16;

/**
 * Scans the vocabulary in id order (deterministic for a tokenizer) for WORD_POOL_SIZE such words, each
 * checked alone and as a pair. Throws when the tokenizer has too few (not a tokenizer we can build for).
 */
export function buildWordPool(tokenizer: TextTokenizer, size = WORD_POOL_SIZE): string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  for (let id = 0; id < tokenizer.vocabSize && words.length < size; id++) {
    const w = tokenizer.decode([id]).trim();
    if (!WORD.test(w) || seen.has(w)) continue;
    seen.add(w);
    if (tokenizer.encode(` ${w}`).length !== 1) continue;
    if (tokenizer.encode(` ${w} ${w}`).length !== 2) continue;
    words.push(w);
  }
  if (words.length < MIN_WORDS)
    throw new TraceCorpusError(
      `tokenizer ${tokenizer.name} has only ${words.length} single-token lowercase words; agentic prompts need ` +
        `at least ${MIN_WORDS} to build token-exact blocks`,
      'use the served model directory as the tokenizer (a byte-level BPE or SentencePiece vocabulary)',
    );
  checkRuns(tokenizer, words);
  return words;
}

/**
 * Single words and pairs passing does not prove that a long run cannot merge (a vocabulary without a
 * whitespace pre-tokenizer might hold a "▁a▁b" piece): a run through the whole pool, in a shuffled order,
 * must count one token a word.
 */
function checkRuns(tokenizer: TextTokenizer, words: readonly string[]): void {
  const order = words.map((_, i) => (i * 2654435761) % words.length);
  const run = [...words, ...order.map((i) => words[i] as string)];
  const tokens = tokenizer.encode(run.map((w) => ` ${w}`).join('')).length;
  if (tokens !== run.length)
    throw new TraceCorpusError(
      `tokenizer ${tokenizer.name} merges words across spaces (${run.length} single-token words encode to ` +
        `${tokens} tokens together): token-exact agentic blocks cannot be built with it`,
      'use the served model directory as the tokenizer (a byte-level BPE or SentencePiece vocabulary)',
    );
}
