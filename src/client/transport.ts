import http from 'node:http';
import https from 'node:https';
import type { RequestError } from '../schema/request-record.ts';
import { monotonicMs } from './clock.ts';
import { httpError, isContextOverflow, requestError, socketError } from './errors.ts';
import { SseSplitter } from './sse.ts';
import { applyEvent, type Endpoint, newStreamState, type StreamState } from './stream-reader.ts';

/**
 * One streaming request over a keep-alive connection. Every timestamp is taken when a socket read
 * completes (the `data` event), before the bytes are split or parsed; one connection carries one
 * in-flight stream (the agent opens a new socket whenever no idle one is free).
 */

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

export interface Transport {
  send(body: Buffer, signal: AbortSignal): Promise<Outcome>;
  close(): void;
}

const ERROR_BODY_LIMIT = 4096;

export function createTransport(config: TransportConfig): Transport {
  const secure = config.baseUrl.protocol === 'https:';
  const mod = secure ? https : http;
  const agent = new mod.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, scheduling: 'lifo' });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
  };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const base = {
    protocol: config.baseUrl.protocol,
    hostname: config.baseUrl.hostname,
    port: config.baseUrl.port,
    path: config.path,
    method: 'POST',
    agent,
  };
  return {
    send: (body, signal) => sendOne(mod, base, headers, config, body, signal),
    close: () => agent.destroy(),
  };
}

class ClientTimeout extends Error {}
class ClientCancel extends Error {}

function sendOne(
  mod: typeof http | typeof https,
  base: http.RequestOptions,
  headers: Record<string, string>,
  config: TransportConfig,
  body: Buffer,
  signal: AbortSignal,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const stream = newStreamState();
    let firstByteMs: number | null = null;
    let settled = false;
    let writing = true;
    let gotResponse = false;
    let sentMs = monotonicMs();
    const finish = (error: RequestError | null, cancelled = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve({ sentMs, firstByteMs, doneMs: monotonicMs(), stream, error, cancelled });
    };
    const req = mod.request({ ...base, headers: { ...headers, 'content-length': String(body.length) } });
    const onAbort = () => req.destroy(new ClientCancel('cancelled by the client at the end of the run'));
    const timer = setTimeout(
      () => req.destroy(new ClientTimeout(`no complete response within ${config.timeoutMs / 1000} s`)),
      config.timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof ClientCancel) finish(requestError('cancelled', err.message), true);
      else if (err instanceof ClientTimeout) finish(requestError('timeout', err.message));
      else finish(socketError(err, writing, gotResponse));
    });
    req.on('finish', () => {
      writing = false;
    });
    req.on('response', (res) => {
      firstByteMs = monotonicMs();
      gotResponse = true;
      if (res.statusCode !== 200) return readErrorBody(res, finish);
      const splitter = new SseSplitter();
      let reading = true;
      res.on('data', (chunk: Buffer) => {
        const t = monotonicMs();
        if (!reading) return;
        for (const payload of splitter.push(chunk)) {
          if (!applyEvent(stream, config.endpoint, payload, t)) {
            reading = false;
            // A broken or error stream may never end by itself: settle now and drop the connection.
            if (stream.streamError) {
              finish(streamOutcome(stream, config.endpoint));
              req.destroy();
            }
            break;
          }
        }
      });
      res.on('error', (err: NodeJS.ErrnoException) => {
        if (err instanceof ClientCancel) finish(requestError('cancelled', err.message), true);
        else if (err instanceof ClientTimeout) finish(requestError('timeout', err.message));
        else finish(socketError(err, false, true));
      });
      res.on('end', () => finish(streamOutcome(stream, config.endpoint)));
      res.on('close', () => {
        if (!res.complete) finish(truncated(stream));
      });
    });
    if (signal.aborted) return onAbort();
    sentMs = monotonicMs();
    req.end(body);
  });
}

function readErrorBody(res: http.IncomingMessage, finish: (e: RequestError) => void) {
  const parts: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    if (size < ERROR_BODY_LIMIT) parts.push(chunk);
    size += chunk.length;
  });
  const done = () =>
    finish(httpError(res.statusCode ?? 0, res.statusMessage ?? '', Buffer.concat(parts).toString('utf8')));
  res.on('end', done);
  res.on('close', done);
  res.on('error', done);
}

function truncated(stream: StreamState): RequestError {
  const got = stream.contentChunks + stream.reasoningChunks;
  return requestError('stream_truncated', `stream closed before it finished, after ${got} token chunks`);
}

function streamOutcome(stream: StreamState, endpoint: Endpoint): RequestError | null {
  const err = stream.streamError;
  if (err?.kind === 'malformed') return requestError('invalid_stream', err.message);
  if (err?.kind === 'server')
    return isContextOverflow(err.message)
      ? requestError('context_overflow', err.message)
      : requestError('other', `error event in stream: ${err.message}`);
  if (!stream.done && !stream.finished) return truncated(stream);
  if (stream.firstTokenMs === null)
    return requestError('no_content', `the ${endpoint} stream ended without a single token`);
  return null;
}
