import type { FaultKind } from '../../schema/scripted-script.ts';
import type { Endpoint } from '../openai-wire.ts';

/**
 * What the scripted server records of each generation request. Times are milliseconds on the monotonic
 * clock (`nowMs()` in clock.ts: process.hrtime), which every process on the host shares.
 */

/** How much the server records of a request: every socket write, or the request's summary only. */
export type LogLevel = 'writes' | 'requests';

/** One socket write of a response body (HTTP chunk framing not counted). */
export interface WriteRecord {
  /** Index of the first token chunk in this write; null when it carries none (role, usage, fault events). */
  chunk: number | null;
  /** Token chunks in this write (1 when paced; up to burstEventsPerWrite in burst mode). */
  chunks: number;
  /** Tokens in those chunks. */
  tokens: number;
  /** SSE events in this write, the role, usage and [DONE] events included. */
  events: number;
  bytes: number;
  /** When the script said to write it; null in burst mode and for writes made at the request's start. */
  deadlineMs: number | null;
  /** Just before the write was handed to the socket. */
  writtenMs: number;
}

export type Outcome =
  /** Still being served. */
  | 'pending'
  /** The full response was written. */
  | 'ok'
  /** The scripted fault (or an automatic context overflow) happened. */
  | 'fault'
  /** 400/413: the body was not a request the server accepts. */
  | 'bad-request'
  /** The client closed the connection before the response was complete. */
  | 'client-closed'
  /** The server was closed before the response was complete. */
  | 'server-closed';

export interface ServerEvent {
  /** Arrival index: 0-based count of POSTs to a generation endpoint. */
  k: number;
  endpoint: Endpoint;
  /** The request's `stream` flag; null until the body is parsed. */
  stream: boolean | null;
  /** The request's headers arrived. */
  arrivalMs: number;
  /** Its body was fully read; null if it never was. */
  bodyReadMs: number | null;
  /** The script's clock started (body read, or the serial turn came); token chunk n is due at start + ttftMs + n·itlMs. */
  startMs: number | null;
  /** The response ended or the connection closed. */
  endMs: number | null;
  bodyBytes: number;
  /** HTTP status sent; null when none was (reset, hang-before-headers). */
  status: number | null;
  /** The fault applied, or null. An automatic overflow (maxModelLen) reads 'context-overflow'. */
  fault: FaultKind | null;
  outcome: Outcome;
  /** usage.prompt_tokens before any scripted offset; null until the body is parsed. */
  promptTokens: number | null;
  /** max tokens the request asked for, null when it did not say. */
  maxTokens: number | null;
  /** Token chunks and tokens written so far. */
  chunks: number;
  tokens: number;
  /** Response body bytes written so far. */
  bytes: number;
  /** Every body write, when the log level is 'writes'; empty otherwise. */
  writes: WriteRecord[];
}
