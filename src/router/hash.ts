import { blake3 } from '@noble/hashes/blake3.js';

/**
 * The hash functions the two consistent-hash rings use, bit for bit:
 * - SGLang Model Gateway: the first 8 bytes of BLAKE3, read as a little-endian u64;
 * - vllm-router: `fbi_hash` = MurmurHash64A (seed 4193360111) of the little-endian u32 that mcrouter's
 *   `furc_hash` gives for the key with modulus 2^23 − 1. furc_hash draws its bits from a MurmurHash64A of
 *   the key followed by a chain of rehashes (MurmurHash64A of the previous value's 8 little-endian bytes).
 * All 64-bit arithmetic is BigInt, masked to 64 bits.
 */

const MASK64 = (1n << 64n) - 1n;
const M = 0xc6a4a7935bd1e995n;
const R = 47n;
/** The seed mcrouter's hash.c uses for furc_hash and its rehash chain. */
export const FURC_SEED = 4193360111;
const FURC_SHIFT = 23;
const FURC_MAX_TRIES = 32;
/** The modulus vllm-router passes to furc_hash: the largest it allows. */
export const FBI_MODULUS = 2 ** 23 - 1;

const utf8 = new TextEncoder();

export function utf8Bytes(text: string): Uint8Array {
  return utf8.encode(text);
}

function readLe64(bytes: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i]!);
  return v;
}

export function le64(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  let x = v & MASK64;
  for (let i = 0; i < 8; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** MurmurHash64A (Austin Appleby's MurmurHash2 for 64-bit platforms); the seed is a u32 widened to u64. */
export function murmurHash64A(key: Uint8Array, seed: number): bigint {
  const len = key.length;
  let h = (BigInt(seed >>> 0) ^ ((BigInt(len) * M) & MASK64)) & MASK64;
  const whole = len - (len % 8);
  for (let at = 0; at < whole; at += 8) {
    let k = (readLe64(key, at) * M) & MASK64;
    k ^= k >> R;
    k = (k * M) & MASK64;
    h ^= k;
    h = (h * M) & MASK64;
  }
  const tail = len - whole;
  if (tail > 0) {
    for (let i = tail - 1; i >= 0; i--) h ^= BigInt(key[whole + i]!) << BigInt(8 * i);
    h = (h * M) & MASK64;
  }
  h ^= h >> R;
  h = (h * M) & MASK64;
  h ^= h >> R;
  return h;
}

/** mcrouter's furc_hash: a consistent bucket in [0, m) for the key. */
export function furcHash(key: Uint8Array, m: number): number {
  if (m <= 1) return 0;
  const chain: bigint[] = [];
  const bit = (idx: number): boolean => {
    const ord = idx >>> 6;
    while (chain.length <= ord) {
      const prev = chain[chain.length - 1];
      chain.push(prev === undefined ? murmurHash64A(key, FURC_SEED) : murmurHash64A(le64(prev), FURC_SEED));
    }
    return ((chain[ord]! >> BigInt(idx & 63)) & 1n) === 1n;
  };
  let d = 0;
  while (m > 2 ** d) d++;
  let a = d;
  for (let attempt = 0; attempt < FURC_MAX_TRIES; attempt++) {
    while (!bit(a)) {
      if (d === 0) return 0;
      d--;
      a = d;
    }
    a += FURC_SHIFT;
    let num = 1;
    for (let i = 0; i < Math.max(0, d - 1); i++) {
      num = num * 2 + (bit(a) ? 1 : 0);
      a += FURC_SHIFT;
    }
    if (num < m) return num;
  }
  return 0;
}

/** vllm-router's `fbi_hash`: furc_hash to 23 bits, widened back to 64 by MurmurHash64A of its 4 LE bytes. */
export function fbiHash(key: string): bigint {
  const bucket = furcHash(utf8Bytes(key), FBI_MODULUS);
  const le32 = new Uint8Array([bucket & 0xff, (bucket >>> 8) & 0xff, (bucket >>> 16) & 0xff, bucket >>> 24]);
  return murmurHash64A(le32, FURC_SEED);
}

/** The first 8 bytes of BLAKE3 of the bytes, as a little-endian u64 (SGLang Model Gateway's ring position). */
export function blake3Le64(bytes: Uint8Array): bigint {
  return readLe64(blake3(bytes), 0);
}

export function blake3Hex(bytes: Uint8Array): string {
  return Buffer.from(blake3(bytes)).toString('hex');
}
