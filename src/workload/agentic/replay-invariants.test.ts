import { describe, expect, it } from 'vitest';
import { playPhase, type Sent, SimClock } from '../../../test/support/replay-fixtures.ts';
import type { AgenticTrace, TraceApiCall, TraceSubagent } from '../../schema/agentic-trace.ts';
import { planTrace } from './replay-plan.ts';
import { type ReplayCall, ReplayScheduler } from './replay-scheduler.ts';
import { synthTrace } from './synth.ts';

/** A synthetic corpus played end to end: the rules hold on every call, not just on the hand-built traces. */
describe('ReplayScheduler on a synthetic corpus', () => {
  const traces: AgenticTrace[] = Array.from({ length: 12 }, (_, i) => synthTrace(3, i, 262_144));
  const byId = new Map(traces.map((t) => [t.id, t]));
  const plans = new Map(traces.map((t) => [t.id, planTrace(t)]));
  const callOf = (c: ReplayCall): TraceApiCall => {
    const entry = (byId.get(c.traceId) as AgenticTrace).requests[c.outer];
    return (c.inner < 0 ? entry : (entry as TraceSubagent).requests[c.inner]) as TraceApiCall;
  };
  // A server a little faster than the recording; a few generic errors and overflows.
  const latencyS = (c: ReplayCall) => 0.8 * (callOf(c).api_time ?? 1);
  const outcome = (c: ReplayCall) =>
    c.phase === 'warmup' ? 'ok' : c.id % 97 === 5 ? 'overflow' : c.id % 31 === 7 ? 'error' : 'ok';

  const clock = new SimClock();
  const s = new ReplayScheduler(
    traces,
    { lanes: 8, seed: 11, durationS: 900, warmupRequestsPerLane: 10 },
    clock,
  );
  s.startWarmup();
  const warm = playPhase(s, clock, latencyS, outcome);
  const benchStart = clock.ms;
  s.startBenchmark();
  const prof = playPhase(s, clock, latencyS, outcome);
  const all: (Sent & { doneMs: number })[] = [...warm, ...prof].map((x) => ({
    ...x,
    doneMs: x.call.sentAtMs + Math.round(latencyS(x.call) * 1000),
  }));
  const play = (c: ReplayCall) => `${c.lane}/${c.recyclePass}`;

  it('plays both phases to the end', () => {
    expect(s.aborted).toBeNull();
    expect(warm.length).toBeGreaterThan(8);
    expect(prof.length).toBeGreaterThan(100);
    expect(s.counts.treesDrained).toBeGreaterThan(0);
    const c = s.counts.benchmark;
    expect(c.ok + c.errors + c.overflows + c.cancelled).toBe(c.sent);
  });

  it('one call at a time per conversation, in turn order', () => {
    const last = new Map<string, Sent & { doneMs: number }>();
    for (const x of all) {
      const key = `${play(x.call)}/${x.call.conversationId}`;
      const prev = last.get(key);
      if (prev !== undefined) {
        expect(x.call.turnIndex).toBe(prev.call.turnIndex + 1);
        expect(x.call.sentAtMs).toBeGreaterThanOrEqual(prev.doneMs);
      }
      last.set(key, x);
    }
  });

  it('a join turn goes only after every call of the subagents it joins finished', () => {
    for (const x of all) {
      if (x.call.branch.kind !== 'root') continue;
      const plan = plans.get(x.call.traceId);
      for (const child of plan?.joinsAt[x.call.turnIndex] ?? []) {
        const id = plan?.children[child]?.conversationId;
        for (const y of all)
          if (play(y.call) === play(x.call) && y.call.conversationId === id)
            expect(y.doneMs).toBeLessThanOrEqual(x.call.sentAtMs);
      }
    }
  });

  it('no profiling request starts at or after the duration; warmup sends at most 1 + 10 per lane', () => {
    for (const x of prof) expect(x.call.sentAtMs).toBeLessThan(benchStart + 900_000);
    const perLane = new Map<number, number>();
    for (const x of warm) perLane.set(x.call.lane, (perLane.get(x.call.lane) ?? 0) + 1);
    for (const n of perLane.values()) expect(n).toBeLessThanOrEqual(11);
  });
});
