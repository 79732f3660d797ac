import { EXIT_USAGE, InfxError } from '../schema/errors.ts';

/** Bad router settings (a backend URL, a policy that cannot run here): exit 2 with the flag to fix. */
export class RouterUsageError extends InfxError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT_USAGE, ...(hint !== undefined ? { hint } : {}) });
  }
}

export interface Backend {
  /** Normalised base URL: `http://host:port`, as the pool and /metrics name it. */
  url: string;
  hostname: string;
  port: number;
}

/**
 * The backends `--backend` names, checked: http URLs with a host and nothing after the port but `/`
 * (the router appends the request's own path), no duplicates. Errors name the value and how to fix it.
 */
export function parseBackends(values: readonly string[]): Backend[] {
  if (values.length === 0)
    throw new RouterUsageError(
      'infx router needs at least one --backend URL',
      'pass each engine as --backend http://HOST:PORT',
    );
  const out: Backend[] = [];
  for (const value of values) {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      throw new RouterUsageError(
        `--backend '${value}' is not a URL`,
        'write it as http://HOST:PORT, e.g. --backend http://127.0.0.1:8000',
      );
    }
    if (u.protocol === 'https:')
      throw new RouterUsageError(
        `--backend '${value}': the router speaks plain http to its backends, not https`,
        'pass an http:// URL (put TLS in front of the router, not behind it)',
      );
    if (u.protocol !== 'http:')
      throw new RouterUsageError(
        `--backend '${value}' is not an http:// URL`,
        'write it as http://HOST:PORT, e.g. --backend http://127.0.0.1:8000',
      );
    if ((u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.hash !== '' || u.username !== '')
      throw new RouterUsageError(
        `--backend '${value}' has a path, query or credentials; the router forwards each request's own path`,
        `pass only the origin: --backend ${u.protocol}//${u.host}`,
      );
    const port = u.port === '' ? 80 : Number(u.port);
    const url = `http://${u.host}`;
    if (out.some((b) => b.url === url))
      throw new RouterUsageError(`--backend ${url} is given twice`, 'name each backend once');
    out.push({ url, hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'), port });
  }
  return out;
}
