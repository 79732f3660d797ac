import { blake3 } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import type { Decision, RouteRequest, WorkerView } from './policy.ts';
import type { Rng } from './rng.ts';
import { smgConsistentHashing, smgKey, smgRing } from './smg-hash.ts';

/**
 * Ring positions are recomputed here without the module's helpers: BLAKE3 over the bytes built with
 * Buffer and DataView, the u64 read with DataView.getBigUint64(…, little-endian), and the clockwise lookup
 * done by brute force over every point.
 */

const URLS = ['http://10.0.0.1:30000', 'http://10.0.0.2:30000', 'http://10.0.0.3:30000'];

function position(bytes: Uint8Array): bigint {
  const h = blake3(bytes);
  return new DataView(h.buffer, h.byteOffset, 8).getBigUint64(0, true);
}

function vnodePosition(url: string, i: number): bigint {
  const n = new DataView(new ArrayBuffer(8));
  n.setBigUint64(0, BigInt(i), true);
  return position(Buffer.concat([Buffer.from(url, 'utf8'), Buffer.from('#'), new Uint8Array(n.buffer)]));
}

/** Brute force: every point, the first healthy URL walking up from the key's position, wrapping once. */
function expectedUrl(key: string, healthy: (url: string) => boolean): string | null {
  const points = URLS.flatMap((url) =>
    Array.from({ length: 150 }, (_, i) => ({ p: vnodePosition(url, i), url })),
  );
  const k = position(Buffer.from(key, 'utf8'));
  const after = points.filter((x) => x.p >= k).sort((a, b) => (a.p < b.p ? -1 : 1));
  const before = points.filter((x) => x.p < k).sort((a, b) => (a.p < b.p ? -1 : 1));
  return [...after, ...before].find((x) => healthy(x.url))?.url ?? null;
}

const workers = (healthy = [true, true, true], load = [0, 0, 0]): WorkerView[] =>
  URLS.map((url, i) => ({ url, healthy: healthy[i]!, load: load[i]! }));
const req = (headers: Record<string, string>): RouteRequest => ({
  headers,
  body: null,
  rawBody: '',
  text: '',
});
const noDraws: Rng = {
  next: () => {
    throw new Error('no random draw expected');
  },
};
const at = (d: Decision) => (d.kind === 'worker' ? URLS[d.index] : d.reason);

/** Keys whose ring owners differ: keyFor(i) is a key owned by worker i. */
function keyFor(worker: number, tag: string): string {
  for (let n = 0; ; n++) if (expectedUrl(`${tag}-${n}`, () => true) === URLS[worker]) return `${tag}-${n}`;
}

describe('SGLang Model Gateway consistent_hashing ring', () => {
  it('places 150 points per worker at blake3(url ‖ "#" ‖ le64(i))[0..8], sorted', () => {
    const ring = smgRing(URLS);
    expect(ring).toHaveLength(450);
    for (let i = 1; i < ring.length; i++) expect(ring[i - 1]!.position <= ring[i]!.position).toBe(true);
    const got = new Set(ring.map((p) => `${p.url} ${p.position}`));
    for (const url of URLS)
      for (const i of [0, 1, 77, 149])
        expect(got.has(`${url} ${vnodePosition(url, i)}`), `${url}#${i}`).toBe(true);
    expect(got.has(`${URLS[0]} ${vnodePosition(URLS[0]!, 150)}`)).toBe(false);
  });

  it('sends a key to the first point at or after blake3(key)[0..8], wrapping, and walks past unhealthy workers', () => {
    const p = smgConsistentHashing(noDraws);
    for (let n = 0; n < 30; n++) {
      const key = `user-${n}`;
      expect(at(p.select(req({ 'x-smg-routing-key': key }), workers())), key).toBe(
        expectedUrl(key, () => true),
      );
      const down = URLS[1]!;
      expect(at(p.select(req({ 'x-smg-routing-key': key }), workers([true, false, true]))), key).toBe(
        expectedUrl(key, (u) => u !== down),
      );
    }
  });

  it('keys owned by a healthy worker stay put when another goes down; load plays no part', () => {
    const p = smgConsistentHashing(noDraws);
    const k0 = keyFor(0, 'stay');
    expect(at(p.select(req({ 'x-smg-routing-key': k0 }), workers([true, false, false], [99, 0, 0])))).toBe(
      URLS[0],
    );
    expect(p.select(req({ 'x-smg-routing-key': k0 }), workers([false, false, false]))).toMatchObject({
      kind: 'none',
      reason: 'no-healthy-worker',
    });
  });
});

describe('SGLang Model Gateway consistent_hashing key order', () => {
  const k = [keyFor(0, 'k'), keyFor(1, 'k'), keyFor(2, 'k')] as const;

  it('X-SMG-Target-Worker beats X-SMG-Routing-Key, which beats the implicit headers', () => {
    const p = smgConsistentHashing(noDraws);
    const all = { 'x-smg-routing-key': k[0], authorization: k[1], cookie: k[2] };
    expect(at(p.select(req({ 'x-smg-target-worker': '2', ...all }), workers()))).toBe(URLS[2]);
    expect(at(p.select(req(all), workers()))).toBe(URLS[0]);
  });

  it('Authorization beats X-Forwarded-For, which beats Cookie', () => {
    const p = smgConsistentHashing(noDraws);
    expect(at(p.select(req({ authorization: k[1], 'x-forwarded-for': k[2], cookie: k[0] }), workers()))).toBe(
      URLS[1],
    );
    expect(at(p.select(req({ 'x-forwarded-for': k[2], cookie: k[0] }), workers()))).toBe(URLS[2]);
    expect(at(p.select(req({ cookie: k[0] }), workers()))).toBe(URLS[0]);
    expect(smgKey({ authorization: 'a', cookie: 'c' })).toEqual({
      kind: 'implicit',
      header: 'authorization',
      key: 'a',
    });
  });

  it('a target that is missing, out of range, unparsable or unhealthy fails with no worker', () => {
    const p = smgConsistentHashing(noDraws);
    expect(at(p.select(req({ 'x-smg-target-worker': '+1' }), workers()))).toBe(URLS[1]);
    for (const [value, ws] of [
      ['3', workers()],
      ['-1', workers()],
      ['one', workers()],
      ['', workers()],
      ['1', workers([true, false, true])],
    ] as const)
      expect(
        p.select(req({ 'x-smg-target-worker': value, 'x-smg-routing-key': k[0] }), ws),
        value,
      ).toMatchObject({
        kind: 'none',
        reason: 'target-worker-unavailable',
      });
  });

  it('with no key (or an empty first implicit header) picks a random healthy worker', () => {
    const draws = [0.1, 0.9, 0.6];
    let i = 0;
    const p = smgConsistentHashing({ next: () => draws[i++]! });
    // healthy = [0, 2]: floor(0.1 × 2) = 0 → worker 0, floor(0.9 × 2) = 1 → worker 2
    expect(at(p.select(req({}), workers([true, false, true])))).toBe(URLS[0]);
    expect(at(p.select(req({ 'x-smg-routing-key': '' }), workers([true, false, true])))).toBe(URLS[2]);
    // an empty Authorization header is the implicit key, and an empty key means none: the cookie is not read
    expect(at(p.select(req({ authorization: '', cookie: k[0] }), workers()))).toBe(URLS[1]);
  });
});
