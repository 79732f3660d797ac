import { describe, expect, it } from 'vitest';
import { fbiHash } from './hash.ts';
import type { Decision, RouteRequest, WorkerView } from './policy.ts';
import { VLLM_KEY_HEADERS, vllmConsistentHash, vllmHashKey, vllmRing, vllmRingUrl } from './vllm-hash.ts';

const URLS = ['http://a:8000', 'http://b:8000', 'http://c:8000'];
const workers = (healthy = [true, true, true]): WorkerView[] =>
  URLS.map((url, i) => ({ url, healthy: healthy[i]!, load: 0 }));
const req = (headers: Record<string, string>, body: unknown = null, rawBody = ''): RouteRequest => ({
  headers,
  body,
  rawBody,
  text: '',
});
const at = (d: Decision) => (d.kind === 'worker' ? URLS[d.index] : d.reason);

/** Brute force over all 160 × 3 points: the smallest position ≥ fbi_hash(key), else the smallest. */
const byPos = new Map<bigint, string>();
for (const url of URLS) for (let i = 0; i < 160; i++) byPos.set(fbiHash(`${url}:${i}`), url);

function expectedUrl(key: string): string {
  const h = fbiHash(key);
  const all = [...byPos.keys()];
  const up = all.filter((p) => p >= h);
  const pick = (xs: bigint[]) => [...xs].sort((a, b) => (a < b ? -1 : 1))[0]!;
  return byPos.get(up.length > 0 ? pick(up) : pick(all))!;
}

describe('vllm-router consistent_hash key order', () => {
  it('each header beats the ones after it: x-session-id, x-user-id, x-tenant-id, x-correlation-id, x-request-id, x-trace-id', () => {
    const names = [...VLLM_KEY_HEADERS];
    expect(names).toEqual([
      'x-session-id',
      'x-user-id',
      'x-tenant-id',
      'x-correlation-id',
      'x-request-id',
      'x-trace-id',
    ]);
    for (let k = 0; k < names.length; k++) {
      const headers = Object.fromEntries(names.slice(k).map((n) => [n, `v-${n}`]));
      expect(vllmHashKey(req(headers, { user: 'body-user' }))).toBe(`header:${names[k]}:v-${names[k]}`);
    }
    // an empty header is skipped
    expect(vllmHashKey(req({ 'x-session-id': '', 'x-user-id': 'u' }))).toBe('header:x-user-id:u');
  });

  it('then body fields: session_params.session_id, user, session_id, user_id', () => {
    const full = {
      session_params: { session_id: 'nested' },
      user: 'alice',
      session_id: 'legacy',
      user_id: 7,
    };
    expect(vllmHashKey(req({}, full))).toBe('session:nested');
    const { session_params: _a, ...noNested } = full;
    expect(vllmHashKey(req({}, noNested))).toBe('user:alice');
    const { user: _b, ...noUser } = noNested;
    expect(vllmHashKey(req({}, noUser))).toBe('session:legacy');
    const { session_id: _c, ...onlyUserId } = noUser;
    expect(vllmHashKey(req({}, onlyUserId))).toBe('user:7');
    // a value that is not a string, number or boolean is no key
    expect(vllmHashKey(req({}, { user: { id: 1 } }, 'x'))).toBe('request:x');
  });

  it('then the body: raw up to 100 bytes, fbi_hash as 16 hex digits above', () => {
    const hundred = 'a'.repeat(100);
    expect(vllmHashKey(req({}, null, hundred))).toBe(`request:${hundred}`);
    const long = 'a'.repeat(101);
    const hex = fbiHash(long).toString(16).padStart(16, '0');
    expect(hex).toHaveLength(16);
    expect(vllmHashKey(req({}, null, long))).toBe(`request_hash:${hex}`);
    // bytes, not characters: 50 × "é" is 100 bytes, 51 is 102
    expect(vllmHashKey(req({}, null, 'é'.repeat(50)))).toBe(`request:${'é'.repeat(50)}`);
    expect(vllmHashKey(req({}, null, 'é'.repeat(51)))).toMatch(/^request_hash:[0-9a-f]{16}$/);
    expect(vllmHashKey(req({}, { model: 'm' }, ''))).toBe('request:');
  });
});

describe('vllm-router consistent_hash ring', () => {
  it('holds 160 points per worker at fbi_hash("{url}:{i}") and looks up with wrap-around', () => {
    const ring = vllmRing(URLS);
    // fbi_hash has 2^23 values; a position two points share keeps the later one
    expect(ring.urls.length).toBeLessThanOrEqual(480);
    expect(ring.urls.length).toBeGreaterThan(470);
    for (let i = 1; i < ring.positions.length; i++)
      expect(ring.positions[i - 1]!.position < ring.positions[i]!.position).toBe(true);
    for (let n = 0; n < 40; n++)
      expect(vllmRingUrl(ring, `header:x-session-id:s${n}`)).toBe(expectedUrl(`header:x-session-id:s${n}`));
    // wrap-around: a key hashing above the last point goes to the first
    const last = ring.positions[ring.positions.length - 1]!.position;
    let wrapKey = '';
    for (let n = 0; !wrapKey; n++) if (fbiHash(`w${n}`) > last) wrapKey = `w${n}`;
    expect(vllmRingUrl(ring, wrapKey)).toBe(ring.urls[0]);
  });

  it('routes a session to its ring worker, and to the first healthy worker when that one is down', () => {
    const p = vllmConsistentHash();
    let seen = 0;
    for (let n = 0; n < 30; n++) {
      const key = `header:x-session-id:s${n}`;
      const owner = expectedUrl(key);
      const r = req({ 'x-session-id': `s${n}` });
      expect(at(p.select(r, workers()))).toBe(owner);
      const down = [true, true, true].map((_, i) => URLS[i] !== owner);
      const fallback = URLS[down.indexOf(true)];
      expect(at(p.select(r, workers(down)))).toBe(fallback);
      if (owner === URLS[0]) seen++;
    }
    expect(seen).toBeGreaterThan(0);
    // X-Correlation-ID alone gives affinity
    const c = req({ 'x-correlation-id': 'conv-9' });
    expect(at(p.select(c, workers()))).toBe(expectedUrl('header:x-correlation-id:conv-9'));
    expect(p.select(c, workers([false, false, false]))).toMatchObject({
      kind: 'none',
      reason: 'no-healthy-worker',
    });
  });
});
