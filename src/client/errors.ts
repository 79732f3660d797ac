import type { ErrorCategory, RequestError } from '../schema/request-record.ts';

/** Maps what went wrong with one request to the error taxonomy (client-metrics-spec §5). */

const CONTEXT_OVERFLOW =
  /context length|maximum context|context_length_exceeded|prompt is too long|too many tokens/i;

export function isContextOverflow(text: string): boolean {
  return CONTEXT_OVERFLOW.test(text);
}

export function requestError(
  category: ErrorCategory,
  message: string,
  status: number | null = null,
  bodyExcerpt: string | null = null,
): RequestError {
  return { category, message, status, bodyExcerpt };
}

export function httpError(status: number, reason: string, body: string): RequestError {
  const excerpt = body.slice(0, 500);
  if (status >= 400 && status < 500 && isContextOverflow(body))
    return requestError('context_overflow', `HTTP ${status} ${reason}: context overflow`, status, excerpt);
  const category: ErrorCategory = status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : 'other';
  return requestError(category, `HTTP ${status} ${reason}`.trim(), status, excerpt);
}

/** A socket-level failure; `writing` says whether the request body was still being sent. */
export function socketError(
  err: NodeJS.ErrnoException,
  writing: boolean,
  gotResponse: boolean,
): RequestError {
  const code = err.code ?? '';
  const detail = `${code ? `${code}: ` : ''}${err.message}`;
  if (code === 'ECONNREFUSED') return requestError('connection_refused', detail);
  if (writing && (code === 'EPIPE' || code === 'ECONNRESET'))
    return requestError('write_error', `while sending the request: ${detail}`);
  if (gotResponse) return requestError('stream_truncated', `connection lost mid-stream: ${detail}`);
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(err.message))
    return requestError('connection_reset', detail);
  if (writing) return requestError('write_error', `while sending the request: ${detail}`);
  return requestError('other', detail);
}
