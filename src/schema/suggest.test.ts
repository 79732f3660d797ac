import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance, nearestNumbers } from './suggest.ts';

describe('suggest', () => {
  it('counts typos, a swapped pair as one', () => {
    expect(editDistance('fp88', 'fp8')).toBe(1);
    expect(editDistance('alpah', 'alpha')).toBe(1);
    expect(editDistance('sglang', 'vllm')).toBe(5);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('offers only the nearest, close enough names', () => {
    expect(didYouMean('fp88', ['fp4', 'fp8', 'bf16'])).toBe('; did you mean fp8?');
    expect(didYouMean('h300', ['h100', 'h200', 'b200'])).toBe('; did you mean h100 or h200?');
    expect(didYouMean('int4', ['fp4', 'fp8', 'bf16'])).toBe('');
    expect(closest('FP8', ['fp8'])).toEqual(['fp8']);
    expect(closest('fp8', ['fp8'])).toEqual([]);
  });

  it('finds the nearest numbers, both on a tie', () => {
    expect(nearestNumbers(3, [1, 2, 4, 8])).toEqual([2, 4]);
    expect(nearestNumbers(100, [8, 64])).toEqual([64]);
    expect(nearestNumbers(1, [])).toEqual([]);
  });
});
