import { fbiHash } from './hash.ts';
import {
  chosen,
  type Decision,
  healthyIndices,
  noHealthyWorker,
  type RouteRequest,
  type RoutingPolicy,
  type WorkerView,
} from './policy.ts';
import { firstAtOrAfter } from './smg-hash.ts';

/**
 * vllm-router's `consistent_hash` policy.
 *
 * The key, in order: the first non-empty header of x-session-id, x-user-id, x-tenant-id, x-correlation-id,
 * x-request-id, x-trace-id (`header:NAME:VALUE`); then body fields session_params.session_id
 * (`session:V`), user (`user:V`), session_id (`session:V`), user_id (`user:V`); then the body itself,
 * `request_hash:<fbi_hash as 16 hex digits>` when it is over 100 bytes, else `request:<body>`.
 * The ring holds 160 points per worker (healthy or not) at fbi_hash("{url}:{i}"), in a map where a later
 * point replaces an earlier one at the same position (fbi_hash has only 2^23 distinct values). A key takes
 * the first point at or after fbi_hash(key), wrapping to the smallest; when that worker is unhealthy, the
 * request goes to the first healthy worker.
 *
 * Body fields are read from the parsed JSON (strings as they are, numbers and booleans as their text);
 * vllm-router scans the raw text for `"field":` instead, which can stop at an earlier `"user"` string value
 * (a chat message's role) and miss the field.
 */

export const VLLM_VNODES_PER_WORKER = 160;
export const VLLM_KEY_HEADERS = [
  'x-session-id',
  'x-user-id',
  'x-tenant-id',
  'x-correlation-id',
  'x-request-id',
  'x-trace-id',
] as const;
/** Bodies longer than this many bytes are hashed rather than used as the key. */
export const VLLM_RAW_BODY_KEY_MAX = 100;

const utf8 = new TextEncoder();

function fieldText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function objectOf(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** The routing key vllm-router derives from a request. */
export function vllmHashKey(request: Pick<RouteRequest, 'headers' | 'body' | 'rawBody'>): string {
  for (const name of VLLM_KEY_HEADERS) {
    const value = request.headers[name];
    if (value) return `header:${name}:${value}`;
  }
  const body = objectOf(request.body);
  if (body) {
    const nested = fieldText(objectOf(body.session_params)?.session_id);
    if (nested !== null) return `session:${nested}`;
    const fields: [string, string][] = [
      ['user', 'user'],
      ['session_id', 'session'],
      ['user_id', 'user'],
    ];
    for (const [field, prefix] of fields) {
      const value = fieldText(body[field]);
      if (value !== null) return `${prefix}:${value}`;
    }
  }
  const text = request.rawBody;
  if (utf8.encode(text).length > VLLM_RAW_BODY_KEY_MAX)
    return `request_hash:${fbiHash(text).toString(16).padStart(16, '0')}`;
  return `request:${text}`;
}

export interface VllmRing {
  positions: { position: bigint }[];
  urls: string[];
}

export function vllmRing(urls: readonly string[], vnodes = VLLM_VNODES_PER_WORKER): VllmRing {
  const byPosition = new Map<bigint, string>();
  for (const url of urls) for (let i = 0; i < vnodes; i++) byPosition.set(fbiHash(`${url}:${i}`), url);
  const sorted = [...byPosition.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { positions: sorted.map(([position]) => ({ position })), urls: sorted.map(([, url]) => url) };
}

/** The URL the ring gives a key: the first point at or after its hash, else the first point. */
export function vllmRingUrl(ring: VllmRing, key: string): string | null {
  if (ring.urls.length === 0) return null;
  const at = firstAtOrAfter(ring.positions, fbiHash(key));
  return ring.urls[at === ring.urls.length ? 0 : at]!;
}

export function vllmConsistentHash(): RoutingPolicy {
  let ringUrls: string | null = null;
  let ring: VllmRing = { positions: [], urls: [] };
  const ringFor = (workers: readonly WorkerView[]) => {
    const urls = workers.map((w) => w.url);
    const id = JSON.stringify(urls);
    if (id !== ringUrls) {
      ring = vllmRing(urls);
      ringUrls = id;
    }
    return ring;
  };
  return {
    name: 'consistent-hash',
    select(request: RouteRequest, workers): Decision {
      const healthy = healthyIndices(workers);
      if (healthy.length === 0) return noHealthyWorker(workers);
      const url = vllmRingUrl(ringFor(workers), vllmHashKey(request));
      const index = url === null ? -1 : workers.findIndex((w) => w.url === url);
      return chosen(index >= 0 && workers[index]!.healthy ? index : healthy[0]!);
    },
  };
}
