import { describe, expect, it } from 'vitest';
import { SseSplitter } from './sse.ts';
import { applyEvent, newStreamState } from './stream-reader.ts';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('SseSplitter', () => {
  it('splits data lines across arbitrary read boundaries, CRLF included', () => {
    const text = 'data: {"a":1}\r\n\r\n: comment\n\nevent: x\ndata:{"b":2}\n\ndata: [DONE]\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      const s = new SseSplitter();
      const got = [...s.push(b(text.slice(0, cut))), ...s.push(b(text.slice(cut)))];
      expect(got).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
    }
  });

  it('keeps a line longer than 64 KB whole', () => {
    const big = 'x'.repeat(200_000);
    const s = new SseSplitter();
    const line = b(`data: {"t":"${big}"}\n\n`);
    const out: string[] = [];
    for (let i = 0; i < line.length; i += 65_536) out.push(...s.push(line.subarray(i, i + 65_536)));
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0]!).t).toHaveLength(200_000);
  });

  it('does not split a multi-byte character cut between reads', () => {
    const s = new SseSplitter();
    const line = b('data: {"t":"héllo ✓"}\n');
    const out = [...s.push(line.subarray(0, 14)), ...s.push(line.subarray(14))];
    expect(JSON.parse(out[0]!).t).toBe('héllo ✓');
  });

  it('reports the bytes of an unterminated last line', () => {
    const s = new SseSplitter();
    s.push(b('data: {"a":1}\ndata: {"tr'));
    expect(s.leftover).toBe('data: {"tr'.length);
  });
});

describe('applyEvent', () => {
  it('completions: every choice chunk is a token; usage never moves the last token', () => {
    const s = newStreamState();
    applyEvent(s, 'completions', '{"choices":[{"text":"a","finish_reason":null}]}', 10);
    applyEvent(s, 'completions', '{"choices":[{"text":"","finish_reason":null}]}', 15);
    applyEvent(s, 'completions', '{"choices":[{"text":"c","finish_reason":"length"}]}', 22);
    applyEvent(s, 'completions', '{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}', 30);
    expect(applyEvent(s, 'completions', '[DONE]', 31)).toBe(false);
    expect(s).toMatchObject({ firstTokenMs: 10, lastTokenMs: 22, chunkGapsMs: [5, 7], contentChunks: 3 });
    expect(s).toMatchObject({ promptTokens: 7, completionTokens: 3, finished: true, done: true });
    expect(s.text.join('')).toBe('ac');
  });

  it('chat: a role-only chunk is not a token; reasoning counts as the first token', () => {
    const s = newStreamState();
    applyEvent(s, 'chat', '{"choices":[{"delta":{"role":"assistant","content":""}}]}', 5);
    applyEvent(s, 'chat', '{"choices":[{"delta":{"reasoning_content":"hmm"}}]}', 12);
    applyEvent(s, 'chat', '{"choices":[{"delta":{"content":"hi"}}]}', 20);
    expect(s).toMatchObject({ firstTokenMs: 12, lastTokenMs: 20, reasoningChunks: 1, contentChunks: 1 });
  });

  it('stops on malformed JSON and on an error event', () => {
    const a = newStreamState();
    expect(applyEvent(a, 'completions', '{not json', 1)).toBe(false);
    expect(a.streamError?.kind).toBe('malformed');
    const e = newStreamState();
    expect(applyEvent(e, 'chat', '{"error":{"message":"boom"}}', 1)).toBe(false);
    expect(e.streamError).toEqual({ kind: 'server', message: 'boom' });
  });
});
