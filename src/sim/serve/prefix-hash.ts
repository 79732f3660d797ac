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
