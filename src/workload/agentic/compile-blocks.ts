/**
 * The deterministic text of a hash block: `blockSize` words of the pool, picked by a 32-bit hash of
 * (seed, trace salt, hash id, position). Same inputs, same bytes, so calls sharing a hash id share its
 * bytes; hash ids are per trace (`hash_id_scope: "local"`), hence the trace's salt: two traces never share
 * a block by accident. Pure integer arithmetic: no tokenizer, no allocation beyond the output.
 */

export interface WordTable {
  /** Each word with its leading space, as bytes. */
  bytes: Buffer[];
  /** bytes.length - 1 when that is a power of two minus one, else -1 (then `%`). */
  mask: number;
}

export function wordTable(words: readonly string[]): WordTable {
  const bytes = words.map((w) => Buffer.from(` ${w}`, 'latin1'));
  const n = bytes.length;
  return { bytes, mask: (n & (n - 1)) === 0 ? n - 1 : -1 };
}

/** A stable 32-bit salt for a trace id (FNV-1a). */
export function traceSalt(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function fmix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The word indices of `ids`' blocks, in order, and the byte length they take. */
function pick(
  table: WordTable,
  seed: number,
  salt: number,
  ids: ArrayLike<number>,
  blockSize: number,
): { picks: Uint16Array; length: number } {
  const picks = new Uint16Array(ids.length * blockSize);
  const n = table.bytes.length;
  const seedMix = fmix((seed | 0) ^ 0x27d4eb2f ^ fmix(Math.floor(seed / 0x100000000) | 0));
  let length = 0;
  let k = 0;
  for (let b = 0; b < ids.length; b++) {
    const base = fmix(seedMix ^ fmix(salt ^ fmix((ids[b] as number) + 0x9e3779b9)));
    for (let j = 0; j < blockSize; j++) {
      const r = fmix(base + Math.imul(j + 1, 0x9e3779b9));
      const w = table.mask >= 0 ? r & table.mask : r % n;
      picks[k++] = w;
      length += (table.bytes[w] as Buffer).length;
    }
  }
  return { picks, length };
}

/**
 * The text of `ids`' blocks, concatenated: exactly ids.length × blockSize tokens; between `head` and
 * `tail` bytes when given (a message's JSON framing, so a message goes out as one segment).
 */
export function blocksText(
  table: WordTable,
  seed: number,
  salt: number,
  ids: ArrayLike<number>,
  blockSize: number,
  head: Buffer | null = null,
  tail: Buffer | null = null,
): Buffer {
  const { picks, length } = pick(table, seed, salt, ids, blockSize);
  const out = Buffer.allocUnsafe((head?.length ?? 0) + length + (tail?.length ?? 0));
  let at = head === null ? 0 : head.copy(out, 0);
  for (let k = 0; k < picks.length; k++) {
    const word = table.bytes[picks[k] as number] as Buffer;
    // Words are 4–10 bytes: a byte loop beats Buffer.copy's call overhead.
    for (let i = 0; i < word.length; i++) out[at++] = word[i] as number;
  }
  tail?.copy(out, at);
  return out;
}
