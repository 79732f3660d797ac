/**
 * A small, fast, seeded PRNG: xoshiro128** (Blackman and Vigna) with its 128-bit state filled by
 * splitmix32 from a hash of the seed and any stream keys.
 *
 * It is NOT NumPy-bit-exact: the reference client draws with NumPy's Mersenne Twister, so the same seed
 * gives different prompt lengths and token ids here. What a port must keep (client-metrics spec §1.2) is
 * the length distribution, the contiguous-token-run construction and the chat-template budget, not the
 * exact ids. What this guarantees: the same (seed, keys) always gives the same sequence, on every
 * platform and Node version (only 32-bit integer arithmetic is used).
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /**
   * `seed` is any safe integer (negative ones too); `keys` pick independent streams, e.g. a prompt index
   * or a purpose such as 'arrivals'.
   */
  constructor(seed: number, ...keys: (number | string)[]) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`Rng seed must be a safe integer, got ${seed}`);
    // Hash every 32-bit word of the input into one value, then expand it with splitmix32.
    let h = 0x6a09e667;
    for (const word of [...splitWords(seed), keys.length, ...keys.flatMap(keyWords)]) {
      h = fmix32((h ^ word) + 0x9e3779b9);
    }
    let s = h;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      return fmix32(s);
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1; // the one state xoshiro cannot leave
  }

  /** A generator with the given raw state (for checking against the published reference outputs). */
  static fromState(a: number, b: number, c: number, d: number): Rng {
    const rng = new Rng(0);
    rng.a = a | 0;
    rng.b = b | 0;
    rng.c = c | 0;
    rng.d = d | 0;
    return rng;
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** A uniform float in [0, 1) with 53 random bits. */
  float(): number {
    const hi = this.u32() >>> 5; // 27 bits
    const lo = this.u32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** A uniform integer in [lo, hi], both inclusive (unbiased). */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) {
      throw new RangeError(`Rng.int needs integers lo <= hi, got [${lo}, ${hi}]`);
    }
    const range = hi - lo + 1;
    if (range > 0x100000000) return lo + Math.floor(this.float() * range);
    // Rejection sampling: drop the top partial copy of the range so every value is equally likely.
    const limit = 0x100000000 - (0x100000000 % range);
    for (;;) {
      const x = this.u32();
      if (x < limit) return lo + (x % range);
    }
  }
}

/** A generator as plain functions (safe to pass around detached, e.g. `seededRandom(seed, 'arrivals').float`). */
export interface SeededRandom {
  u32(): number;
  float(): number;
  int(lo: number, hi: number): number;
}

export function seededRandom(seed: number, ...keys: (number | string)[]): SeededRandom {
  const rng = new Rng(seed, ...keys);
  return { u32: () => rng.u32(), float: () => rng.float(), int: (lo, hi) => rng.int(lo, hi) };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** MurmurHash3's 32-bit finalizer: a bijective avalanche mix. */
function fmix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A stream key as tagged 32-bit words, so a number and a string never give the same words. */
function keyWords(key: number | string): number[] {
  if (typeof key === 'number') return [0, ...splitWords(key)];
  let h = 0x811c9dc5; // FNV-1a over UTF-16 code units
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return [1, h >>> 0, key.length];
}

/** A safe integer as its low and high 32-bit words (two's complement for negatives). */
function splitWords(n: number): [number, number] {
  if (!Number.isSafeInteger(n)) throw new RangeError(`Rng key must be a safe integer, got ${n}`);
  const lo = n >>> 0; // n mod 2^32 (ToUint32 handles negatives)
  const hi = Math.floor(n / 0x100000000) | 0;
  return [lo, hi];
}
