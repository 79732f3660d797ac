import { describe, expect, it } from 'vitest';
import { Rng, seededRandom } from './random.ts';

const draws = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.u32());

describe('Rng', () => {
  it('is deterministic in (seed, keys) and differs across seeds and keys', () => {
    expect(draws(new Rng(0), 8)).toEqual(draws(new Rng(0), 8));
    expect(draws(new Rng(0, 5), 8)).toEqual(draws(new Rng(0, 5), 8));
    const streams = [
      new Rng(0),
      new Rng(1),
      new Rng(0, 0),
      new Rng(0, 1),
      new Rng(1, 0),
      new Rng(-1),
      new Rng(2 ** 40),
    ];
    const firsts = streams.map((r) => draws(r, 4).join(','));
    expect(new Set(firsts).size).toBe(streams.length);
  });

  it('is xoshiro128** (outputs of the reference C code from state 1, 2, 3, 4)', () => {
    expect(draws(Rng.fromState(1, 2, 3, 4), 6)).toEqual([
      11520, 0, 5927040, 70819200, 2031721883, 1637235492,
    ]);
  });

  it('pins its seeding so a change is noticed (cached prompt sets depend on it)', () => {
    const rng = new Rng(0, 0);
    expect([rng.u32(), rng.u32(), rng.int(0, 9), rng.int(6553, 8192)]).toEqual([
      969188003, 2469664508, 2, 6725,
    ]);
  });

  it('seededRandom gives detachable functions over the same stream', () => {
    const { float, int, u32 } = seededRandom(3, 'arrivals');
    const rng = new Rng(3, 'arrivals');
    expect([u32(), float(), int(1, 6)]).toEqual([rng.u32(), rng.float(), rng.int(1, 6)]);
  });

  it('int is inclusive at both ends and roughly uniform', () => {
    const rng = new Rng(42);
    const counts = new Array(6).fill(0);
    for (let k = 0; k < 60_000; k++) counts[rng.int(5, 10) - 5]++;
    for (const c of counts) expect(c).toBeGreaterThan(9_000);
    expect(rng.int(7, 7)).toBe(7);
    const big = rng.int(0, 2 ** 40);
    expect(big).toBeGreaterThanOrEqual(0);
    expect(big).toBeLessThanOrEqual(2 ** 40);
  });

  it('float is in [0, 1) with a mean near 1/2', () => {
    const rng = new Rng(7);
    let sum = 0;
    for (let k = 0; k < 20_000; k++) {
      const x = rng.float();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(Math.abs(sum / 20_000 - 0.5)).toBeLessThan(0.01);
  });

  it('rejects bad seeds and ranges', () => {
    expect(() => new Rng(1.5)).toThrow(/safe integer/);
    expect(() => new Rng(0, Number.NaN)).toThrow(/safe integer/);
    expect(() => new Rng(0).int(3, 2)).toThrow(/lo <= hi/);
    expect(() => new Rng(0).int(0, 1.5)).toThrow(/lo <= hi/);
  });
});
