import { describe, expect, it } from 'vitest';
import { type CacheAwareOptions, CacheAwareOptionsSchema } from '../schema/router.ts';
import { aboveCacheThreshold, cacheAware, isImbalanced } from './cache-aware.ts';
import type { Decision, RouteRequest, WorkerView } from './policy.ts';

const CLI: CacheAwareOptions = CacheAwareOptionsSchema.parse({});
const URLS = ['http://w0', 'http://w1', 'http://w2'];
const workers = (load: number[], healthy = load.map(() => true)): WorkerView[] =>
  load.map((l, i) => ({ url: URLS[i]!, healthy: healthy[i]!, load: l }));
const req = (text: string): RouteRequest => ({ headers: {}, body: null, rawBody: '', text });
const at = (d: Decision) => (d.kind === 'worker' ? d.index : d.reason);

describe('cache-aware defaults', () => {
  it("are SGLang Model Gateway's CLI defaults, not CacheAwareConfig::default()", () => {
    expect(CLI).toEqual({
      cacheThreshold: 0.3,
      balanceAbsThreshold: 64,
      balanceRelThreshold: 1.5,
      evictionIntervalSecs: 120,
      maxTreeSize: 67108864,
    });
  });
});

describe('imbalance test: (max − min) > 64 and max > 1.5 × min', () => {
  it('at the absolute threshold', () => {
    expect(isImbalanced([0, 64], CLI)).toBe(false); // 64 is not above 64
    expect(isImbalanced([0, 65], CLI)).toBe(true); // 65 > 64 and 65 > 0
    expect(isImbalanced([10, 74, 40], CLI)).toBe(false);
    expect(isImbalanced([10, 75, 40], CLI)).toBe(true); // 65 > 64, 75 > 15
  });

  it('at the relative threshold', () => {
    expect(isImbalanced([130, 195], CLI)).toBe(false); // 65 > 64 but 195 is not above 1.5 × 130 = 195
    expect(isImbalanced([130, 196], CLI)).toBe(true); // 66 > 64 and 196 > 195
    expect(isImbalanced([131, 196], CLI)).toBe(false); // 65 > 64 but 196 is not above 196.5
    expect(isImbalanced([200, 300], CLI)).toBe(false); // 100 > 64 but 300 = 1.5 × 200
  });

  it('counts unhealthy workers in min and max, then routes to the least-loaded healthy worker and still inserts', () => {
    const p = cacheAware(CLI);
    p.tree.insert('the shared system prompt', URLS[2]!);
    // loads 70 / 0 (unhealthy) / 3: max − min = 70 > 64, 70 > 0 → imbalanced; healthy least loaded = w2 (3)
    // even though the text matches w2 fully, it is the least-loaded rule that chose it
    const ws = workers([70, 0, 3], [true, false, true]);
    const d = p.select(req('the shared system prompt, turn 2'), ws);
    expect(at(d)).toBe(2);
    // loads 70 / 5 / 3 with w1 healthy: imbalanced, w2 still the least loaded; an exact match on w0 is ignored
    p.tree.insert('only on w0: a long prompt', URLS[0]!);
    expect(at(p.select(req('only on w0: a long prompt'), workers([70, 5, 3])))).toBe(2);
    expect(p.tree.matchTenant('only on w0: a long prompt', URLS[2]!)).toBe(25);
    // 64 apart is balanced: an exact match on w0 wins over the least loaded
    p.tree.insert('another prompt on w0', URLS[0]!);
    expect(at(p.select(req('another prompt on w0'), workers([67, 5, 3])))).toBe(0);
  });
});

describe('cache threshold: match rate = matched / input characters, routed by match only above 0.3', () => {
  it('f32 arithmetic as SMG does it', () => {
    expect(aboveCacheThreshold(3, 10, 0.3)).toBe(false);
    expect(aboveCacheThreshold(6, 20, 0.3)).toBe(false);
    expect(aboveCacheThreshold(3, 9, 0.3)).toBe(true);
    expect(aboveCacheThreshold(0, 0, 0)).toBe(false);
  });

  it('exactly 0.3 goes to the least-loaded worker; above goes to the matching tenant', () => {
    const exact = cacheAware(CLI);
    exact.tree.insert('abc', URLS[1]!);
    // "abcdefghij": 3 of 10 characters match w1 → 0.3, not above → least loaded of 2 / 4 / 1 → w2
    expect(at(exact.select(req('abcdefghij'), workers([2, 4, 1])))).toBe(2);
    expect(exact.tree.matchTenant('abcdefghij', URLS[2]!)).toBe(10);

    const above = cacheAware(CLI);
    above.tree.insert('abc', URLS[1]!);
    // "abcdefghi": 3 of 9 → 0.333 > 0.3 → w1, though it is the busiest; its text now extends w1's
    const d = above.select(req('abcdefghi'), workers([2, 4, 1]));
    expect(d).toEqual({ kind: 'worker', index: 1, estimatedHit: { unit: 'chars', matched: 3, total: 9 } });
    expect(above.tree.matchTenant('abcdefghi', URLS[1]!)).toBe(9);
  });

  it('takes the tenant of the longest match, and a cold tree goes to the least loaded (ties to the first)', () => {
    const p = cacheAware(CLI);
    expect(at(p.select(req('hello world'), workers([1, 0, 0])))).toBe(1); // cold: least loaded
    expect(at(p.select(req('xyz'), workers([0, 5, 0])))).toBe(0); // no match: least loaded, tie → first
    // 11 of 18 characters match w1: it wins at load 9 (balanced: 9 − 0 is not above 64)
    expect(at(p.select(req('hello world, again'), workers([0, 9, 0])))).toBe(1);
    // "hello " is w1's; "there" below it only w2's → the deepest match names w2
    p.tree.insert('hello there', URLS[2]!);
    expect(at(p.select(req('hello there, again'), workers([9, 0, 9])))).toBe(2);
    expect(at(p.select(req('hello wor'), workers([0, 9, 0])))).toBe(1);
  });

  it('a matched tenant that is unhealthy sends the request to the first healthy worker, without an insert', () => {
    const p = cacheAware(CLI);
    p.tree.insert('conversation one', URLS[1]!);
    const d = p.select(req('conversation one, turn two'), workers([5, 0, 1], [true, false, true]));
    expect(at(d)).toBe(0);
    expect(p.tree.matchTenant('conversation one, turn two', URLS[0]!)).toBe(0);
    expect(p.select(req('x'), workers([0, 0], [false, false]))).toMatchObject({
      reason: 'no-healthy-worker',
    });
  });

  it('evict() bounds each worker to max_tree_size characters, least recently used first', () => {
    const p = cacheAware({ ...CLI, maxTreeSize: 10 });
    const ws = workers([0, 0]);
    p.select(req('aaaaaaaaaa'), ws); // cold: w0
    p.tree.insert('bbbbbbbbbb', URLS[0]!);
    expect(p.tree.size(URLS[0]!)).toBe(20);
    p.evict!();
    expect(p.tree.size(URLS[0]!)).toBe(10);
    expect(p.tree.matchTenant('aaaaaaaaaa', URLS[0]!)).toBe(0);
    expect(p.tree.matchTenant('bbbbbbbbbb', URLS[0]!)).toBe(10);
  });
});
