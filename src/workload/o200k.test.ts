import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadO200k } from './o200k.ts';
import { deserializeTable, loadTable, o200kSource, parseTiktoken, serializeTable } from './o200k-table.ts';

/** The typed-array o200k_base against gpt-tokenizer's own, which it replaces for loading speed. */

/** Typed arrays compared as bytes (a deep toEqual over 500k elements takes seconds). */
const same = (a: ArrayBufferView, b: ArrayBufferView) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

const lcg = (seed: number) => () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};

describe('o200k_base as typed arrays', () => {
  const source = o200kSource();
  const parsed = parseTiktoken(readFileSync(source.path));

  it('holds every token of gpt-tokenizer, byte for byte, whether built or read back as saved', async () => {
    const { default: ranks } = await import('gpt-tokenizer/bpeRanks/o200k_base');
    const vocab = loadO200k(parsed);
    expect(vocab.vocabSize).toBe(ranks.length);
    const te = new TextEncoder();
    let mismatches = 0;
    ranks.forEach((entry, id) => {
      const want = typeof entry === 'string' ? te.encode(entry) : Uint8Array.from(entry);
      if (!same(want, vocab.bytesOf(id))) mismatches++;
    });
    expect(mismatches).toBe(0);
    expect(() => vocab.bytesOf(ranks.length)).toThrow(RangeError);
    expect(() => vocab.bytesOf(-1)).toThrow(/outside o200k_base/);

    const saved = serializeTable(parsed, source.key);
    const back = deserializeTable(saved, source.key);
    expect(back).not.toBeNull();
    expect(same(back!.bytes, parsed.bytes)).toBe(true);
    expect(same(back!.offsets, parsed.offsets)).toBe(true);
    expect(same(back!.slots, parsed.slots)).toBe(true);
    // Made from another vocabulary file, or not a table at all: not used.
    expect(deserializeTable(saved, `${source.key} (other)`)).toBeNull();
    expect(deserializeTable(saved.subarray(0, saved.length - 1), source.key)).toBeNull();
    expect(deserializeTable(new Uint8Array(100), source.key)).toBeNull();
    // What loadTokenizer gets (the build's saved table when there is one) is the same table.
    const loaded = loadTable();
    expect(same(loaded.bytes, parsed.bytes)).toBe(true);
    expect(same(loaded.offsets, parsed.offsets)).toBe(true);
    expect(same(loaded.slots, parsed.slots)).toBe(true);
  });

  it('encodes exactly as gpt-tokenizer does, special-token text, BOMs and lone surrogates included', async () => {
    const gpt = await import('gpt-tokenizer/encoding/o200k_base');
    const plain = { disallowedSpecial: new Set<string>() };
    const vocab = loadO200k(parsed);
    const rnd = lcg(7);
    const texts: string[] = [
      '',
      'Hello world! Throughput per GPU vs. interactivity: 1234 tok/s.',
      'a <|endoftext|> b <|im_start|>',
      '\uFEFFusing System;\n\n\uFEFF//\uFEFF\uFEFF',
      'lone \uD800 high, lone \uDC00 low, pair 😀, replacement \uFFFD',
      `${' '.repeat(300)}x\n\n\n\t\t  \r\n`,
      '1234567890 12 3.14159 ٣٤٥ 一二三',
      "don't WON'T it'S we'LL they'Re",
    ];
    // The fixed-seq-len workload's text: random ids decoded.
    const decoder = new TextDecoder();
    for (let k = 0; k < 60; k++) {
      const parts = Array.from({ length: 300 }, () => vocab.bytesOf(Math.floor(rnd() * vocab.vocabSize)));
      texts.push(decoder.decode(Buffer.concat(parts)));
    }
    const pool = [
      'a',
      'B',
      'é',
      '\u0301',
      '中',
      '😀',
      '\uD800',
      '\uDC00',
      '\uFEFF',
      '\uFFFD',
      ' ',
      '  ',
      '\n',
      '\r\n',
      '\t',
      '1',
      '12345',
      '<|endoftext|>',
      "'s",
      "'LL",
      '.',
      '/',
      '-',
      'ß',
      'İ',
      'ǅ',
      'ʰ',
      '\u200d',
      '🇺🇸',
      'x\uFEFFusing',
      '\uFEFF\uFEFF',
      '\uFEFF//',
      '\uFEFF\n\n',
      'Ω',
      'ﬁ',
      '\u0000',
      '\u007f',
    ];
    for (let k = 0; k < 1500; k++) {
      let s = '';
      const n = 1 + Math.floor(rnd() * 30);
      for (let j = 0; j < n; j++) s += pool[Math.floor(rnd() * pool.length)];
      texts.push(s);
    }
    const differ = texts.filter((t) => gpt.encode(t, plain).join() !== vocab.encode(t).join());
    expect(differ).toEqual([]);
    // Again, now from the merge cache.
    expect(texts.filter((t) => gpt.encode(t, plain).join() !== vocab.encode(t).join())).toEqual([]);
  });
});
