import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellJoin, shellQuote } from './shell.ts';

describe('shell quoting', () => {
  it('leaves plain words bare and single-quotes the rest', () => {
    expect(shellQuote('--tp')).toBe('--tp');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
  });

  it('reads back as the same words in bash', () => {
    const words = ['prog', '{"a": "b c"}', "it's", '', '$HOME', '*', 'tab\there', 'back\\slash'];
    const out = execFileSync('bash', ['--norc', '-c', `printf '%s\\0' ${shellJoin(words)}`], {
      encoding: 'utf8',
    });
    expect(out.split('\0').slice(0, -1)).toEqual(words);
  });
});
