import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import type * as z from 'zod';
import type { ApiError } from '../schema/web-api.ts';

/** Small HTTP helpers of the dashboard server: errors as JSON, query validation, compressed responses. */

const gzipAsync = promisify(gzip);

export type ErrorCode = ApiError['error']['code'];

/** A request the API refuses: sent as `{error: {code, message, param?}}` with `status`. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 404 | 405 | 421 | 500,
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, param?: string) =>
  new HttpError(400, 'bad-request', message, param);
export const notFound = (message: string, param?: string) => new HttpError(404, 'not-found', message, param);

type ObjectSchema = z.ZodType & { shape: Record<string, unknown> };

/**
 * Validates the query string against an allow-list schema: each key at most once, no unknown keys, every
 * value parsed. The first problem becomes a 400 naming the parameter.
 */
export function parseQuery<S extends ObjectSchema>(schema: S, params: URLSearchParams): z.output<S> {
  const raw: Record<string, string> = {};
  const allowed = Object.keys(schema.shape);
  for (const [key, value] of params) {
    if (Object.hasOwn(raw, key)) throw badRequest(`'${key}' is given more than once; give it once`, key);
    raw[key] = value;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    throw badRequest(`unknown parameter '${key}'; this endpoint takes: ${allowed.join(', ')}`, key);
  }
  const param = issue.path.length > 0 ? String(issue.path[0]) : undefined;
  const value = param !== undefined ? raw[param] : undefined;
  const message =
    issue.code === 'invalid_value' && 'values' in issue
      ? `must be one of ${(issue.values as unknown[]).join(', ')}`
      : issue.message;
  throw badRequest(
    param === undefined ? message : `${param}${value === undefined ? '' : ` '${value}'`}: ${message}`,
    param,
  );
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export function securityHeaders(res: ServerResponse): void {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
}

const acceptsGzip = (req: IncomingMessage) => /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));

/** Sends a text body, gzip-compressed when the client takes it and the body is worth compressing. */
export async function sendBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  extra: Record<string, string> = {},
): Promise<void> {
  securityHeaders(res);
  res.setHeader('content-type', contentType);
  res.setHeader('cache-control', 'no-cache');
  res.setHeader('vary', 'accept-encoding');
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  let bytes: Buffer = Buffer.from(body, 'utf8');
  if (bytes.length > 1024 && acceptsGzip(req)) {
    bytes = await gzipAsync(bytes, { level: constants.Z_BEST_SPEED });
    res.setHeader('content-encoding', 'gzip');
  }
  res.setHeader('content-length', bytes.length);
  res.writeHead(status);
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

export const sendJson = (req: IncomingMessage, res: ServerResponse, status: number, value: unknown) =>
  sendBody(req, res, status, 'application/json; charset=utf-8', JSON.stringify(value));

export function errorBody(err: HttpError): ApiError {
  return {
    error: { code: err.code, message: err.message, ...(err.param === undefined ? {} : { param: err.param }) },
  };
}
