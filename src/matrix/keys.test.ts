import { describe, expect, it } from 'vitest';
import { expandConfigKeys, globMatch } from './keys.ts';

describe('globMatch (fnmatch.fnmatchcase)', () => {
  it.each([
    ['dsv4-*', 'dsv4-fp4-b300-vllm', true],
    ['dsv4-*', 'dsr1-fp8', false],
    ['*-vllm', 'dsr1-fp8-h200-vllm', true],
    ['dsr1-fp?-h200-*', 'dsr1-fp8-h200-sglang', true],
    ['dsr1-fp[48]-*', 'dsr1-fp4-x', true],
    ['dsr1-fp[!48]-*', 'dsr1-fp4-x', false],
    ['dsr1-fp[!48]-*', 'dsr1-fp6-x', true],
    ['k[0-9]', 'k7', true],
    ['k[0-9]', 'kx', false],
    ['k[z-a]', 'kz', false],
    ['[]]x', ']x', true],
    ['a[b', 'a[b', true],
    ['*', '', true],
    ['?', '', false],
    ['a**b', 'ab', true],
    ['*a*b*', 'xaybz', true],
    ['*a*b', 'xaybz', false],
  ])('%s ~ %s: %s', (pattern, key, want) => {
    expect(globMatch(pattern, key)).toBe(want);
  });

  it('takes linear time where a backtracking regex takes exponential time', () => {
    const key = 'a'.repeat(60_000);
    const started = performance.now();
    expect(globMatch(`${'*a'.repeat(12)}*Z`, key)).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('expands globs in config order and keeps the reference errors', () => {
    expect(expandConfigKeys(['b*', 'a'], ['a', 'b1', 'b2'])).toEqual(['b1', 'b2', 'a']);
    expect(() => expandConfigKeys(['z*'], ['a'])).toThrow(/Pattern 'z\*' matched no config keys/);
  });
});
