/**
 * The router's seedable random source: a Weyl sequence (step 0x9E3779B9) through MurmurHash3's 32-bit
 * finaliser. Not for cryptography; enough to spread picks evenly and to replay them from a seed.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
}

export function seededRng(seed: number): Rng {
  let state = seed >>> 0;
  return {
    next() {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
    },
  };
}

/** An integer in [0, n), n ≥ 1. */
export function pickIndex(rng: Rng, n: number): number {
  return Math.min(n - 1, Math.floor(rng.next() * n));
}
