import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Loopback pieces for the router proxy's tests (src/router/proxy.test.ts): an OpenAI-like SSE backend on
 * node:http whose every request the test answers by hand (or that answers at once, `auto`), and a client
 * that reads a response piece by piece. Nothing here waits on a clock: tests hand-shake on events.
 */

export interface Exchange {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** Resolves when the router's side of this request goes away (it ended or was aborted). */
  closed: Promise<void>;
}

export function sseChunk(text: string): string {
  return `data: ${JSON.stringify({ choices: [{ index: 0, text, finish_reason: null }] })}\n\n`;
}

export class TestBackend {
  url = '';
  healthStatus = 200;
  /** Answer every request at once with these SSE chunks and [DONE] (null: the test answers by hand). */
  auto: string[] | null = null;
  readonly received: Exchange[] = [];
  private readonly waiting: ((e: Exchange) => void)[] = [];
  private readonly queued: Exchange[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server = http.createServer((req, res) => this.onRequest(req, res));

  constructor(readonly name: string) {
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.url === '/health') {
      res.writeHead(this.healthStatus).end();
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
      const e: Exchange = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(parts).toString('utf8'),
        req,
        res,
        closed,
      };
      this.received.push(e);
      if (this.auto) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const c of this.auto) res.write(sseChunk(c));
        res.end('data: [DONE]\n\n');
        return;
      }
      const w = this.waiting.shift();
      if (w) w(e);
      else this.queued.push(e);
    });
  }

  /** The next request the test answers by hand. */
  next(): Promise<Exchange> {
    const q = this.queued.shift();
    if (q) return Promise.resolve(q);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface ClientStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The next body piece, or null at the end (or after an error). */
  piece(): Promise<string | null>;
  /** Everything that is left, and how the body ended. */
  rest(): Promise<{ text: string; complete: boolean }>;
  destroy(): void;
}

const noKeepAlive = new http.Agent({ keepAlive: false });

/** POSTs `body` (JSON unless a string) and resolves at the response's headers. */
export function open(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ClientStream> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method: 'POST',
      agent: noKeepAlive,
      headers: { 'content-type': 'application/json', ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const pieces: string[] = [];
      const waiters: ((p: string | null) => void)[] = [];
      let ended = false;
      let complete = false;
      const push = (p: string | null) => {
        const w = waiters.shift();
        if (w) w(p);
        else if (p !== null) pieces.push(p);
      };
      res.on('data', (c: Buffer) => push(c.toString('utf8')));
      res.on('end', () => {
        complete = true;
      });
      res.on('error', () => {});
      res.on('close', () => {
        ended = true;
        complete = complete || res.complete;
        while (waiters.length > 0) waiters.shift()!(null);
      });
      const piece = () =>
        pieces.length > 0
          ? Promise.resolve(pieces.shift()!)
          : ended
            ? Promise.resolve(null)
            : new Promise<string | null>((r) => waiters.push(r));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        piece,
        async rest() {
          let text = '';
          for (let p = await piece(); p !== null; p = await piece()) text += p;
          return { text, complete };
        },
        destroy: () => req.destroy(),
      });
    });
    req.end(payload);
  });
}

export async function getJson(base: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: (await res.json()) as unknown };
}
