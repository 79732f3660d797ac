import net from 'node:net';

/**
 * A hostile "OpenAI-compatible" server for the client's reliability tests: a raw `net` server on
 * 127.0.0.1 whose every answer is scripted byte by byte, so it can lie in ways no HTTP library would let
 * it (garbage status lines, chunk sizes that are not true, usage that is negative, events that never
 * end, one byte per second). Each request is handed to a behaviour, chosen per path: `models` for GET
 * /v1/models, `generate` (by k, the 0-based count of generation requests) for the POSTs.
 */

export interface Exchange {
  method: string;
  path: string;
  headers: Map<string, string>;
  /** The JSON request body (null when none or not JSON). */
  body: Record<string, unknown> | null;
  /** Generation requests before this one, on every connection. */
  k: number;
  /** Writes, waiting for the socket to drain; false once the client has gone. */
  write(data: string | Buffer): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /** The client closed or reset the connection. */
  readonly gone: boolean;
  socket: net.Socket;
}

/** What to do with the connection afterwards: keep it for the next request, close it (FIN), or reset it. */
export type After = 'keep' | 'close' | 'reset' | 'hang';
export type Behaviour = (x: Exchange) => Promise<After>;

export interface HostileOptions {
  /** Every generation request (a behaviour that varies per request looks at `x.k`). */
  generate: Behaviour;
  models?: Behaviour;
}

export interface HostileServer {
  url: string;
  /** Generation requests received so far. */
  readonly requests: number;
  /** Bytes the server wrote. */
  readonly bytesWritten: number;
  close(): Promise<void>;
}

export async function startHostile(opts: HostileOptions): Promise<HostileServer> {
  let k = 0;
  let written = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setNoDelay(true);
    serve(socket).catch(() => socket.destroy());
  });
  async function serve(socket: net.Socket): Promise<void> {
    const reader = new RequestReader(socket);
    for (;;) {
      const req = await reader.next();
      if (req === null) return;
      const generation = req.method === 'POST';
      const behaviour = generation
        ? opts.generate
        : req.path === '/v1/models'
          ? (opts.models ?? models)
          : notFound;
      const x: Exchange = {
        ...req,
        k: generation ? k++ : -1,
        socket,
        get gone() {
          return socket.destroyed || !socket.writable;
        },
        write: (data) => {
          if (socket.destroyed || !socket.writable) return Promise.resolve(false);
          written += data.length;
          return new Promise((resolve) => {
            const ok = socket.write(data);
            if (ok) resolve(true);
            else {
              const done = () => {
                socket.off('drain', done);
                socket.off('close', done);
                resolve(!socket.destroyed);
              };
              socket.on('drain', done);
              socket.on('close', done);
            }
          });
        },
        sleep: (ms) =>
          new Promise((resolve) => {
            const done = () => {
              clearTimeout(t);
              socket.off('close', done);
              resolve();
            };
            const t = setTimeout(done, ms);
            socket.on('close', done);
          }),
      };
      const after = await behaviour(x);
      if (after === 'close') return void socket.end();
      if (after === 'reset') return void socket.resetAndDestroy();
      if (after === 'hang') return;
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return k;
    },
    get bytesWritten() {
      return written;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Reads HTTP/1.1 requests (head, Content-Length body) off a socket, one at a time. */
class RequestReader {
  private buf = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private ended = false;
  constructor(socket: net.Socket) {
    socket.on('data', (c: Buffer) => {
      this.buf = Buffer.concat([this.buf, c]);
      this.waiting?.();
    });
    const end = () => {
      this.ended = true;
      this.waiting?.();
    };
    socket.on('end', end);
    socket.on('close', end);
  }
  private async until(pred: () => boolean): Promise<boolean> {
    while (!pred()) {
      if (this.ended) return false;
      await new Promise<void>((r) => {
        this.waiting = r;
      });
      this.waiting = null;
    }
    return true;
  }
  async next(): Promise<Omit<Exchange, 'k' | 'write' | 'sleep' | 'gone' | 'socket'> | null> {
    if (!(await this.until(() => this.buf.indexOf('\r\n\r\n') >= 0))) return null;
    const end = this.buf.indexOf('\r\n\r\n');
    const lines = this.buf.toString('latin1', 0, end).split('\r\n');
    const [method = '', path = ''] = (lines[0] ?? '').split(' ');
    const headers = new Map<string, string>();
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      if (i > 0) headers.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
    }
    const length = Number(headers.get('content-length') ?? 0);
    if (!(await this.until(() => this.buf.length >= end + 4 + length))) return null;
    const raw = this.buf.toString('utf8', end + 4, end + 4 + length);
    this.buf = this.buf.subarray(end + 4 + length);
    let body: Record<string, unknown> | null = null;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
    } catch {
      body = null;
    }
    return { method, path, headers, body };
  }
}

// ---- building blocks of answers -------------------------------------------------------------------

export const SSE_HEAD =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
export const END = '0\r\n\r\n';
export const DONE = 'data: [DONE]\n\n';

/** One HTTP chunk (the size in hex, as it should be). */
export function chunk(data: string | Buffer): Buffer {
  const b = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
}

export function token(text: string, finish: string | null = null): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, text, finish_reason: finish }] })}\n\n`;
}

export function usage(prompt: unknown, completion: unknown): string {
  return `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion } })}\n\n`;
}

export function maxTokensOf(x: Exchange): number {
  const m = x.body?.max_tokens;
  return typeof m === 'number' ? m : 16;
}

/** The honest stream for a request: max_tokens tokens, usage, [DONE], as SSE events (no framing). */
export function honestEvents(x: Exchange, opts: { usage?: [unknown, unknown] | null } = {}): string[] {
  const n = maxTokensOf(x);
  const events = Array.from({ length: n }, (_, i) => token(' tok', i === n - 1 ? 'length' : null));
  const u = opts.usage === undefined ? [4, n] : opts.usage;
  if (u !== null) events.push(usage(u[0], u[1]));
  events.push(DONE);
  return events;
}

/** Writes events as one chunked SSE response. */
export async function sse(x: Exchange, events: string[], head = SSE_HEAD): Promise<After> {
  await x.write(head);
  for (const e of events) await x.write(chunk(e));
  await x.write(END);
  return 'keep';
}

export const honest: Behaviour = (x) => sse(x, honestEvents(x));

export const models: Behaviour = async (x) => {
  const body = JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] });
  await x.write(
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  return 'keep';
};

const notFound: Behaviour = async (x) => {
  await x.write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
  return 'keep';
};

/** Writes `bytes` one at a time, `everyMs` apart, until done or the client goes. */
export async function trickle(x: Exchange, bytes: string, everyMs: number): Promise<void> {
  for (const ch of bytes) {
    if (!(await x.write(ch))) return;
    await x.sleep(everyMs);
  }
}

/** Writes `total` bytes of `fill` (in 1 MiB writes) until done or the client goes. */
export async function flood(x: Exchange, total: number, fill = 0x78, framed = false): Promise<boolean> {
  const block = Buffer.alloc(1 << 20, fill);
  for (let sent = 0; sent < total; sent += block.length) {
    if (!(await x.write(framed ? chunk(block) : block))) return false;
  }
  return true;
}
