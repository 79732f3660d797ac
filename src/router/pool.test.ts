import { describe, expect, it } from 'vitest';
import { ROUTER_POLICIES, RouterMetricsSchema, RouterOptionsSchema } from '../schema/router.ts';
import { createPolicy } from './create.ts';
import type { KvAwarePolicy } from './kv-aware.ts';
import type { RouteRequest } from './policy.ts';
import { RouterPool } from './pool.ts';

const URLS = ['http://127.0.0.1:9001', 'http://127.0.0.1:9002'];
const req = (text: string, extra: Partial<RouteRequest> = {}): RouteRequest => ({
  headers: {},
  body: null,
  rawBody: '',
  text,
  ...extra,
});

describe('createPolicy', () => {
  it('makes every policy the schema names, with the CLI defaults for what the options leave out', () => {
    for (const policy of ROUTER_POLICIES) {
      const options = policy === 'kv-aware' ? { policy, kvAware: { kvEvents: false } } : { policy };
      expect(createPolicy(options).name).toBe(policy);
    }
    expect(RouterOptionsSchema.parse({})).toEqual({
      policy: 'round-robin',
      hashFlavor: 'smg',
      seed: 0,
      cacheAware: {
        cacheThreshold: 0.3,
        balanceAbsThreshold: 64,
        balanceRelThreshold: 1.5,
        evictionIntervalSecs: 120,
        maxTreeSize: 67108864,
      },
      kvAware: { overlapScoreWeight: 1, temperature: 0, blockSize: 16, kvEvents: true, ttlSecs: 120 },
    });
    expect(() => RouterOptionsSchema.parse({ policy: 'least-loaded' })).toThrow();
    expect(() => RouterOptionsSchema.parse({ cacheAware: { cacheThreshold: 1.5 } })).toThrow();
  });

  it('picks the consistent-hash flavour: SMG reads X-SMG-Target-Worker, vllm-router does not', () => {
    const headers = { 'x-smg-target-worker': '1' };
    const ws = URLS.map((url) => ({ url, healthy: false, load: 0 }));
    ws[1] = { ...ws[1]!, healthy: true };
    expect(createPolicy({ policy: 'consistent-hash' }).select(req('', { headers }), ws)).toMatchObject({
      index: 1,
    });
    ws[0] = { ...ws[0]!, healthy: true };
    ws[1] = { ...ws[1]!, healthy: false };
    expect(createPolicy({ policy: 'consistent-hash' }).select(req('', { headers }), ws)).toMatchObject({
      reason: 'target-worker-unavailable',
    });
    expect(
      createPolicy({ policy: 'consistent-hash', hashFlavor: 'vllm' }).select(req('', { headers }), ws),
    ).toMatchObject({
      index: 0,
    });
  });
});

describe('RouterPool', () => {
  it('counts load from route to complete, and completed / failed requests', () => {
    const pool = new RouterPool(URLS, createPolicy({ policy: 'round-robin' }), {
      hashFlavor: 'smg',
      seed: 0,
    });
    const a = pool.route(req('a'));
    const b = pool.route(req('b'));
    const c = pool.route(req('c'));
    expect([a, b, c].map((r) => (r.kind === 'worker' ? r.worker : -1))).toEqual([0, 1, 0]);
    expect(pool.workers.map((w) => w.load)).toEqual([2, 1]);
    if (a.kind !== 'worker' || b.kind !== 'worker') throw new Error('routed');
    pool.complete(a.id, true);
    pool.complete(a.id, true); // once only
    pool.complete(b.id, false);
    pool.complete(999, true); // unknown: nothing
    const m = RouterMetricsSchema.parse(pool.metrics());
    expect(m.workers.map((w) => [w.load, w.requests, w.completed, w.failed])).toEqual([
      [1, 2, 1, 0],
      [0, 1, 0, 1],
    ]);
    expect(m.hashFlavor).toBeNull();
  });

  it('counts requests that found no worker, by reason', () => {
    const pool = new RouterPool(URLS, createPolicy({ policy: 'consistent-hash' }), {
      hashFlavor: 'smg',
      seed: 0,
    });
    expect(pool.route(req('', { headers: { 'x-smg-target-worker': '7' } }))).toMatchObject({ kind: 'none' });
    pool.setHealthy(0, false);
    pool.setHealthy(1, false);
    expect(pool.route(req(''))).toMatchObject({ kind: 'none', reason: 'no-healthy-worker' });
    const m = pool.metrics();
    expect(m.noWorker).toEqual({ 'no-workers': 0, 'no-healthy-worker': 1, 'target-worker-unavailable': 1 });
    expect(m.workers.map((w) => w.healthy)).toEqual([false, false]);
    expect(m.hashFlavor).toBe('smg');
    expect(new RouterPool([], createPolicy({}), { hashFlavor: 'smg', seed: 0 }).route(req(''))).toMatchObject(
      {
        reason: 'no-workers',
      },
    );
  });

  it("sums the policy's estimated hits per worker (cache-aware: characters)", () => {
    const pool = new RouterPool(URLS, createPolicy({ policy: 'cache-aware' }), {
      hashFlavor: 'smg',
      seed: 0,
    });
    pool.route(req('0123456789')); // cold → w0: 0 of 10
    pool.route(req('0123456789abcdefghij')); // 10 of 20 on w0 → w0
    const m = pool.metrics();
    expect(m.workers[0]!.estimatedHits).toEqual({ unit: 'chars', matched: 10, total: 30 });
    expect(m.workers[1]!.estimatedHits).toBeNull();
  });

  it("calls the policy's hooks: kv-aware's prompt load ends at the first token, its blocks at completion", () => {
    const policy = createPolicy({
      policy: 'kv-aware',
      kvAware: { kvEvents: false, blockSize: 4 },
    }) as KvAwarePolicy;
    const pool = new RouterPool(URLS, policy, { hashFlavor: 'smg', seed: 0 });
    const r = pool.route(req('', { blockHashes: [1, 2], inputTokens: 8 }));
    if (r.kind !== 'worker') throw new Error('routed');
    expect(policy.active(r.url)).toEqual({ prefillTokens: 8, blocks: 2 });
    pool.firstToken(r.id);
    pool.firstToken(r.id);
    expect(policy.active(r.url)).toEqual({ prefillTokens: 0, blocks: 2 });
    pool.complete(r.id, true);
    expect(policy.active(r.url)).toEqual({ prefillTokens: 0, blocks: 0 });
    expect(pool.metrics().workers[r.worker]!.estimatedHits).toEqual({ unit: 'blocks', matched: 0, total: 2 });
  });
});
