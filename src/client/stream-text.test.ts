import { describe, expect, it } from 'vitest';
import { StreamText } from './stream-text.ts';

describe('StreamText', () => {
  it('gives back the chunks joined, across growth', () => {
    const t = new StreamText();
    const chunks = Array.from({ length: 500 }, (_, i) => ` w${i}é`);
    for (const c of chunks) t.append(c);
    expect(t.toString()).toBe(chunks.join(''));
  });

  it('joins a surrogate pair split across two chunks', () => {
    const t = new StreamText();
    const emoji = '😀';
    t.append(`a${emoji[0]}`);
    t.append(`${emoji[1]}b`);
    expect(t.toString()).toBe(`a${emoji}b`);
  });

  it('keeps a high surrogate that ends the stream', () => {
    const t = new StreamText();
    t.append('x\ud83d');
    expect(t.toString()).toBe('x\ud83d');
  });

  it('is empty until something is appended', () => {
    const t = new StreamText();
    t.append('');
    expect(t.toString()).toBe('');
  });
});
