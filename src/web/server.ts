import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { openStore, type Store } from '../store/db.ts';
import type { ApiContext, ApiResponse } from './api/context.ts';
import { routeApi } from './api/router.ts';
import { AvailabilityCache } from './availability.ts';
import { errorBody, HttpError, securityHeaders, sendBody, sendJson } from './http.ts';
import { RunDirs } from './run-files.ts';
import { findUiDir, serveStatic } from './static.ts';

/**
 * `infx serve`: the dashboard on node:http, no framework. `/api/…` is the JSON API (src/web/api, shapes in
 * src/schema/web-api.ts); every other path serves the built UI (dist/web), the index page for the app's
 * routes so deep links work. Read-only: nothing here writes to the store or the run directories, and the
 * store is opened read-only; requests are answered only under loopback names or --allowed-host ones.
 */

export interface WebServerOptions {
  /** Results database URL (SQLite path, sqlite:PATH or postgres://…). */
  db: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1 (this machine only). */
  host?: string;
  log?: (line: string) => void;
  /**
   * Folders holding run directories (`<dir>/<run-id>/manifest.json`), for the run view's engine commands
   * and the records and server logs; default `runs` when it exists.
   */
  runsDirs?: readonly string[];
  /** The UI build; default: dist/web next to the bundle (see findUiDir). */
  uiDir?: string | null;
  /**
   * Host names (or `name:port`) requests may be addressed to besides 127.0.0.1, localhost and [::1]
   * (any port): the names clients use when the server listens beyond loopback (see hostAllowed).
   */
  allowedHosts?: readonly string[];
}

export interface WebServer {
  url: string;
  port: number;
  /** The store the server reads, opened read-only. */
  readonly store: Store;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `name[:port]` → its name, lowercased (an IPv6 literal keeps its brackets); null when malformed. */
function hostName(host: string): string | null {
  const h = host.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/.exec(h);
  return m ? (m[1] as string) : null;
}

/**
 * DNS rebinding: a page on another site can make a browser send requests to this server under that site's
 * name (its DNS answer switched to 127.0.0.1). So only requests addressed to this machine's loopback names
 * (127.0.0.1, localhost, [::1], any port) or a name given with --allowed-host are answered; the name is
 * compared without its port, unless the allowed entry names one. No Host header is refused too.
 */
export function hostAllowed(host: string | undefined, allowed: readonly string[] = []): boolean {
  if (host === undefined) return false;
  const name = hostName(host);
  if (name === null) return false;
  if (LOOPBACK_HOSTS.has(name)) return true;
  const full = host.trim().toLowerCase();
  return allowed.some((a) => {
    const want = a.trim().toLowerCase();
    return want.includes(':') && !want.startsWith('[') ? want === full : hostName(want) === name;
  });
}

function urlOf(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}/`;
}

async function answer(req: IncomingMessage, res: ServerResponse, r: ApiResponse): Promise<void> {
  if (r.type === 'json') return sendJson(req, res, 200, r.body);
  if (r.type === 'text') return sendBody(req, res, 200, r.contentType, r.body, r.headers);
  const size = statSync(r.path).size;
  securityHeaders(res);
  res.writeHead(200, {
    'content-type': r.contentType,
    'content-length': size,
    'cache-control': 'no-cache',
    // Logs and records are shown as text, never run as a page of this origin.
    'content-security-policy': "default-src 'none'; sandbox",
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await new Promise<void>((done) => {
    createReadStream(r.path)
      .on('error', () => {
        res.destroy();
        done();
      })
      .on('end', done)
      .pipe(res);
  });
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const log = opts.log ?? (() => {});
  // Read-only: the server can read the store and nothing else (a write fails in the database itself).
  const store = await openStore(opts.db, { readOnly: true });
  const allowedHosts = opts.allowedHosts ?? [];
  const runsDirs = opts.runsDirs ?? (existsSync('runs') ? ['runs'] : []);
  const ctx: ApiContext = {
    store,
    availability: new AvailabilityCache(store),
    runDirs: new RunDirs(runsDirs.map((d) => resolve(d))),
    uiDir: opts.uiDir === undefined ? findUiDir() : opts.uiDir,
  };
  if (ctx.uiDir === null)
    log('note: the dashboard UI is not built (run `npm run build`); serving the API only');

  const server = createServer((req, res) => {
    if (!hostAllowed(req.headers.host, allowedHosts)) {
      const e = new HttpError(
        421,
        'host-not-allowed',
        `this server answers requests for 127.0.0.1, localhost and [::1]${allowedHosts.length ? ` and ${allowedHosts.join(', ')}` : ''}, not for Host ${JSON.stringify(req.headers.host ?? null)}: start infx serve with --allowed-host NAME to serve it under that name`,
      );
      sendJson(req, res, e.status, errorBody(e)).catch(() => res.destroy());
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === '/api' || path.startsWith('/api/')) {
      routeApi(ctx, req.method ?? 'GET', path, url.searchParams)
        .then((r) => answer(req, res, r))
        .catch((err: unknown) => {
          const e =
            err instanceof HttpError
              ? err
              : new HttpError(500, 'internal', `internal error: ${(err as Error)?.message ?? String(err)}`);
          if (e.status === 500)
            log(`error: ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`);
          if (res.headersSent) {
            res.destroy();
            return;
          }
          if (e.status === 405) res.setHeader('allow', 'GET, HEAD');
          return sendJson(req, res, e.status, errorBody(e));
        })
        .catch(() => res.destroy());
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    serveStatic(req, res, ctx.uiDir, path);
  });
  server.keepAliveTimeout = 5000;

  const host = opts.host ?? '127.0.0.1';
  try {
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(opts.port ?? 8080, host, () => {
        server.off('error', fail);
        ok();
      });
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    url: urlOf(host, port),
    port,
    store,
    close() {
      closing ??= (async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        });
        await store.close();
      })();
      return closing;
    },
  };
}

/** What to tell a user whose server could not listen (port taken, not allowed, no such address); else null. */
export function listenErrorMessage(err: unknown, host: string, port: number, flag = '--port'): string | null {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return null;
  return `cannot listen on ${host}:${port} (${code}): choose another ${flag} (0: any free one) or --host`;
}
