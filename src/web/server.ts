import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { openStore } from '../store/db.ts';
import type { ApiContext, ApiResponse } from './api/context.ts';
import { routeApi } from './api/router.ts';
import { AvailabilityCache } from './availability.ts';
import { errorBody, HttpError, securityHeaders, sendBody, sendJson } from './http.ts';
import { RunDirs } from './run-files.ts';
import { findUiDir, serveStatic } from './static.ts';

/**
 * `infx serve`: the dashboard on node:http, no framework. `/api/…` is the JSON API (src/web/api, shapes in
 * src/schema/web-api.ts); every other path serves the built UI (dist/web), the index page for the app's
 * routes so deep links work. Read-only: nothing here writes to the store or the run directories.
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
}

export interface WebServer {
  url: string;
  port: number;
  close(): Promise<void>;
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
  const store = await openStore(opts.db);
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
