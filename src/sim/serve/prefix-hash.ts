import type { Endpoint } from '../openai-wire.ts';
import { PromptIds } from './prompt-ids.ts';

/** The generation endpoints of `infx sim serve`, by path. */
export const GENERATION_PATHS: Readonly<Record<string, Endpoint>> = {
  '/v1/completions': 'completions',
  '/v1/chat/completions': 'chat',
};

/**
 * Prefix-cache keys of a prompt: one per full block of token ids, each covering the whole prompt up to
 * the end of its block (a block's key depends on everything before it, as in vLLM), so two prompts share
 * exactly the leading blocks whose tokens are all equal.
 */
export function prefixBlockHashes(ids: readonly number[], blockSize: number): string[] {
  const out: string[] = [];
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const full = Math.floor(ids.length / blockSize) * blockSize;
  for (let i = 0; i < full; i++) {
    const id = ids[i] as number;
    // Two independent 32-bit FNV-style lanes: 64 bits make accidental collisions negligible.
    h1 = Math.imul(h1 ^ id, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ (id + 0x9e3779b9), 0x85ebca6b) >>> 0;
    if ((i + 1) % blockSize === 0) out.push(`${h1.toString(16)}${h2.toString(16)}`);
  }
  return out;
}

/**
 * What a router computes to match these keys from outside (`infx router --policy kv-aware --kv-events`):
 * the request's token ids as the server tokenizes them (PromptIds, the same tokenizer) and their prefix
 * keys at `blockSize` tokens a block. Null for a path that is not a generation endpoint.
 */
export function requestBlockHasher(
  tokenize: (text: string) => number[],
  blockSize: number,
): (path: string, body: unknown) => { inputTokens: number; hashes: string[] } | null {
  const promptIds = new PromptIds(tokenize);
  return (path, body) => {
    const endpoint = GENERATION_PATHS[path];
    if (!endpoint || typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const ids = promptIds.of(endpoint, body as Record<string, unknown>);
    return { inputTokens: ids.length, hashes: prefixBlockHashes(ids, blockSize) };
  };
}
