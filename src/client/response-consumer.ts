import type { RequestError } from '../schema/request-record.ts';
import { httpError, isContextOverflow, requestError } from './errors.ts';
import { MAX_SSE_LINE_BYTES, SseSplitter } from './sse.ts';
import { applyEvent, type Endpoint, newStreamState, type StreamState } from './stream-reader.ts';

/**
 * What one response means, whatever carried it: an error body for a non-200 status, otherwise SSE
 * events applied to the stream state with the time of the socket read that brought them.
 *
 * Memory per response is bounded whatever the server sends: an error body is kept to its first 4 KB
 * (and the response dropped there), one SSE line to MAX_SSE_LINE_BYTES, and a stream to
 * RESPONSE_LIMITS.chunksPerToken × max_tokens + slack token chunks and as many characters of text per
 * token; past a bound the request fails as `invalid_stream`, saying which.
 */

const ERROR_BODY_LIMIT = 4096;

export const RESPONSE_LIMITS = {
  /** Token-carrying chunks allowed: 2 × max_tokens + 64 (an honest server sends at most max_tokens). */
  chunksPerToken: 2,
  chunkSlack: 64,
  /** Characters of generated text kept: 64 per max_tokens token + 64 Ki (a token is a few characters). */
  textCharsPerToken: 64,
  textSlack: 64 * 1024,
} as const;

export class ResponseConsumer {
  readonly stream: StreamState = newStreamState();
  private readonly splitter = new SseSplitter();
  private status = 0;
  private reason = '';
  private encoding: string | null = null;
  private contentType: string | null = null;
  private errorBody: Buffer[] = [];
  private errorBytes = 0;
  private bodyBytes = 0;
  private payloads = 0;
  private reading = true;
  private readonly maxChunks: number;
  private readonly maxTextChars: number;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly maxTokens: number | null = null,
  ) {
    const L = RESPONSE_LIMITS;
    this.maxChunks =
      maxTokens === null ? Number.POSITIVE_INFINITY : L.chunksPerToken * maxTokens + L.chunkSlack;
    this.maxTextChars =
      maxTokens === null ? Number.POSITIVE_INFINITY : L.textCharsPerToken * maxTokens + L.textSlack;
  }

  /**
   * The status line and the headers that matter. Returns false when the response is already decided and
   * must be dropped now: a 200 whose body is encoded although the client asked for identity.
   */
  head(status: number, reason: string, contentEncoding: string | null, contentType: string | null): boolean {
    this.status = status;
    this.reason = reason;
    this.contentType = contentType;
    const enc = contentEncoding?.trim().toLowerCase() ?? '';
    this.encoding = enc === '' || enc === 'identity' ? null : enc;
    return !(status === 200 && this.encoding !== null);
  }

  /** Feeds body bytes read at time t; returns false when the stream is broken and must be dropped now. */
  body(bytes: Buffer, t: number): boolean {
    if (this.status !== 200) {
      if (this.errorBytes < ERROR_BODY_LIMIT) this.errorBody.push(Buffer.from(bytes));
      this.errorBytes += bytes.length;
      // The first 4 KB say what went wrong; the rest is not worth waiting for.
      return this.errorBytes < ERROR_BODY_LIMIT;
    }
    if (!this.reading) return true;
    this.bodyBytes += bytes.length;
    const s = this.stream;
    const payloads = this.splitter.push(bytes);
    this.payloads += payloads.length;
    for (const payload of payloads) {
      if (!applyEvent(s, this.endpoint, payload, t)) {
        this.reading = false;
        // A broken or error stream may never end by itself.
        return s.streamError === null;
      }
    }
    if (this.splitter.overflow)
      return this.broken(
        `an SSE line grew past ${MAX_SSE_LINE_BYTES / (1024 * 1024)} MiB without a newline (limit of one event)`,
      );
    if (s.contentChunks + s.reasoningChunks > this.maxChunks)
      return this.broken(
        `the server sent more than ${this.maxChunks} token chunks for max_tokens ${this.maxTokens} (limit: ${RESPONSE_LIMITS.chunksPerToken} x max_tokens + ${RESPONSE_LIMITS.chunkSlack})`,
      );
    if (s.textChars > this.maxTextChars)
      return this.broken(
        `the server sent more than ${this.maxTextChars} characters of text for max_tokens ${this.maxTokens} (limit: ${RESPONSE_LIMITS.textCharsPerToken} per token + ${RESPONSE_LIMITS.textSlack})`,
      );
    return true;
  }

  private broken(message: string): false {
    this.stream.streamError = { kind: 'malformed', message };
    this.reading = false;
    return false;
  }

  /** The outcome once the response ended (complete, or cut when `complete` is false). */
  outcome(complete: boolean): RequestError | null {
    if (this.status !== 200) {
      const body =
        this.encoding !== null
          ? `(a ${this.encoding}-encoded body, not decoded: the client asked for Accept-Encoding: identity)`
          : Buffer.concat(this.errorBody).toString('utf8');
      return httpError(this.status, this.reason, body);
    }
    if (this.encoding !== null)
      return requestError(
        'invalid_stream',
        `the server sent a Content-Encoding: ${this.encoding.slice(0, 40)} body the client did not ask for (it sends Accept-Encoding: identity)`,
      );
    const s = this.stream;
    const err = s.streamError;
    if (err?.kind === 'malformed') return requestError('invalid_stream', err.message);
    if (err?.kind === 'server')
      return isContextOverflow(err.message)
        ? requestError('context_overflow', err.message)
        : requestError('other', `error event in stream: ${err.message}`);
    if (complete && this.payloads === 0 && this.bodyBytes > 0)
      return requestError(
        'invalid_stream',
        `the response held no SSE data events (${this.bodyBytes} bytes${this.contentType ? `, Content-Type: ${this.contentType.slice(0, 60)}` : ''})`,
      );
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
