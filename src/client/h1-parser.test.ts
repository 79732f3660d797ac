import { describe, expect, it } from 'vitest';
import { HttpParseError, MAX_HEAD_BYTES, type ResponseHead, ResponseParser } from './h1-parser.ts';

/** Parses `raw` fed in reads of `step` bytes; returns what the parser said, or the error it threw. */
function parse(raw: string | Buffer, step = raw.length, close = false) {
  const heads: ResponseHead[] = [];
  const body: Buffer[] = [];
  let completed = 0;
  const p = new ResponseParser({
    onHead: (h) => heads.push(h),
    onBody: (b) => body.push(Buffer.from(b)),
    onComplete: () => completed++,
  });
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw;
  let error: string | null = null;
  try {
    for (let i = 0; i < bytes.length; i += step) p.push(bytes.subarray(i, i + step));
    if (close) p.closed();
  } catch (err) {
    if (!(err instanceof HttpParseError)) throw err;
    error = err.message;
  }
  return { heads, body: Buffer.concat(body).toString('latin1'), completed, error, parser: p };
}

const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';

describe('ResponseParser', () => {
  it('parses chunked, length and close-delimited bodies fed one byte at a time', () => {
    const chunked = `${CHUNKED}5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-T: 1\r\n\r\n`;
    for (const step of [1, 3, chunked.length]) {
      const r = parse(chunked, step);
      expect({ step, body: r.body, completed: r.completed, error: r.error }).toEqual({
        step,
        body: 'hello world',
        completed: 1,
        error: null,
      });
    }
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc', 1)).toMatchObject({
      body: 'abc',
      completed: 1,
    });
    const until = parse('HTTP/1.0 200 OK\r\n\r\nall of it', 2, true);
    expect(until).toMatchObject({ body: 'all of it', completed: 1 });
    expect(until.heads[0]!.close).toBe(true);
  });

  it('HTTP/1.0 closes unless it says keep-alive', () => {
    expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').heads[0]!.close).toBe(true);
    const kept = parse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n');
    expect(kept.heads[0]!.close).toBe(false);
  });

  it('a garbage status line is not an HTTP response, as soon as the first bytes say so', () => {
    expect(parse('SSH-2.0-OpenSSH\r\n').error).toMatch(/^not an HTTP response: 'SSH-2\.0/);
    expect(parse('garbage', 1).error).toMatch(/^not an HTTP response/);
    expect(parse('HTTP/1.1 OK\r\n\r\n').error).toMatch(/^not an HTTP response: status line/);
    expect(parse('HTTP/2 200\r\n\r\n').error).toMatch(/^not an HTTP response/);
    expect(parse('HTTP/1.1 999 Odd\r\n\r\n').error).toMatch(/not a status code/);
  });

  it('rejects chunked-encoding lies', () => {
    expect(parse(`${CHUNKED}zz\r\nhello\r\n`).error).toMatch(/chunk size line 'zz' is not hex/);
    expect(parse(`${CHUNKED}-5\r\n`).error).toMatch(/not hex/);
    expect(parse(`${CHUNKED}3\r\nhello\r\n0\r\n\r\n`).error).toMatch(/longer than its declared size/);
    expect(parse(`${CHUNKED}3\r\nhel`, 1).error).toBeNull(); // cut short: the close says truncated
    expect(parse(`${CHUNKED}${'1'.repeat(5000)}`, 100).error).toMatch(/chunk size line longer than 4096/);
    expect(parse(`${CHUNKED}fffffffffffffffff\r\n`).error).toMatch(/not hex/);
    expect(parse(`${CHUNKED}0\r\n${'T: x\r\n'.repeat(20_000)}`, 4096).error).toMatch(/trailers larger/);
  });

  it('rejects framing it cannot trust, and codings the client did not ask for', () => {
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n').error).toMatch(
      /two different Content-Length/,
    );
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n').error).toMatch(/bad HTTP Content-Length/);
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n').error).toMatch(/bad HTTP Content-Length/);
    expect(parse('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n').error).toMatch(
      /Transfer-Encoding: gzip, chunked, which the client did not ask for/,
    );
    expect(parse('HTTP/1.1 101 Switching Protocols\r\n\r\n').error).toMatch(/switched protocols/);
    expect(parse('HTTP/1.1 100 Continue\r\n\r\n'.repeat(20)).error).toMatch(/interim/);
  });

  it('bounds the head, also when it trickles in one byte per read', () => {
    const big = `HTTP/1.1 200 OK\r\n${'X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n'.repeat(1200)}`;
    expect(big.length).toBeGreaterThan(MAX_HEAD_BYTES);
    expect(parse(big, 1).error).toMatch(/headers larger than 64 KB/);
    // Just under the limit, one byte per read, still parses (the bytes are searched once).
    const ok = `HTTP/1.1 200 OK\r\n${'X-Pad: aaaa\r\n'.repeat(4000)}Content-Length: 2\r\n\r\nok`;
    expect(parse(ok, 1)).toMatchObject({ body: 'ok', completed: 1, error: null });
  });

  it('204 and 304 have no body; bytes after a complete response mark it', () => {
    const r = parse('HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n');
    expect(r).toMatchObject({ completed: 1, body: '' });
    expect(r.parser.extra).toBe(false);
    const extra = parse('HTTP/1.1 304 Not Modified\r\n\r\nsurprise body');
    expect(extra).toMatchObject({ completed: 1, body: '' });
    expect(extra.parser.extra).toBe(true);
    const later = parse('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab', 1);
    expect(later.parser.extra).toBe(true);
  });

  it('skips interim 1xx heads', () => {
    const r = parse('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi', 7);
    expect(r.heads.map((h) => h.status)).toEqual([200]);
    expect(r.body).toBe('hi');
  });
});
