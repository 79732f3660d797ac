import type { ApiError } from '../../schema/web-api.ts';

/** The dashboard's requests to its JSON API (src/web/api): typed by the schemas of src/schema/web-api.ts. */

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export type Params = Record<string, string | number | readonly string[] | null | undefined>;

/** A query string of the given values: lists comma-joined, empty and absent values left out. */
export function query(params: Params): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined) continue;
    const s = Array.isArray(v) ? v.join(',') : String(v);
    if (s !== '') q.set(k, s);
  }
  return q;
}

/** The query string of `params`, commas left readable (`precision=fp4,fp8`). */
export const queryString = (params: Params): string => query(params).toString().replaceAll('%2C', ',');

export function apiUrl(path: string, params: Params = {}): string {
  const q = queryString(params);
  return q === '' ? path : `${path}?${q}`;
}

export async function getJson<T>(path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  const res = await fetch(apiUrl(path, params), {
    headers: { accept: 'application/json' },
    signal: signal ?? null,
  });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const e = (body as ApiError | null)?.error;
    throw new ApiFailure(
      res.status,
      e?.message ?? `${res.status} ${res.statusText}`,
      e?.code ?? 'error',
      e?.param,
    );
  }
  return body as T;
}
