import https from 'node:https';
import type { RequestError } from '../schema/request-record.ts';
import { monotonicMs } from './clock.ts';
import { requestError, socketError } from './errors.ts';
import { createH1Transport } from './h1-transport.ts';
import { ResponseConsumer } from './response-consumer.ts';
import {
  bodyLength,
  type Outcome,
  type RequestBody,
  type Transport,
  type TransportConfig,
} from './transport-types.ts';

export type { Outcome, Transport, TransportConfig } from './transport-types.ts';

/**
 * One streaming request over a keep-alive connection; one connection per in-flight stream. Every
 * timestamp is taken when a socket read completes, before the bytes are split or parsed. Plain HTTP
 * goes over the client's own HTTP/1.1 connections (h1-transport.ts); HTTPS over Node's client.
 */

export function createTransport(config: TransportConfig): Transport {
  return config.baseUrl.protocol === 'https:' ? createHttpsTransport(config) : createH1Transport(config);
}

class ClientTimeout extends Error {}
class ClientCancel extends Error {}

function createHttpsTransport(config: TransportConfig): Transport {
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: Number.POSITIVE_INFINITY,
    scheduling: 'lifo',
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'accept-encoding': 'identity',
  };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const base = {
    hostname: config.baseUrl.hostname,
    port: config.baseUrl.port,
    path: config.path,
    method: 'POST',
    agent,
  };
  const send = (
    body: RequestBody,
    signal: AbortSignal,
    extra?: Readonly<Record<string, string>> | null,
    maxTokens: number | null = null,
  ) =>
    new Promise<Outcome>((resolve) => {
      const consumer = new ResponseConsumer(config.endpoint, maxTokens);
      let firstByteMs: number | null = null;
      let settled = false;
      let writing = true;
      let sentMs = monotonicMs();
      const finish = (error: RequestError | null, cancelled = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve({ sentMs, firstByteMs, doneMs: monotonicMs(), stream: consumer.stream, error, cancelled });
      };
      const req = https.request({
        ...base,
        headers: { ...headers, ...extra, 'content-length': String(bodyLength(body)) },
      });
      const onAbort = () => req.destroy(new ClientCancel('cancelled by the client at the end of the run'));
      const timer = setTimeout(
        () => req.destroy(new ClientTimeout(`no complete response within ${config.timeoutMs / 1000} s`)),
        config.timeoutMs,
      );
      const onError = (err: NodeJS.ErrnoException) => {
        if (err instanceof ClientCancel) finish(requestError('cancelled', err.message), true);
        else if (err instanceof ClientTimeout) finish(requestError('timeout', err.message));
        else finish(socketError(err, writing, firstByteMs !== null));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', onError);
      req.on('finish', () => {
        writing = false;
      });
      req.on('response', (res) => {
        firstByteMs = monotonicMs();
        const header = (name: string) => {
          const v = res.headers[name];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        };
        if (
          !consumer.head(
            res.statusCode ?? 0,
            res.statusMessage ?? '',
            header('content-encoding'),
            header('content-type'),
          )
        ) {
          finish(consumer.outcome(true));
          req.destroy();
          return;
        }
        res.on('data', (chunk: Buffer) => {
          const t = monotonicMs();
          if (!consumer.body(chunk, t)) {
            finish(consumer.outcome(true));
            req.destroy();
          }
        });
        res.on('error', onError);
        res.on('end', () => finish(consumer.outcome(true)));
        res.on('close', () => {
          if (!res.complete) finish(consumer.outcome(false));
        });
      });
      if (signal.aborted) return onAbort();
      sentMs = monotonicMs();
      req.end(Buffer.isBuffer(body) ? body : Buffer.concat(body));
    });
  return { send, close: () => agent.destroy() };
}
