/**
 * A minimal HTTP/1.1 response parser for the client's own connections: status line, headers, then a
 * body framed by chunked encoding, Content-Length, or the connection's end. It hands body bytes on as
 * slices of the socket read they came in, so the caller stamps and splits them without copies.
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

const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

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
  private pending: Buffer | null = null;
  private remaining = 0;

  constructor(private readonly events: ParserEvents) {}

  get complete(): boolean {
    return this.state === 'done';
  }

  /** The body runs until the connection closes (no length, not chunked): the close completes it. */
  get endsWithClose(): boolean {
    return this.state === 'until-close';
  }

  push(chunk: Buffer): void {
    let buf = chunk;
    if (this.pending) {
      buf = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    let pos = 0;
    while (pos < buf.length && this.state !== 'done') {
      switch (this.state) {
        case 'head': {
          const end = buf.indexOf(HEAD_END, pos);
          if (end < 0) {
            if (buf.length - pos > MAX_HEAD_BYTES)
              throw new HttpParseError('response headers larger than 64 KB');
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
          this.head(buf.toString('latin1', pos, end));
          pos = end + 4;
          break;
        }
        case 'chunk-size': {
          const end = buf.indexOf(CRLF, pos);
          if (end < 0) {
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
          const line = buf.toString('latin1', pos, end);
          const size = Number.parseInt(line, 16);
          if (!Number.isFinite(size) || size < 0)
            throw new HttpParseError(`bad chunk size line '${line.slice(0, 20)}'`);
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
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
          pos += 2;
          this.state = 'chunk-size';
          break;
        }
        case 'trailers': {
          // Trailer fields, then an empty line; almost always just the empty line.
          const end = buf.indexOf(CRLF, pos);
          if (end < 0) {
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
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
  }

  private head(text: string): void {
    const lines = text.split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
    if (!m) throw new HttpParseError(`not an HTTP/1.1 status line: '${(lines[0] ?? '').slice(0, 40)}'`);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const status = Number(m[1]);
    const head: ResponseHead = {
      status,
      reason: m[2] ?? '',
      headers,
      close: /\bclose\b/i.test(headers.get('connection') ?? ''),
    };
    if (status >= 100 && status < 200) return; // 1xx: the real response follows
    this.events.onHead(head);
    const length = headers.get('content-length');
    if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) this.state = 'chunk-size';
    else if (length !== undefined) {
      this.remaining = Number(length);
      if (!Number.isInteger(this.remaining) || this.remaining < 0)
        throw new HttpParseError(`bad Content-Length '${length}'`);
      this.state = 'length';
      if (this.remaining === 0 || status === 204 || status === 304) this.finish();
    } else if (status === 204 || status === 304) this.finish();
    else this.state = 'until-close';
  }

  /** Called when the connection closed: completes a close-delimited body. */
  closed(): void {
    if (this.state === 'until-close') this.finish();
  }

  private finish(): void {
    this.state = 'done';
    this.events.onComplete();
  }
}
