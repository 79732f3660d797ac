import { describe, expect, it } from 'vitest';
import { MAX_SSE_LINE_BYTES, SseSplitter } from './sse.ts';
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

  it('does linear work on a long line that arrives in many small reads', () => {
    // 4 MB without a newline in 1 KB reads: joining the pending bytes on every read (as it once did)
    // would copy ~8 GB; each byte is scanned once and copied at most twice (kept, then joined).
    const line = b(`data: ${'x'.repeat(4 << 20)}\n`);
    const s = new SseSplitter();
    const out: string[] = [];
    for (let i = 0; i < line.length; i += 1024) out.push(...s.push(line.subarray(i, i + 1024)));
    expect(out).toHaveLength(1);
    expect(out[0]).toHaveLength(4 << 20);
    expect(s.scannedBytes).toBe(line.length);
    expect(s.copiedBytes).toBeLessThanOrEqual(2 * line.length);
    expect(s.leftover).toBe(0);
  });

  it('stops at a line longer than its limit instead of holding it', () => {
    expect(MAX_SSE_LINE_BYTES).toBe(16 * 1024 * 1024);
    const s = new SseSplitter(1000);
    expect(s.push(b('data: {"a":1}\n'))).toEqual(['{"a":1}']);
    for (let i = 0; i < 5; i++) s.push(b('y'.repeat(300)));
    expect(s.overflow).toBe(true);
    expect(s.leftover).toBe(0);
    expect(s.push(b('\ndata: {"b":2}\n'))).toEqual([]);
    // A line that ends in the read that takes it past the limit overflows too.
    const t = new SseSplitter(1000);
    t.push(b('z'.repeat(900)));
    expect(t.push(b(`${'z'.repeat(200)}\n`))).toEqual([]);
    expect(t.overflow).toBe(true);
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
    expect(s).toMatchObject({ finished: true, done: true });
    expect(s.usage).toMatchObject({ chunks: 1, prompt: 7, completion: 3, completionConflict: null });
    expect(s.text.toString()).toBe('ac');
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
