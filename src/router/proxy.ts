import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RouterOptionsInput } from '../schema/router.ts';
import { RouterOptionsSchema } from '../schema/router.ts';
import { type Backend, parseBackends, RouterUsageError } from './backends.ts';
import { createPolicy } from './create.ts';
import { HealthChecker } from './health.ts';
import { KvBlockView } from './kv-blocks.ts';
import { RouterPool } from './pool.ts';
import { routeRequestOf, type ViewOptions } from './request-view.ts';

/**
 * `infx router`: an OpenAI-compatible streaming reverse proxy on node:http in front of the pool (pool.ts).
 *
 * Every request but the router's own `GET /metrics` and `GET /health` is routed: its body is read (up to
 * `maxBodyBytes`, else 413), the policy picks a worker from the request's view (request-view.ts), and the
 * request goes to that backend over a keep-alive agent of its own. The response streams back chunk by
 * chunk as it arrives, pausing the backend while the client's socket is full. The pool hears the first
 * response body chunk (`firstToken`) and the end (`complete`, ok for a status below 400 that ended whole).
 *
 * Failures: a backend that refuses or resets before answering gets a 502 naming it (once retried on a fresh
 * socket when a reused keep-alive socket was reset, the race of an idle socket the backend just closed); one
 * that resets mid-stream has the client's connection cut (its chunked body never ends, so the client sees
 * the truncation) and counts as failed; a client that goes away aborts the backend request; no worker → 503
 * with the policy's reason.
 */

export interface RouterProxyOptions {
  backends: readonly string[];
  router?: RouterOptionsInput;
  port?: number;
  host?: string;
  /** Seconds between health polls of every backend's GET /health; 0 turns polling off. */
  healthIntervalSecs?: number;
  healthFailureThreshold?: number;
  healthSuccessThreshold?: number;
  /** Largest request body accepted (bytes); above it the answer is 413. */
  maxBodyBytes?: number;
  /**
   * kv-aware with KV events: the request's token count and block hashes as the engines compute them
   * (`requestBlockHasher` of infx sim serve, the same tokenizer); null for a request it cannot hash.
   */
  blockHashes?: (path: string, body: unknown) => { inputTokens: number; hashes: string[] } | null;
  /** kv-aware with KV events, a backend without GET /infx/kv-blocks: refuse to start (default) or route on history. */
  kvEventsFallback?: 'refuse' | 'history';
  /** How often the KV block view is refreshed, ms (0: only by refreshKvBlocks()). */
  kvRefreshMs?: number;
  /** kv-aware with KV events: how long startup waits for backends that do not answer yet, ms. */
  backendWaitMs?: number;
  log?: (line: string) => void;
}

export interface RouterProxy {
  readonly url: string;
  readonly pool: RouterPool;
  /** One health poll of every backend now (what the timer runs). */
  pollHealth(): Promise<void>;
  /** Refreshes the backends' KV blocks now (kv-aware with KV events; otherwise does nothing). */
  refreshKvBlocks(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_ROUTER_PORT = 30000;
export const DEFAULT_HEALTH_INTERVAL_SECS = 10;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function forwardHeaders(
  headers: http.IncomingHttpHeaders,
  drop: readonly string[],
): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
}

function errorBody(message: string, type: string, extra: Record<string, unknown> = {}) {
  return { error: { message, type, ...extra } };
}

/** The request body, or null after answering 413 (or when the client went away first). */
function readBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  limit: number,
): Promise<Buffer | null> {
  const tooLarge = () =>
    sendJson(
      res,
      413,
      errorBody(
        `infx router: request body over the limit of ${limit} bytes (--max-body-mb); raise the limit or send less`,
        'request_too_large',
      ),
      true,
    );
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    tooLarge();
    req.resume();
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        if (!res.headersSent) tooLarge();
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(size > limit ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)),
    );
    req.on('error', () => resolve(null));
    req.on('close', () => {
      if (!req.complete) resolve(null);
    });
  });
}

export async function startRouterProxy(opts: RouterProxyOptions): Promise<RouterProxy> {
  const backends: Backend[] = parseBackends(opts.backends);
  const parsed = RouterOptionsSchema.safeParse(opts.router ?? {});
  if (!parsed.success)
    throw new RouterUsageError(
      `bad router options: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      'see infx router --help for each flag’s range',
    );
  let options = parsed.data;
  const log = opts.log ?? (() => {});
  let kvView: KvBlockView | null = null;
  if (options.policy === 'kv-aware' && options.kvAware.kvEvents) {
    if (!opts.blockHashes)
      throw new RouterUsageError(
        '--policy kv-aware with --kv-events needs to hash request text as the engines do (their tokenizer), and none was given',
        'pass --no-kv-events: the router then predicts each backend’s cache from its own routing history (--router-ttl-secs)',
      );
    kvView = new KvBlockView({
      urls: backends.map((b) => b.url),
      blockSize: options.kvAware.blockSize,
      log,
      ...(opts.backendWaitMs !== undefined ? { waitMs: opts.backendWaitMs } : {}),
    });
    if ((await kvView.check(opts.kvEventsFallback === 'history')) === 'missing') {
      log(
        'kv-aware: a backend has no GET /infx/kv-blocks: routing on the router’s own history (--kv-events-fallback history)',
      );
      options = { ...options, kvAware: { ...options.kvAware, kvEvents: false } };
      kvView = null;
    } else {
      const view = kvView;
      const queried = backends.filter((b) => !view.followsEvents(b.url)).map((b) => b.url);
      log(
        queried.length === 0
          ? 'kv-aware: following the KV events of every backend (GET /infx/kv-events)'
          : `kv-aware: no GET /infx/kv-events on ${queried.join(', ')}: asking them about the hashes routed`,
      );
    }
  }
  const blocks = kvView;
  const policy = createPolicy(options, blocks ? { cachedBlocks: (url) => blocks.cachedBlocks(url) } : {});
  const pool = new RouterPool(
    backends.map((b) => b.url),
    policy,
    options,
  );
  const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const view: ViewOptions =
    options.policy === 'kv-aware' && !blocks
      ? { estimateBlocks: { blockSize: options.kvAware.blockSize } }
      : {};
  const agents = backends.map(
    () => new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 4096 }),
  );

  const forward = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: Buffer,
    id: number,
    worker: number,
    retried: boolean,
  ): void => {
    const backend = backends[worker]!;
    let done = false;
    let responded = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      pool.complete(id, ok);
    };
    const upstream = http.request({
      agent: agents[worker]!,
      host: backend.hostname,
      port: backend.port,
      method: req.method,
      path: req.url,
      headers: {
        ...forwardHeaders(req.headers, ['host', 'content-length', 'expect']),
        host: `${backend.hostname.includes(':') ? `[${backend.hostname}]` : backend.hostname}:${backend.port}`,
        ...(body.length > 0 || req.method === 'POST' || req.method === 'PUT'
          ? { 'content-length': body.length }
          : {}),
      },
    });
    upstream.setNoDelay(true); // chunks go out as they come, not behind Nagle and a delayed ACK
    const onClientClose = () => {
      if (res.writableFinished) return;
      upstream.destroy();
      finish(false);
    };
    res.once('close', onClientClose);
    upstream.on('response', (ures) => {
      responded = true;
      const status = ures.statusCode ?? 502;
      res.writeHead(status, forwardHeaders(ures.headers, []));
      res.flushHeaders();
      let first = true;
      ures.on('data', (chunk: Buffer) => {
        if (first) {
          first = false;
          pool.firstToken(id);
        }
        if (!res.write(chunk)) ures.pause();
      });
      res.on('drain', () => ures.resume());
      ures.on('end', () => {
        res.end();
        finish(status < 400);
      });
      ures.on('close', () => {
        if (ures.complete) return;
        finish(false);
        res.destroy();
      });
      ures.on('error', () => {});
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (done) return;
      if (!responded && !retried && upstream.reusedSocket && err.code === 'ECONNRESET') {
        res.off('close', onClientClose);
        forward(req, res, body, id, worker, true);
        return;
      }
      finish(false);
      if (responded) {
        res.destroy();
        return;
      }
      sendJson(
        res,
        502,
        errorBody(
          `infx router: backend ${backend.url} failed before answering (${err.code ?? err.message}); check that it is up`,
          'bad_gateway',
          { backend: backend.url },
        ),
      );
    });
    upstream.end(body);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') return sendJson(res, 200, pool.metrics());
    if (req.method === 'GET' && path === '/health') {
      const healthy = pool.workers.filter((w) => w.healthy).length;
      return healthy > 0
        ? sendJson(res, 200, { status: 'ok', healthy, backends: pool.workers.length })
        : sendJson(
            res,
            503,
            errorBody(`infx router: none of the ${pool.workers.length} backends is healthy`, 'unhealthy'),
          );
    }
    const body = await readBody(req, res, limit);
    if (body === null || res.destroyed) return;
    const request = routeRequestOf(req.headers, body, view);
    if (blocks) {
      const kv = opts.blockHashes!(path ?? '/', request.body);
      if (kv) {
        request.inputTokens = kv.inputTokens;
        request.blockHashes = kv.hashes;
        blocks.note(kv.hashes);
      }
    }
    const routed = pool.route(request);
    if (routed.kind === 'none')
      return sendJson(
        res,
        503,
        errorBody(`infx router: no worker for this request: ${routed.message}`, 'no_worker', {
          reason: routed.reason,
        }),
      );
    forward(req, res, body, routed.id, routed.worker, false);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`infx router: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendJson(res, 500, errorBody('infx router: internal error', 'internal'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;

  const health = new HealthChecker(
    {
      urls: backends.map((b) => b.url),
      isHealthy: (i) => pool.workers[i]!.healthy,
      setHealthy: (i, healthy) => pool.setHealthy(i, healthy),
      onChange: (url, healthy, why) => log(`backend ${url} is ${healthy ? 'healthy' : 'unhealthy'}: ${why}`),
    },
    {
      failureThreshold: opts.healthFailureThreshold ?? 3,
      successThreshold: opts.healthSuccessThreshold ?? 1,
      timeoutMs: Math.min(
        5000,
        Math.max(100, (opts.healthIntervalSecs ?? DEFAULT_HEALTH_INTERVAL_SECS) * 1000),
      ),
    },
  );
  const timers: NodeJS.Timeout[] = [];
  const healthSecs = opts.healthIntervalSecs ?? DEFAULT_HEALTH_INTERVAL_SECS;
  if (healthSecs > 0) timers.push(setInterval(() => void health.poll(), healthSecs * 1000));
  const evictSecs =
    options.policy === 'kv-aware' ? options.kvAware.ttlSecs : options.cacheAware.evictionIntervalSecs;
  if (policy.evict && evictSecs > 0) timers.push(setInterval(() => policy.evict?.(), evictSecs * 1000));
  const kvRefreshMs = opts.kvRefreshMs ?? 250;
  if (blocks && kvRefreshMs > 0) timers.push(setInterval(() => void blocks.refresh(), kvRefreshMs));
  for (const t of timers) t.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new RouterUsageError(
              `infx router: ${opts.host ?? '127.0.0.1'}:${opts.port ?? DEFAULT_ROUTER_PORT} is already in use`,
              'pass another --port (0 picks a free one)',
            )
          : err,
      ),
    );
    server.listen(opts.port ?? DEFAULT_ROUTER_PORT, opts.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    pool,
    pollHealth: () => health.poll(),
    refreshKvBlocks: () => blocks?.refresh() ?? Promise.resolve(),
    close: async () => {
      for (const t of timers) clearInterval(t);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      health.close();
      for (const a of agents) a.destroy();
    },
  };
}
