import net from 'node:net';
import type { RequestError } from '../schema/request-record.ts';
import { monotonicMs } from './clock.ts';
import { requestError, socketError } from './errors.ts';
import { HttpParseError, ResponseParser } from './h1-parser.ts';
import { ResponseConsumer } from './response-consumer.ts';
import {
  bodyLength,
  type Outcome,
  type RequestBody,
  type Transport,
  type TransportConfig,
} from './transport-types.ts';

/**
 * Plain-HTTP transport on the client's own keep-alive connections (one per in-flight stream). It skips
 * Node's HTTP client, whose per-read machinery (parser, IncomingMessage stream, events) costs more than
 * the rest of a token's handling: at 1,024 streams one read per token is most of the client's work.
 * Each socket read is stamped before anything else is done with it.
 */

interface Conn {
  socket: net.Socket;
  /** Called with each read while a request owns the connection. */
  onData: ((chunk: Buffer, t: number) => void) | null;
  onEnd: ((err: NodeJS.ErrnoException | null) => void) | null;
  dead: boolean;
}

/** One read buffer for every connection of the process: reads are handled one at a time. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

export function createH1Transport(config: TransportConfig): Transport {
  const url = config.baseUrl;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 80);
  const idle: Conn[] = [];
  const all = new Set<Conn>();
  let readHook: ((t: number) => void) | null = null;
  const headFor = (length: number, extra: Readonly<Record<string, string>> | null | undefined) => {
    let lines = '';
    // Header values come from infx itself (the lockstep tag): CR and LF can never split the request.
    if (extra) for (const [k, v] of Object.entries(extra)) lines += `${k}: ${v.replace(/[\r\n]/g, ' ')}\r\n`;
    return Buffer.from(
      `POST ${config.path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
        `Accept: text/event-stream\r\nAccept-Encoding: identity\r\nConnection: keep-alive\r\n` +
        `Content-Length: ${length}\r\n` +
        `${config.apiKey ? `Authorization: Bearer ${config.apiKey}\r\n` : ''}${lines}\r\n`,
      'latin1',
    );
  };

  function open(): Conn {
    const conn: Conn = { socket: null as unknown as net.Socket, onData: null, onEnd: null, dead: false };
    // Reads land in one shared buffer and go straight to this callback, skipping the stream machinery
    // and a Buffer per read: what is left of a read must be copied before the next one (the parsers do).
    const socket = net.connect({
      host,
      port,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number, buf: Uint8Array) => {
          const t = monotonicMs();
          if (conn.onData !== null) conn.onData(Buffer.from(buf.buffer, buf.byteOffset, n), t);
          // Bytes while no request owns the connection: it can no longer be trusted to frame the next one.
          else if (n > 0) gone(null, true);
          readHook?.(t);
          return true;
        },
      },
    });
    conn.socket = socket;
    all.add(conn);
    const gone = (err: NodeJS.ErrnoException | null, destroy = false) => {
      if (conn.dead) return;
      conn.dead = true;
      if (destroy) socket.destroy();
      all.delete(conn);
      const i = idle.indexOf(conn);
      if (i >= 0) idle.splice(i, 1);
      conn.onEnd?.(err);
    };
    socket.on('error', (err) => gone(err));
    socket.on('close', () => gone(null));
    socket.on('end', () => socket.end());
    return conn;
  }

  function send(
    body: RequestBody,
    signal: AbortSignal,
    headers?: Readonly<Record<string, string>> | null,
    maxTokens: number | null = null,
  ): Promise<Outcome> {
    return new Promise((resolve) => {
      const consumer = new ResponseConsumer(config.endpoint, maxTokens);
      let firstByteMs: number | null = null;
      let writing = true;
      let settled = false;
      let closeAfter = false;
      let sentMs = monotonicMs();
      const reused = idle.pop();
      const conn = reused ?? open();
      const parser = new ResponseParser({
        onHead: (head) => {
          closeAfter = head.close;
          const h = head.headers;
          if (
            !consumer.head(
              head.status,
              head.reason,
              h.get('content-encoding') ?? null,
              h.get('content-type') ?? null,
            )
          )
            finish(consumer.outcome(true), false, true);
        },
        onBody: (bytes) => {
          if (!consumer.body(bytes, lastRead)) finish(consumer.outcome(true), false, true);
        },
        onComplete: () => finish(consumer.outcome(true), false, false),
      });
      let lastRead = 0;
      const finish = (error: RequestError | null, cancelled: boolean, drop: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        conn.onData = null;
        conn.onEnd = null;
        if (drop || closeAfter || !parser.complete || parser.extra || conn.dead) {
          conn.dead = true;
          conn.socket.destroy();
        } else idle.push(conn);
        resolve({ sentMs, firstByteMs, doneMs: monotonicMs(), stream: consumer.stream, error, cancelled });
      };
      conn.onData = (chunk, t) => {
        lastRead = t;
        if (firstByteMs === null) firstByteMs = t;
        try {
          parser.push(chunk);
        } catch (err) {
          if (!(err instanceof HttpParseError)) throw err;
          finish(requestError('invalid_stream', err.message), false, true);
        }
      };
      conn.onEnd = (err) => {
        if (settled) return;
        parser.closed();
        if (parser.complete) return; // onComplete settled it
        if (err) finish(socketError(err, writing, parser.headParsed), false, true);
        else if (parser.headParsed) finish(consumer.outcome(false), false, true);
        else if (firstByteMs !== null)
          finish(
            requestError(
              'connection_reset',
              'the server closed the connection in the middle of the response headers',
            ),
            false,
            true,
          );
        else
          finish(
            requestError(
              writing ? 'write_error' : 'connection_reset',
              'the server closed the connection before answering',
            ),
            false,
            true,
          );
      };
      const onAbort = () =>
        finish(requestError('cancelled', 'cancelled by the client at the end of the run'), true, true);
      const timer = setTimeout(
        () =>
          finish(
            requestError('timeout', `no complete response within ${config.timeoutMs / 1000} s`),
            false,
            true,
          ),
        config.timeoutMs,
      );
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) return onAbort();
      sentMs = monotonicMs();
      conn.socket.cork();
      conn.socket.write(headFor(bodyLength(body), headers));
      const segments = Buffer.isBuffer(body) ? [body] : body;
      segments.forEach((segment, i) => {
        if (i < segments.length - 1) conn.socket.write(segment);
        else
          conn.socket.write(segment, () => {
            writing = false;
          });
      });
      if (segments.length === 0) writing = false;
      conn.socket.uncork();
    });
  }

  return {
    send,
    onRead: (hook) => {
      readHook = hook;
    },
    close: () => {
      for (const c of all) c.socket.destroy();
      all.clear();
      idle.length = 0;
    },
  };
}
