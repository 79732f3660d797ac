import { describe, expect, it } from 'vitest';
import { TRACE_A, TRACE_B } from '../../../test/support/replay-fixtures.ts';
import { planTrace, subagentEnd, timeWarp } from './replay-plan.ts';

describe('planTrace', () => {
  it('lays trace A out as a tree: tiered joins, a background subagent, warped end-to-start delays', () => {
    const plan = planTrace(TRACE_A);
    expect(plan.preamble).toBe(true);
    expect(plan.root.map((c) => c.outer)).toEqual([0, 1, 4, 5, 7, 8]);
    // Hand-worked in test/support/replay-fixtures.ts; the last is the 401 s gap warped to 300 s.
    expect(plan.root.map((c) => c.delayMs)).toEqual([0, 1000, 5000, 6000, 1000, 299000]);
    expect(
      plan.children.map((c) => [c.conversationId, c.spawnTurn, c.joinTurn, c.calls.map((x) => x.delayMs)]),
    ).toEqual([
      ['A::sa:fast', 1, 2, [1000, 1000]],
      ['A::sa:slow', 1, 3, [1000, 1000]],
      ['A::sa:bg', 3, null, [500]],
    ]);
    expect(plan.spawnsAt).toEqual([[], [0, 1], [], [2], [], []]);
    expect(plan.joinsAt).toEqual([[], [], [0], [1], [], []]);
    expect(plan.droppedSubagents).toBe(0);
  });

  it('drops a subagent with no root turn before it; no preamble when the first call shares its first block', () => {
    const plan = planTrace(TRACE_B);
    expect(plan.droppedSubagents).toBe(1);
    expect(plan.children).toEqual([]);
    expect(plan.preamble).toBe(false);
    expect(plan.root.map((c) => c.delayMs)).toEqual([0, 1000, 26000]);
  });

  it('a smaller trace idle cap warps more', () => {
    // Starts 0,2,5,7,9,10,16,17.5,18,419 with gaps capped at 5: 16 → 15, 18 → 17, 419 → 22 (the 9→10→16 gap of 6 → 5).
    const plan = planTrace(TRACE_A, { traceIdleGapCapS: 5 });
    expect(plan.root.map((c) => c.delayMs)).toEqual([0, 1000, 5000, 5000, 1000, 4000]);
  });
});

describe('timeWarp', () => {
  it('compresses gaps between starts above the cap, and points inside a gap keep at most the cap', () => {
    const w = timeWarp([0, 10, 100, 105], 20);
    expect([0, 10, 25, 50, 100, 105, 200].map(w)).toEqual([0, 10, 25, 30, 30, 35, 55]);
  });
});

describe('subagentEnd', () => {
  it('is t + duration, else the latest call end, clamping negative durations', () => {
    const base = { type: 'subagent' as const, agent_id: 'x', t: 10 };
    const call = { type: 'n' as const, t: 12, in: 0, out: 0, hash_ids: [], api_time: 3 };
    expect(subagentEnd({ ...base, duration_ms: 2500, requests: [call] })).toBe(12.5);
    expect(subagentEnd({ ...base, duration_ms: -5, requests: [call] })).toBe(10);
    expect(subagentEnd({ ...base, duration_ms: null, requests: [call, { ...call, t: 1 }] })).toBe(15);
    expect(subagentEnd({ ...base, duration_ms: null, requests: [] })).toBe(10);
  });
});
