import { blake3Le64, le64, utf8Bytes } from './hash.ts';
import {
  chosen,
  type Decision,
  healthyIndices,
  noHealthyWorker,
  noWorker,
  type RouteRequest,
  type RoutingPolicy,
  type WorkerView,
} from './policy.ts';
import { pickIndex, type Rng } from './rng.ts';

/**
 * SGLang Model Gateway's `consistent_hashing` policy.
 *
 * The key, in order: `x-smg-target-worker` (a worker index; a missing, unparsable or unhealthy target
 * fails the request with no worker), `x-smg-routing-key`, then the first of `authorization`,
 * `x-forwarded-for`, `cookie` that is present (an empty one gives no key), else a random healthy worker.
 * The ring holds 150 points per worker at blake3(url ‖ "#" ‖ le64(i))[0..8] (LE u64); a key sits at
 * blake3(key)[0..8] and takes the first healthy worker clockwise from there (at or after its position,
 * wrapping). There is no load awareness.
 */

export const SMG_VNODES_PER_WORKER = 150;
export const SMG_TARGET_WORKER_HEADER = 'x-smg-target-worker';
export const SMG_ROUTING_KEY_HEADER = 'x-smg-routing-key';
export const SMG_IMPLICIT_KEY_HEADERS = ['authorization', 'x-forwarded-for', 'cookie'] as const;

export interface RingPoint {
  position: bigint;
  url: string;
}

/** The ring of the given worker URLs, sorted by position. */
export function smgRing(urls: readonly string[], vnodes = SMG_VNODES_PER_WORKER): RingPoint[] {
  const points: RingPoint[] = [];
  for (const url of urls) {
    const prefix = utf8Bytes(`${url}#`);
    for (let i = 0; i < vnodes; i++) {
      const bytes = new Uint8Array(prefix.length + 8);
      bytes.set(prefix);
      bytes.set(le64(BigInt(i)), prefix.length);
      points.push({ position: blake3Le64(bytes), url });
    }
  }
  return points.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
}

export function smgKeyPosition(key: string): bigint {
  return blake3Le64(utf8Bytes(key));
}

/** Index of the first point at or after `position`; points.length when there is none. */
export function firstAtOrAfter(points: readonly { position: bigint }[], position: bigint): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid]!.position < position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first URL clockwise from the key's position that `usable` accepts; null when none does. */
export function walkClockwise(
  points: readonly RingPoint[],
  position: bigint,
  usable: (url: string) => boolean,
): string | null {
  const start = firstAtOrAfter(points, position);
  const checked = new Set<string>();
  for (let i = 0; i < points.length; i++) {
    const url = points[(start + i) % points.length]!.url;
    if (checked.has(url)) continue;
    checked.add(url);
    if (usable(url)) return url;
  }
  return null;
}

export type SmgKey =
  | { kind: 'target'; value: string }
  | { kind: 'routing-key' | 'implicit'; header: string; key: string }
  | { kind: 'none' };

/** Which header decides the route, in SMG's order. */
export function smgKey(headers: Readonly<Record<string, string>>): SmgKey {
  const target = headers[SMG_TARGET_WORKER_HEADER];
  if (target !== undefined) return { kind: 'target', value: target };
  const routing = headers[SMG_ROUTING_KEY_HEADER];
  if (routing) return { kind: 'routing-key', header: SMG_ROUTING_KEY_HEADER, key: routing };
  for (const header of SMG_IMPLICIT_KEY_HEADERS) {
    const value = headers[header];
    if (value === undefined) continue;
    return value === '' ? { kind: 'none' } : { kind: 'implicit', header, key: value };
  }
  return { kind: 'none' };
}

export function smgConsistentHashing(rng: Rng): RoutingPolicy {
  let ringUrls: string | null = null;
  let ring: RingPoint[] = [];
  const ringFor = (workers: readonly WorkerView[]) => {
    const urls = workers.map((w) => w.url);
    const id = JSON.stringify(urls);
    if (id !== ringUrls) {
      ring = smgRing(urls);
      ringUrls = id;
    }
    return ring;
  };
  return {
    name: 'consistent-hash',
    select(request: RouteRequest, workers): Decision {
      const key = smgKey(request.headers);
      if (key.kind === 'target') {
        const index = /^\+?\d+$/.test(key.value) ? Number(key.value) : Number.NaN;
        if (Number.isSafeInteger(index) && index < workers.length && workers[index]!.healthy)
          return chosen(index);
        return noWorker(
          'target-worker-unavailable',
          `${SMG_TARGET_WORKER_HEADER}: '${key.value}' is not the index of a healthy worker (0..${workers.length - 1})`,
        );
      }
      const healthy = healthyIndices(workers);
      if (healthy.length === 0) return noHealthyWorker(workers);
      if (key.kind === 'none') return chosen(healthy[pickIndex(rng, healthy.length)]!);
      const byUrl = new Map<string, number>();
      for (const i of healthy) if (!byUrl.has(workers[i]!.url)) byUrl.set(workers[i]!.url, i);
      const url = walkClockwise(ringFor(workers), smgKeyPosition(key.key), (u) => byUrl.has(u));
      return url === null ? noHealthyWorker(workers) : chosen(byUrl.get(url)!);
    },
  };
}
