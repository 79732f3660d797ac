import { describe, expect, it } from 'vitest';
import { blockCall, blockTrace } from '../../../test/support/traces.ts';
import { percentile, tracePrefixHits, traceStats } from './stats.ts';

const call = blockCall;
const trace = (id: string, requests: unknown[]) => blockTrace(id, requests);

// Trace A. Visited in (t, outer, inner) order, with its own seen-set:
//   o0   t0   [1,2]          hit 0 of 2   seen {1,2}
//   o1   t1   [1,2,3]        hit 2 of 3   seen +3
//   o2i0 t2.5 [10,11]        hit 0 of 2   seen +10,11   (subagent o2, spawned at t2)
//   o3   t3   [1,2,3,4]      hit 3 of 4   seen +4       (before o2i1: t decides, not file order)
//   o2i1 t4   [1,2,3,4,12]   hit 4 of 5   seen +12      (file order would give 3: 4 unseen yet)
//   o4   t5   [1,99,2,3]     hit 1 of 4   seen +99      (stops at the first miss: 2,3 seen but not counted)
//   o6   t6.2 [50]           hit 0 of 1   seen +50
//   o5i0 t0.5 → 6.5 [50,51]  hit 1 of 2   seen +51      (subagent o5 at t6: 0.5 < 6 is relative, so 6.5)
//   A: Σhit = 0+2+0+3+4+1+0+1 = 11, Σlen = 2+3+2+4+5+4+1+2 = 23
const A = trace('A', [
  call(0, [1, 2]),
  call(1, [1, 2, 3]),
  {
    type: 'subagent',
    t: 2,
    agent_id: 'a1',
    requests: [call(2.5, [10, 11]), call(4, [1, 2, 3, 4, 12], 1000)],
  },
  call(3, [1, 2, 3, 4]),
  call(5, [1, 99, 2, 3]),
  { type: 'subagent', t: 6, agent_id: 'a2', requests: [call(0.5, [50, 51])] },
  call(6.2, [50]),
]);

// Trace B: a seen-set of its own (ids 1, 2 seen in A are misses here); ties in t are broken by the outer
// index, then the inner index:
//   o0   t0 [1,2]      hit 0 of 2   seen {1,2}
//   o1i0 t1 [1,2,5]    hit 2 of 3   seen +5
//   o1i1 t1 [1,2,8,5]  hit 2 of 4   seen +8        (inner 0 before inner 1; reversed: 2 of 4, then 3 of 3)
//   o2   t1 [1,2,6,5]  hit 2 of 4   seen +6        (outer 1 before outer 2)
//   B: Σhit = 6, Σlen = 13
const B = trace('B', [
  call(0, [1, 2]),
  { type: 'subagent', t: 1, agent_id: 'b1', requests: [call(1, [1, 2, 5]), call(1, [1, 2, 8, 5])] },
  call(1, [1, 2, 6, 5]),
]);

describe('the theoretical prefix-cache hit rate', () => {
  it('is the leading run already seen, per trace, in (t, outer, inner) order', () => {
    expect(tracePrefixHits(A)).toEqual({ hit: 11, total: 23 });
    expect(tracePrefixHits(B)).toEqual({ hit: 6, total: 13 });
    // (11 + 6) / (23 + 13) = 17/36
    expect(traceStats([A, B]).theoreticalPrefixCacheHitRate).toBeCloseTo(17 / 36, 12);
  });
});

describe('traceStats', () => {
  it('counts every n/s call, those inside subagents too, and their distributions', () => {
    const s = traceStats([A, B]);
    // A: 5 top-level calls, 2 subagents holding 3; B: 2 top-level, 1 subagent holding 2.
    expect(s).toMatchObject({ traces: 2, requests: 12, topLevelTurns: 7, subagents: 3, subagentRequests: 5 });
    // Blocks per call, sorted: 1 2 2 2 2 3 3 4 4 4 4 5 → median (3+3)/2 = 3 blocks, p90 at rank 9.9 = 4 blocks.
    expect(s.inputTokens).toEqual({ min: 64, median: 192, p90: 256, max: 320 });
    // Outputs: eleven 10s and one 1000 (o2i1 of A).
    expect(s.outputTokens).toEqual({ min: 10, median: 10, p90: 10, max: 1000 });
    // o2i1 of A: 5 blocks in (320) + 1000 out.
    expect(s.maxContext).toBe(1320);
    expect(s.hashBlocks).toEqual({ hit: 17, total: 36 });
  });

  it('has no rate and no distributions for no calls', () => {
    const s = traceStats([]);
    expect(s.theoreticalPrefixCacheHitRate).toBeNull();
    expect(s.inputTokens).toBeNull();
  });
});

describe('percentile', () => {
  it('interpolates between closest ranks', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 90)).toBeCloseTo(3.7, 12);
    expect(percentile([5], 90)).toBe(5);
  });
});
