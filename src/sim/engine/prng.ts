/**
 * A small seeded PRNG (SplitMix32 seeding a Mulberry32 stream): deterministic across platforms, fast, and
 * good enough for simulation draws (acceptance lengths, workload lengths). Not for cryptography.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    // SplitMix-style scramble so that nearby seeds (0, 1, 2, …) give unrelated streams.
    let z = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    // Kept as an int32 (the same 32 bits as the uint32 of the algorithm): a small integer V8 stores unboxed.
    this.state = (z ^ (z >>> 16)) | 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}
