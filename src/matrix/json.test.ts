import { describe, expect, it } from 'vitest';
import { canonicalJson, pyDumps } from './json.ts';

describe('pyDumps (Python json.dumps)', () => {
  it('uses Python separators and keeps key order', () => {
    expect(pyDumps([{ b: 1, a: [1, 2, { c: null }], d: true, e: [], f: {} }])).toBe(
      '[{"b": 1, "a": [1, 2, {"c": null}], "d": true, "e": [], "f": {}}]',
    );
  });
  it('keeps separators inside strings untouched', () => {
    expect(pyDumps({ image: 'repo/img:v1, x', s: ['a:b', 'c,\nd'] })).toBe(
      '{"image": "repo/img:v1, x", "s": ["a:b", "c,\\nd"]}',
    );
  });
  it('escapes non-ASCII and DEL like ensure_ascii', () => {
    expect(pyDumps({ k: 'é — 😀\u007f\u2028' })).toBe(
      '{"k": "\\u00e9 \\u2014 \\ud83d\\ude00\\u007f\\u2028"}',
    );
    expect(pyDumps({ clé: 1 })).toBe('{"cl\\u00e9": 1}');
  });
  it('prints floats as Python repr does, and integral numbers as ints', () => {
    expect(pyDumps([0.5, 0.1664, 1e-5, 2.5e-7, 1.5e16, 1e21, -3])).toBe(
      '[0.5, 0.1664, 1e-05, 2.5e-07, 15000000000000000, 1000000000000000000000, -3]',
    );
  });
});

describe('canonicalJson', () => {
  it('sorts keys recursively with compact separators', () => {
    expect(canonicalJson({ b: { y: 1, x: [{ d: 1, c: 2 }] }, a: 'é' })).toBe(
      '{"a":"\\u00e9","b":{"x":[{"c":2,"d":1}],"y":1}}',
    );
  });
});
