import { describe, expect, it } from 'vitest';
import { arec } from '../../../test/support/agentic-records.ts';
import { AgenticRequestRecordSchema } from '../../schema/agentic-record.ts';
import { accountingOf, isKept, measureOf } from './records.ts';

describe('agentic record accounting', () => {
  it('keeps profiling records without an error (spec §10 case 17)', () => {
    const records = [arec(), arec({ phase: 'warmup' }), arec({ fail: 'http_5xx' })];
    expect(accountingOf(records)).toEqual({
      recordsTotal: 3,
      recordsProfiled: 1,
      recordsDroppedTotal: 2,
      recordsWarmupDropped: 1,
      recordsErrorDropped: 1,
      recordsCancelled: 0,
      errorCategories: { http_5xx: 1 },
    });
  });

  it('counts a warmup error in both counters but drops it once, and a cancellation apart', () => {
    const records = [
      arec(),
      arec({ phase: 'warmup', fail: 'timeout' }),
      arec({ cancelled: true }),
      arec({ phase: 'warmup', cancelled: true }),
    ];
    // 4 records, 1 kept: dropped 3, while warmup 2 + error 3 = 5. Only the profiling cancellation is counted apart.
    expect(accountingOf(records)).toEqual({
      recordsTotal: 4,
      recordsProfiled: 1,
      recordsDroppedTotal: 3,
      recordsWarmupDropped: 2,
      recordsErrorDropped: 3,
      recordsCancelled: 1,
      errorCategories: { timeout: 1, cancelled: 2 },
    });
    expect(records.map(isKept)).toEqual([true, false, false, false]);
  });

  it('measures one record as AIPerf does (§3.2)', () => {
    // sent 1000, first token 1040, last token 1440, done 1450, OSL 9:
    // TTFT 40; latency 440; ITL (440 − 40)/8 = 50; full ITL (1450 − 1040)/8 = 51.25.
    const m = measureOf(arec({ sent: 1000, ttft: 40, e2e: 440, done: 1450, isl: 300, osl: 9, expected: 12 }));
    expect(m).toEqual({
      isl: 300,
      osl: 9,
      expectedOsl: 12,
      startMs: 1000,
      endMs: 1450,
      ttftMs: 40,
      requestLatencyMs: 440,
      itlMs: 50,
      fullResponseItlMs: 51.25,
      observedMs: 1440,
    });
    expect(measureOf(arec({ osl: 1 })).itlMs).toBeNull();
  });

  it('the record schema accepts what the builder writes and rejects a record without its agentic fields', () => {
    const r = arec({ branch: 'subagent', conv: 'trace-a::sub-1' });
    expect(AgenticRequestRecordSchema.parse(r)).toEqual(r);
    const { agentic: _, ...plain } = r;
    expect(AgenticRequestRecordSchema.safeParse(plain).success).toBe(false);
  });
});
