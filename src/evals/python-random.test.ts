import { describe, expect, it } from 'vitest';
import { PythonRandom } from './python-random.ts';

// Expected values printed by CPython 3.11 (`random.Random(seed)`), the generator lm-eval's few-shot sampler uses.
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('PythonRandom', () => {
  it('gives CPython 3.11 getrandbits(32) for seed 1234', () => {
    const r = new PythonRandom(1234);
    expect([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)]).toEqual([
      4150886329, 3342196574, 1892932127,
    ]);
  });

  it('samples a large population as CPython does (set strategy), draw after draw', () => {
    const r = new PythonRandom(1234);
    expect(r.sample(range(7473), 5)).toEqual([6374, 3610, 957, 61, 742]);
    expect(r.sample(range(7473), 5)).toEqual([7462, 6610, 4769, 286, 5501]);
    expect(new PythonRandom(42).sample(range(100000), 3)).toEqual([83810, 14592, 3278]);
  });

  it('samples a small population as CPython does (pool strategy)', () => {
    const r = new PythonRandom(1234);
    expect(r.sample(range(10), 5)).toEqual([7, 1, 0, 9, 4]);
    expect(r.sample(range(6), 5)).toEqual([0, 5, 4, 1, 3]);
  });

  it('refuses a sample larger than the population', () => {
    expect(() => new PythonRandom(1).sample([1, 2], 3)).toThrow(/larger than population/);
  });
});
