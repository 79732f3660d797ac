import type { RequestError } from '../schema/request-record.ts';
import { httpError, isContextOverflow, requestError } from './errors.ts';
import { SseSplitter } from './sse.ts';
import { applyEvent, type Endpoint, newStreamState, type StreamState } from './stream-reader.ts';

/**
 * What one response means, whatever carried it: an error body for a non-200 status, otherwise SSE
 * events applied to the stream state with the time of the socket read that brought them.
 */

const ERROR_BODY_LIMIT = 4096;

export class ResponseConsumer {
  readonly stream: StreamState = newStreamState();
  private readonly splitter = new SseSplitter();
  private status = 0;
  private reason = '';
  private errorBody: Buffer[] = [];
  private errorBytes = 0;
  private reading = true;

  constructor(private readonly endpoint: Endpoint) {}

  head(status: number, reason: string): void {
    this.status = status;
    this.reason = reason;
  }

  /** Feeds body bytes read at time t; returns false when the stream is broken and must be dropped now. */
  body(bytes: Buffer, t: number): boolean {
    if (this.status !== 200) {
      if (this.errorBytes < ERROR_BODY_LIMIT) this.errorBody.push(Buffer.from(bytes));
      this.errorBytes += bytes.length;
      return true;
    }
    if (!this.reading) return true;
    for (const payload of this.splitter.push(bytes)) {
      if (!applyEvent(this.stream, this.endpoint, payload, t)) {
        this.reading = false;
        // A broken or error stream may never end by itself.
        return this.stream.streamError === null;
      }
    }
    return true;
  }

  /** The outcome once the response ended (complete, or cut when `complete` is false). */
  outcome(complete: boolean): RequestError | null {
    if (this.status !== 200)
      return httpError(this.status, this.reason, Buffer.concat(this.errorBody).toString('utf8'));
    const s = this.stream;
    const err = s.streamError;
    if (err?.kind === 'malformed') return requestError('invalid_stream', err.message);
    if (err?.kind === 'server')
      return isContextOverflow(err.message)
        ? requestError('context_overflow', err.message)
        : requestError('other', `error event in stream: ${err.message}`);
    if (!complete || (!s.done && !s.finished)) return truncated(s);
    if (s.firstTokenMs === null)
      return requestError('no_content', `the ${this.endpoint} stream ended without a single token`);
    return null;
  }
}

export function truncated(stream: StreamState): RequestError {
  const got = stream.contentChunks + stream.reasoningChunks;
  return requestError('stream_truncated', `stream closed before it finished, after ${got} token chunks`);
}
