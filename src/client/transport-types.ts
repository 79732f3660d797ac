import type { RequestError } from '../schema/request-record.ts';
import type { Endpoint, StreamState } from './stream-reader.ts';

/** What a transport is (transport.ts picks one; h1-transport.ts is the plain-HTTP one). */

export interface TransportConfig {
  baseUrl: URL;
  endpoint: Endpoint;
  path: string;
  timeoutMs: number;
  apiKey: string | null;
}

export interface Outcome {
  sentMs: number;
  firstByteMs: number | null;
  doneMs: number;
  stream: StreamState;
  error: RequestError | null;
  cancelled: boolean;
}

/**
 * A request body: one Buffer, or segments written in order (an agentic turn's shared message prefixes,
 * never copied into one Buffer per request).
 */
export type RequestBody = Buffer | readonly Buffer[];

/** Bytes of a body. */
export function bodyLength(body: RequestBody): number {
  if (Buffer.isBuffer(body)) return body.length;
  let n = 0;
  for (const b of body) n += b.length;
  return n;
}

export interface Transport {
  /**
   * `headers`: extra request headers (names in lower case), e.g. the lockstep tag. `maxTokens`: what the
   * request asked for, which bounds how much of a stream the client keeps (response-consumer.ts).
   */
  send(
    body: RequestBody,
    signal: AbortSignal,
    headers?: Readonly<Record<string, string>> | null,
    maxTokens?: number | null,
  ): Promise<Outcome>;
  /**
   * Called after each socket read is handled, with the read's time (null: no longer). A load loop checks
   * its due times there, so a request due while a burst of reads is handled goes out between two of them,
   * not after the whole burst (the event loop runs timers only once its I/O callbacks are done).
   */
  onRead?(hook: ((t: number) => void) | null): void;
  close(): void;
}
