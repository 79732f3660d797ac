import { describe, expect, it } from 'vitest';
import { arec } from '../../../test/support/agentic-records.ts';
import { theoreticalCacheHitRate, theoreticalPrefixCacheHit } from './cache.ts';

describe('runtime theoretical prefix-cache hit', () => {
  it('sums hit and blocks over successful profiling records only, the hit clamped to the blocks', () => {
    const records = [
      arec({ hit: 0, blocks: 4 }),
      arec({ hit: 4, blocks: 6 }),
      arec({ hit: 0, blocks: 2 }),
      arec({ hit: 9, blocks: 8 }), // clamped to 8
      arec({ phase: 'warmup', hit: 5, blocks: 5 }),
      arec({ fail: 'http_5xx', hit: 3, blocks: 3 }),
      arec({ cancelled: true, hit: 3, blocks: 3 }),
    ];
    // Σhit 0 + 4 + 0 + 8 = 12, Σblocks 4 + 6 + 2 + 8 = 20: 60 %, rate 0.6.
    const agg = theoreticalPrefixCacheHit(records);
    expect(agg).toEqual({ unit: '%', avg: 60, sum: 12, count: 20 });
    expect(theoreticalCacheHitRate(agg)).toBe(0.6);
  });

  it('is null with no blocks (not 0)', () => {
    expect(theoreticalPrefixCacheHit([arec({ fail: 'timeout', hit: 1, blocks: 2 })])).toBeNull();
    expect(theoreticalCacheHitRate(null)).toBeNull();
  });

  it("reads AIPerf's aggregate as the reference does (spec §10 case 27)", () => {
    expect(theoreticalCacheHitRate({ unit: '%', avg: 25, count: 4, sum: 1 })).toBe(0.25);
    expect(theoreticalCacheHitRate({ unit: '%', avg: 40 })).toBe(0.4);
    expect(theoreticalCacheHitRate({ unit: 'ratio', avg: 0.3, count: 0, sum: 0 })).toBe(0.3);
    expect(theoreticalCacheHitRate({ unit: '%' })).toBeNull();
  });
});
