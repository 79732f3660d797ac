/**
 * A minimal HTTP/1.1 response parser for the client's own connections: status line, headers, then a
 * body framed by chunked encoding, Content-Length, or the connection's end. It hands body bytes on as
 * slices of the socket read they came in, so the caller stamps and splits them without copies.
 *
 * It is strict where a lie would misframe the stream (a status line that is not HTTP, a chunk whose data
 * runs past its size, a size that is not hex, a Content-Length that is not a number or says two things,
 * a transfer coding other than chunked) and bounded where a server could make it buffer: the head (each
 * interim 1xx head too) and the trailers at MAX_HEAD_BYTES, a chunk-size line at MAX_CHUNK_LINE_BYTES.
 * Bytes that straddle reads are appended to one growing buffer and searched once, so the work is linear
 * in the bytes received however the server slices them.
 */

export interface ResponseHead {
  status: number;
  reason: string;
  headers: Map<string, string>;
  /** The server will close the connection after this response. */
  close: boolean;
}

export interface ParserEvents {
  onHead(head: ResponseHead): void;
  onBody(bytes: Buffer): void;
  onComplete(): void;
}

export class HttpParseError extends Error {}

export const MAX_HEAD_BYTES = 64 * 1024;
export const MAX_CHUNK_LINE_BYTES = 4096;
/** Interim (1xx) responses accepted before the real one. */
const MAX_INTERIM = 16;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const HTTP = Buffer.from('HTTP/');

type State =
  | 'head'
  | 'chunk-size'
  | 'chunk-data'
  | 'chunk-crlf'
  | 'trailers'
  | 'length'
  | 'until-close'
  | 'done';

export class ResponseParser {
  private state: State = 'head';
  /** Bytes of an unfinished head or line: [0, pendingLen) of `store` (0: none). */
  private store: Buffer | null = null;
  private pendingLen = 0;
  /** Where in `pending` the search for the terminator resumes (bytes before it hold none). */
  private scanFrom = 0;
  private remaining = 0;
  private interim = 0;
  private trailerBytes = 0;
  private headSeen = false;
  /** Bytes came after the response was complete: the connection must not be reused. */
  extra = false;

  constructor(private readonly events: ParserEvents) {}

  get complete(): boolean {
    return this.state === 'done';
  }

  /** The final (non-1xx) status line and headers have been parsed. */
  get headParsed(): boolean {
    return this.headSeen;
  }

  /** The body runs until the connection closes (no length, not chunked): the close completes it. */
  get endsWithClose(): boolean {
    return this.state === 'until-close';
  }

  push(chunk: Buffer): void {
    if (this.state === 'done') {
      if (chunk.length > 0) this.extra = true;
      return;
    }
    let buf = chunk;
    let scan = 0;
    const inStore = this.pendingLen > 0;
    if (inStore) {
      buf = this.append(chunk);
      scan = this.scanFrom;
      this.pendingLen = 0;
      this.scanFrom = 0;
    }
    let pos = 0;
    while (pos < buf.length && !this.complete) {
      switch (this.state) {
        case 'head': {
          const end = buf.indexOf(HEAD_END, Math.max(pos, scan));
          scan = 0;
          if (end < 0) {
            checkHttpPrefix(buf, pos);
            if (buf.length - pos > MAX_HEAD_BYTES)
              throw new HttpParseError(`HTTP response headers larger than ${MAX_HEAD_BYTES / 1024} KB`);
            this.stash(buf, pos, HEAD_END.length, inStore);
            return;
          }
          if (end - pos > MAX_HEAD_BYTES)
            throw new HttpParseError(`HTTP response headers larger than ${MAX_HEAD_BYTES / 1024} KB`);
          this.head(buf.toString('latin1', pos, end));
          pos = end + 4;
          break;
        }
        case 'chunk-size': {
          const end = buf.indexOf(CRLF, Math.max(pos, scan));
          scan = 0;
          if (end < 0) {
            if (buf.length - pos > MAX_CHUNK_LINE_BYTES)
              throw new HttpParseError(
                `bad chunked encoding: a chunk size line longer than ${MAX_CHUNK_LINE_BYTES} bytes`,
              );
            this.stash(buf, pos, CRLF.length, inStore);
            return;
          }
          if (end - pos > MAX_CHUNK_LINE_BYTES)
            throw new HttpParseError(
              `bad chunked encoding: a chunk size line longer than ${MAX_CHUNK_LINE_BYTES} bytes`,
            );
          const size = chunkSize(buf.toString('latin1', pos, end));
          pos = end + 2;
          if (size === 0) this.state = 'trailers';
          else {
            this.remaining = size;
            this.state = 'chunk-data';
          }
          break;
        }
        case 'chunk-data':
        case 'length': {
          const take = Math.min(this.remaining, buf.length - pos);
          this.events.onBody(buf.subarray(pos, pos + take));
          pos += take;
          this.remaining -= take;
          if (this.remaining === 0) {
            if (this.state === 'length') this.finish();
            else this.state = 'chunk-crlf';
          }
          break;
        }
        case 'chunk-crlf': {
          if (buf.length - pos < 2) {
            if (buf[pos] !== 0x0d) throw chunkOverrun();
            this.stash(buf, pos, 2, inStore);
            return;
          }
          if (buf[pos] !== 0x0d || buf[pos + 1] !== 0x0a) throw chunkOverrun();
          pos += 2;
          this.state = 'chunk-size';
          break;
        }
        case 'trailers': {
          // Trailer fields, then an empty line; almost always just the empty line.
          const end = buf.indexOf(CRLF, Math.max(pos, scan));
          scan = 0;
          if (end < 0) {
            if (this.trailerBytes + buf.length - pos > MAX_HEAD_BYTES)
              throw new HttpParseError(
                `bad chunked encoding: trailers larger than ${MAX_HEAD_BYTES / 1024} KB`,
              );
            this.stash(buf, pos, CRLF.length, inStore);
            return;
          }
          this.trailerBytes += end + 2 - pos;
          if (this.trailerBytes > MAX_HEAD_BYTES)
            throw new HttpParseError(
              `bad chunked encoding: trailers larger than ${MAX_HEAD_BYTES / 1024} KB`,
            );
          if (end === pos) this.finish();
          pos = end + 2;
          break;
        }
        case 'until-close':
          this.events.onBody(buf.subarray(pos));
          pos = buf.length;
          break;
      }
    }
    if (this.complete && pos < buf.length) this.extra = true;
    // Nothing pending: do not hold on to a large store.
    if (this.store !== null && this.store.length > 16 * 1024) this.store = null;
  }

  /** Called when the connection closed: completes a close-delimited body. */
  closed(): void {
    if (this.state === 'until-close') this.finish();
  }

  /** Keeps buf[pos..] for the next read; the terminator search resumes `overlap - 1` bytes from its end. */
  private stash(buf: Buffer, pos: number, overlap: number, inStore: boolean): void {
    const n = buf.length - pos;
    if (inStore) {
      // Already in the store (grown in place): move the rest to its start, no new buffer.
      if (pos > 0) (this.store as Buffer).copyWithin(0, pos, buf.length);
    } else {
      if (this.store === null || this.store.length < n) this.store = Buffer.allocUnsafe(Math.max(256, 2 * n));
      buf.copy(this.store, 0, pos);
    }
    this.pendingLen = n;
    this.scanFrom = Math.max(0, n - (overlap - 1));
  }

  /** Appends a read to the pending bytes (capacity doubling: each byte is copied O(1) times). */
  private append(chunk: Buffer): Buffer {
    let store = this.store as Buffer;
    const len = this.pendingLen + chunk.length;
    if (len > store.length) {
      const grown = Buffer.allocUnsafe(Math.max(len, 2 * store.length));
      store.copy(grown, 0, 0, this.pendingLen);
      store = grown;
      this.store = store;
    }
    chunk.copy(store, this.pendingLen);
    return store.subarray(0, len);
  }

  private head(text: string): void {
    const lines = text.split('\r\n');
    const first = lines[0] ?? '';
    const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(first);
    if (!m) throw new HttpParseError(`not an HTTP response: status line '${printable(first)}'`);
    const status = Number(m[2]);
    if (status < 100 || status > 599) throw new HttpParseError(`HTTP status ${status} is not a status code`);
    if (status >= 100 && status < 200) {
      // 1xx: the real response follows (101 would switch protocols, which the client never asks for).
      if (status === 101) throw new HttpParseError('the server switched protocols (101), unasked');
      if (++this.interim > MAX_INTERIM)
        throw new HttpParseError(`more than ${MAX_INTERIM} interim (1xx) responses`);
      return;
    }
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const before = headers.get(name);
      if (name === 'content-length' && before !== undefined && before !== value)
        throw new HttpParseError(
          `two different Content-Length headers ('${printable(before)}', '${printable(value)}')`,
        );
      headers.set(name, before !== undefined && name !== 'content-length' ? `${before}, ${value}` : value);
    }
    const connection = headers.get('connection') ?? '';
    const head: ResponseHead = {
      status,
      reason: m[3] ?? '',
      headers,
      // HTTP/1.0 closes after each response unless it says keep-alive.
      close: /\bclose\b/i.test(connection) || (m[1] === '0' && !/\bkeep-alive\b/i.test(connection)),
    };
    const te = headers.get('transfer-encoding');
    const chunked = te !== undefined && transferCoding(te);
    const length = headers.get('content-length');
    if (!chunked && length !== undefined && !/^\d{1,15}$/.test(length))
      throw new HttpParseError(`bad HTTP Content-Length '${printable(length)}'`);
    this.headSeen = true;
    this.events.onHead(head);
    if (status === 204 || status === 304) this.finish();
    else if (chunked) this.state = 'chunk-size';
    else if (length !== undefined) {
      this.remaining = Number(length);
      this.state = 'length';
      if (this.remaining === 0) this.finish();
    } else this.state = 'until-close';
  }

  private finish(): void {
    this.state = 'done';
    this.events.onComplete();
  }
}

/** True when chunked; throws for a transfer coding the client cannot decode (it asked for none). */
function transferCoding(te: string): boolean {
  const codings = te
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return false;
  if (codings.length === 1 && codings[0] === 'chunked') return true;
  throw new HttpParseError(`Transfer-Encoding: ${printable(te)}, which the client did not ask for`);
}

function chunkSize(line: string): number {
  const semi = line.indexOf(';');
  const hex = (semi < 0 ? line : line.slice(0, semi)).trim();
  if (!/^[0-9a-fA-F]{1,13}$/.test(hex))
    throw new HttpParseError(`bad chunked encoding: chunk size line '${printable(line)}' is not hex`);
  return Number.parseInt(hex, 16);
}

function chunkOverrun(): HttpParseError {
  return new HttpParseError('bad chunked encoding: chunk data longer than its declared size');
}

/** Fails fast when the first bytes cannot be an HTTP response. */
function checkHttpPrefix(buf: Buffer, pos: number): void {
  const n = Math.min(HTTP.length, buf.length - pos);
  for (let i = 0; i < n; i++)
    if (buf[pos + i] !== HTTP[i])
      throw new HttpParseError(`not an HTTP response: '${printable(buf.toString('latin1', pos, pos + 40))}'`);
}

function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes are what this replaces
  const t = s.replace(/[\x00-\x1f\x7f-\xff]/g, '?');
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}
