import { describe, expect, it } from 'vitest';
import { ResponseConsumer } from './response-consumer.ts';

const b = (s: string) => Buffer.from(s);
const tok = (text: string) => b(`data: {"choices":[{"text":${JSON.stringify(text)}}]}\n\n`);

describe('ResponseConsumer', () => {
  it('a body in an encoding the client did not ask for is named, not parsed', () => {
    const c = new ResponseConsumer('completions', 10);
    expect(c.head(200, 'OK', 'gzip', 'text/event-stream')).toBe(false);
    expect(c.outcome(true)).toMatchObject({
      category: 'invalid_stream',
      message: expect.stringMatching(/Content-Encoding: gzip body the client did not ask for.*identity/),
    });
    expect(new ResponseConsumer('completions').head(200, 'OK', 'identity', null)).toBe(true);
    // An error status keeps its category; its encoded body is not shown as text.
    const e = new ResponseConsumer('completions');
    expect(e.head(503, 'Busy', 'br', null)).toBe(true);
    e.body(b('\x1b\x00binary'), 0);
    expect(e.outcome(true)).toMatchObject({
      category: 'http_5xx',
      bodyExcerpt: expect.stringMatching(/br-encoded body, not decoded/),
    });
  });

  it('drops an error response once its first 4 KB are in', () => {
    const c = new ResponseConsumer('completions');
    c.head(500, 'Internal', null, null);
    expect(c.body(Buffer.alloc(3000, 0x61), 0)).toBe(true);
    expect(c.body(Buffer.alloc(3000, 0x61), 0)).toBe(false);
    expect(c.outcome(true)).toMatchObject({ category: 'http_5xx', status: 500 });
  });

  it('a 200 without a single SSE data event is not a stream (an empty one is cut)', () => {
    const c = new ResponseConsumer('completions');
    c.head(200, 'OK', null, 'application/json');
    c.body(b('{"choices":[{"text":"all at once"}]}'), 0);
    expect(c.outcome(true)).toMatchObject({
      category: 'invalid_stream',
      message: expect.stringMatching(/no SSE data events .*application\/json/),
    });
    const empty = new ResponseConsumer('completions');
    empty.head(200, 'OK', null, null);
    expect(empty.outcome(true)?.category).toBe('stream_truncated');
  });

  it('bounds the token chunks and the text of a stream by max_tokens', () => {
    const chunks = new ResponseConsumer('completions', 2);
    chunks.head(200, 'OK', null, null);
    let ok = true;
    for (let i = 0; i < 100 && ok; i++) ok = chunks.body(tok('a'), i);
    expect(ok).toBe(false);
    expect(chunks.stream.contentChunks).toBe(2 * 2 + 64 + 1);
    expect(chunks.outcome(true)?.message).toMatch(/more than 68 token chunks for max_tokens 2/);
    const text = new ResponseConsumer('completions', 2);
    text.head(200, 'OK', null, null);
    expect(text.body(tok('x'.repeat(70_000)), 0)).toBe(false);
    expect(text.outcome(true)?.message).toMatch(
      /more than 65664 characters of text for max_tokens 2 \(limit: 64 per token \+ 65536\)/,
    );
  });

  it('an SSE line past its limit fails the request as invalid_stream', () => {
    const c = new ResponseConsumer('completions', 10);
    c.head(200, 'OK', null, null);
    const piece = Buffer.alloc(1 << 20, 0x78);
    let ok = c.body(b('data: '), 0);
    for (let i = 0; i < 17 && ok; i++) ok = c.body(piece, i);
    expect(ok).toBe(false);
    expect(c.outcome(false)).toMatchObject({
      category: 'invalid_stream',
      message: expect.stringMatching(/16 MiB/),
    });
  });
});
