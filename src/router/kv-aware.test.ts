import { describe, expect, it } from 'vitest';
import { type KvAwareOptions, KvAwareOptionsSchema } from '../schema/router.ts';
import { kvAware, softmaxPick } from './kv-aware.ts';
import type { Decision, RouteRequest, WorkerView } from './policy.ts';
import { seededRng } from './rng.ts';

const CLI: KvAwareOptions = KvAwareOptionsSchema.parse({});
const HISTORY: KvAwareOptions = { ...CLI, blockSize: 4, kvEvents: false };
const WS: WorkerView[] = [
  { url: 'http://w0', healthy: true, load: 0 },
  { url: 'http://w1', healthy: true, load: 0 },
];
const req = (blockHashes: number[], inputTokens?: number): RouteRequest => ({
  headers: {},
  body: null,
  rawBody: '',
  text: '',
  blockHashes,
  ...(inputTokens === undefined ? {} : { inputTokens }),
});
const at = (d: Decision) => (d.kind === 'worker' ? d.index : d.reason);

describe('kv-aware defaults', () => {
  it("are Dynamo's: weight 1, temperature 0, block size 16, KV events on, TTL 120 s", () => {
    expect(CLI).toEqual({
      overlapScoreWeight: 1,
      temperature: 0,
      blockSize: 16,
      kvEvents: true,
      ttlSecs: 120,
    });
  });

  it('with KV events on, needs the engines’ block hashes', () => {
    expect(() => kvAware(CLI, { rng: seededRng(0) })).toThrow(/cachedBlocks/);
  });
});

describe('kv-aware cost = weight × prefill_blocks + decode_blocks (block size 4)', () => {
  it('worked by hand through start, first token and completion', () => {
    let now = 0;
    const p = kvAware(HISTORY, { rng: seededRng(0), now: () => now });
    const r = req([1, 2, 3], 12); // 12 tokens = 3 blocks
    // R1: both cold: prefill 12/4 = 3, decode 0 + 3 → 6 and 6; tie → w0
    expect(p.costs(r, WS)).toEqual([6, 6]);
    expect(p.select(r, WS)).toEqual({
      kind: 'worker',
      index: 0,
      estimatedHit: { unit: 'blocks', matched: 0, total: 3 },
    });
    p.started!(1, r, 0, WS);
    expect(p.active('http://w0')).toEqual({ prefillTokens: 12, blocks: 3 });
    // R2 (same blocks) while R1 prefills: w0 overlap 3 → (12 − 12)/4 + 12/4 active = 3, decode 3 + 3 → 9;
    // w1 → 6 → w1
    now = 1000;
    expect(p.costs(r, WS)).toEqual([9, 6]);
    expect(at(p.select(r, WS))).toBe(1);
    p.started!(2, r, 1, WS);
    expect(p.active('http://w1')).toEqual({ prefillTokens: 12, blocks: 3 });
    // R1's first token releases its prompt load: w0 = 0 + 0 + 3 + 3 = 6; w1 (R2 prefilling, holds the
    // blocks by history) = 0 + 3 + 3 + 3 = 9
    p.firstToken!(1);
    expect(p.active('http://w0')).toEqual({ prefillTokens: 0, blocks: 3 });
    expect(p.costs(r, WS)).toEqual([6, 9]);
    // completion releases the blocks; a second firstToken or completion changes nothing
    p.completed!(1, true);
    p.firstToken!(1);
    p.completed!(1, true);
    expect(p.active('http://w0')).toEqual({ prefillTokens: 0, blocks: 0 });
    p.completed!(2, false); // completion without a first token releases both
    expect(p.active('http://w1')).toEqual({ prefillTokens: 0, blocks: 0 });
    // both idle and both holding [1, 2, 3]: 0 + 3 each; a longer request [1, 2, 3, 9] (16 tokens): 1 + 4
    expect(p.costs(req([1, 2, 3, 9], 16), WS)).toEqual([5, 5]);
  });

  it('the weight scales only the prefill part; 0 is pure load balance', () => {
    const p = kvAware({ ...HISTORY, overlapScoreWeight: 0.5 }, { rng: seededRng(0), now: () => 0 });
    p.started!(1, req([7, 8], 8), 1, WS); // w1: 8 prompt tokens, 2 blocks
    // [7, 8, 9] × 12 tokens: w0 = 0.5 × 3 + 3 = 4.5; w1 = 0.5 × ((12 − 8)/4 + 8/4) + 2 + 3 = 6.5
    expect(p.costs(req([7, 8, 9], 12), WS)).toEqual([4.5, 6.5]);
    const flat = kvAware({ ...HISTORY, overlapScoreWeight: 0 }, { rng: seededRng(0), now: () => 0 });
    expect(flat.costs(req([1], 4), WS)).toEqual([1, 1]);
  });

  it('overlap is the leading run of block hashes a worker holds (KV events)', () => {
    const held: Record<string, Set<number>> = { 'http://w0': new Set([2, 3]), 'http://w1': new Set([1, 2]) };
    const p = kvAware({ ...CLI, blockSize: 4 }, { rng: seededRng(0), cachedBlocks: (url) => held[url] });
    // w0 holds 2 and 3 but not 1: overlap 0 → 3 + 3 = 6; w1 overlap 2 → (12 − 8)/4 + 3 = 4
    const d = p.select(req([1, 2, 3], 12), WS);
    expect(d).toEqual({ kind: 'worker', index: 1, estimatedHit: { unit: 'blocks', matched: 2, total: 3 } });
    expect(p.costs(req([1, 2, 3], 12), WS)).toEqual([6, 4]);
    // routing adds load, not holdings: w0 = (4 new + 4 active prompt tokens)/4 + (1 active + 1) blocks = 4
    p.started!(1, req([5], 4), 0, WS);
    expect(p.costs(req([5], 4), WS)).toEqual([4, 2]);
  });

  it('history entries expire after router_ttl_secs (120 s by default)', () => {
    let now = 5_000;
    const p = kvAware({ ...HISTORY }, { rng: seededRng(0), now: () => now });
    p.started!(1, req([1, 2], 8), 0, WS);
    p.completed!(1, true);
    const overlap = () => {
      const d = p.select(req([1, 2], 8), WS);
      return d.kind === 'worker' ? [d.index, d.estimatedHit?.matched] : null;
    };
    now = 5_000 + 119_999;
    expect(overlap()).toEqual([0, 2]); // 0 + 2 against 2 + 2
    now = 5_000 + 120_000;
    expect(overlap()).toEqual([0, 0]); // expired: 4 and 4, tie → w0
    p.evict!();
    now = 0; // even with the clock back, the pruned entries are gone
    expect(overlap()).toEqual([0, 0]);
  });

  it('skips unhealthy workers and says when none is left', () => {
    const p = kvAware(HISTORY, { rng: seededRng(0), now: () => 0 });
    const down: WorkerView[] = [{ ...WS[0]!, healthy: false }, WS[1]!];
    expect(at(p.select(req([1], 4), down))).toBe(1);
    expect(p.costs(req([1], 4), down)).toEqual([null, 2]);
    expect(p.select(req([1], 4), [{ ...WS[0]!, healthy: false }])).toMatchObject({
      reason: 'no-healthy-worker',
    });
  });
});

describe('kv-aware temperature', () => {
  it('softmax over −(cost / (max − min)) / T, the first index whose cumulative probability reaches the draw', () => {
    // costs 0, 3, 9, T = 1: logits 0, −1/3, −1 → weights 1, e^−1/3, e^−1 → p ≈ 0.4798, 0.3438, 0.1765
    const e1 = Math.exp(-1 / 3);
    const e2 = Math.exp(-1);
    const p0 = 1 / (1 + e1 + e2);
    const p1 = e1 / (1 + e1 + e2);
    expect(p0).toBeCloseTo(0.4798, 4);
    expect(softmaxPick([0, 3, 9], 1, 0.47)).toBe(0);
    expect(softmaxPick([0, 3, 9], 1, p0 + 1e-9)).toBe(1);
    expect(softmaxPick([0, 3, 9], 1, p0 + p1 - 1e-9)).toBe(1);
    expect(softmaxPick([0, 3, 9], 1, 0.83)).toBe(2);
    // the scale is the spread, not the size: 100, 103, 109 give the same picks
    expect(softmaxPick([100, 103, 109], 1, 0.47)).toBe(0);
    expect(softmaxPick([100, 103, 109], 1, 0.83)).toBe(2);
    // a lower temperature sharpens: T = 0.1 → p0 = 1 / (1 + e^−10/3 + e^−10) ≈ 0.966
    expect(softmaxPick([0, 3, 9], 0.1, 0.96)).toBe(0);
    expect(softmaxPick([0, 3, 9], 0.1, 0.97)).toBe(1);
    // equal costs: uniform
    expect(softmaxPick([5, 5], 1, 0.5)).toBe(0);
    expect(softmaxPick([5, 5], 1, 0.51)).toBe(1);
  });

  it('samples with the seeded random source above temperature 0, and replays from the seed', () => {
    const run = (seed: number) => {
      const p = kvAware({ ...HISTORY, temperature: 1 }, { rng: seededRng(seed), now: () => 0 });
      return Array.from({ length: 40 }, () => at(p.select(req([1], 4), WS)));
    };
    expect(run(11)).toEqual(run(11));
    // equal costs are uniform: both workers appear
    expect(new Set(run(11))).toEqual(new Set([0, 1]));
  });
});
