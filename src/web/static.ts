import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { securityHeaders } from './http.ts';

/**
 * The built UI (`dist/web`, written by `vite build` from src/web/ui): found next to the CLI bundle, as the
 * client's worker is, and served with the index page for every other path so deep links (/runs/ID) work.
 */

/** The UI build: `$INFX_WEB_DIR`, else `web/` next to the bundle (dist/web), else ./dist/web; null: not built. */
export function findUiDir(): string | null {
  const override = process.env.INFX_WEB_DIR;
  if (override) return existsSync(join(override, 'index.html')) ? resolve(override) : null;
  let dir = dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  for (let i = 0; i < 4; i++, dir = dirname(dir)) candidates.push(join(dir, 'web'), join(dir, 'dist', 'web'));
  candidates.push(join(process.cwd(), 'dist', 'web'));
  for (const c of candidates) if (existsSync(join(c, 'index.html'))) return resolve(c);
  return null;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Scripts and styles from this origin only; inline style attributes for the charts' SVG and layout. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>infx dashboard</title>
<p>The dashboard UI is not built: run <code>npm run build</code> (it writes <code>dist/web</code>), then reload.
The JSON API under <a href="/api/health">/api/</a> works without it.</p>`;

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  path: string,
  size: number,
  immutable: boolean,
) {
  const type = TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
  securityHeaders(res);
  res.setHeader('content-type', type);
  res.setHeader('content-length', size);
  res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (type.startsWith('text/html')) res.setHeader('content-security-policy', CSP);
  res.writeHead(status);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(path)
    .on('error', () => res.destroy())
    .pipe(res);
}

const fileSize = (path: string): number | null => {
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
};

/** Serves `pathname` from the UI build (never outside it); paths without a file get the index page. */
export function serveStatic(
  req: IncomingMessage,
  res: ServerResponse,
  uiDir: string | null,
  pathname: string,
): void {
  if (uiDir === null) {
    securityHeaders(res);
    res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
    res.end(req.method === 'HEAD' ? undefined : NOT_BUILT);
    return;
  }
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    rel = '/';
  }
  const path = resolve(uiDir, `.${rel.includes('\0') ? '/' : rel}`);
  const inside = path === uiDir || path.startsWith(uiDir + sep);
  const size = inside && path !== uiDir ? fileSize(path) : null;
  if (size !== null) {
    send(req, res, 200, path, size, rel.startsWith('/assets/'));
    return;
  }
  // A missing asset is a 404; any other path is a route of the single-page app.
  if (rel.startsWith('/assets/') || /\.[a-z0-9]{1,5}$/i.test(rel)) {
    securityHeaders(res);
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : 'not found\n');
    return;
  }
  const index = join(uiDir, 'index.html');
  send(req, res, 200, index, fileSize(index) ?? 0, false);
}
