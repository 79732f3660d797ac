import { describe, expect, it } from 'vitest';
import {
  playPhase,
  recordedApiTimeS,
  type Sent,
  SimClock,
  TRACE_A,
  TRACE_B,
} from '../../../test/support/replay-fixtures.ts';
import { type AgenticTrace, AgenticTraceSchema } from '../../schema/agentic-trace.ts';
import { type ReplayCall, type ReplayOptions, ReplayScheduler } from './replay-scheduler.ts';

const scheduler = (traces: AgenticTrace[], options: Partial<ReplayOptions> = {}) => {
  const clock = new SimClock();
  const s = new ReplayScheduler(traces, { lanes: 1, seed: 1, durationS: 40, ...options }, clock);
  return { s, clock };
};

/** The server answers in the recorded api_time, except slow's last call (10 s) and the background call (1 s). */
const latency = (c: ReplayCall): number =>
  c.branch.agentId === 'slow' && c.turnIndex === 1 ? 10 : c.branch.agentId === 'bg' ? 1 : recordedApiTimeS(c);

const log = (sent: Sent[]) => sent.map((x) => `${x.at} ${x.name}`);

describe('ReplayScheduler: one lane of trace A, no warmup', () => {
  it('dispatches in the hand-worked order: delays, tiered joins, background, idle cap, recycling, the end', () => {
    const { s, clock } = scheduler([TRACE_A]);
    s.startBenchmark();
    const sent = playPhase(s, clock, latency);
    expect(log(sent)).toEqual([
      '0 A/root#0', // done 1
      '2 A/root#1', // 1 + 1 s; done 4, spawns fast and slow
      '5 A/fast#0', // 4 + 1 s each; done 6
      '5 A/slow#0', // done 9
      '7 A/fast#1', // 6 + 1; done 8: fast is finished
      '9 A/root#2', // 4 + 5 s, and fast (its join) finished at 8; done 10
      '10 A/slow#1', // 9 + 1; the server takes 10 s: done 20
      '20 A/root#3', // due 10 + 6 = 16 but joins slow: sent when slow's last call finished; done 21, spawns bg
      '21.5 A/bg#0', // 21 + 0.5; done 22.5; gates nothing
      '22 A/root#4', // 21 + 1; done 23
      // root#5 is due 23 + 299 s; nothing is in flight anywhere: the global 10 s cap brings it to 33.
      '33 A/root#5', // done 34: the tree has drained, the lane recycles at once (pass 1)
      '34 A/root#0',
      '36 A/root#1', // 35 + 1; done 38
      '39 A/fast#0', // done 40
      '39 A/slow#0', // done 43, inside the 30 s grace; fast#1 would be due at 41, past the 40 s end: never sent
    ]);
    expect(sent.filter((x) => x.call.recyclePass === 1).length).toBe(4);
    expect(clock.ms).toBe(43000);
    expect(s.counts.benchmark).toEqual({ sent: 15, ok: 15, errors: 0, overflows: 0, cancelled: 0 });
    expect(s.counts.treesStarted).toBe(2);
    expect(s.counts.treesDrained).toBe(1);
    const bg = sent.find((x) => x.name === 'A/bg#0')?.call;
    expect(bg?.branch).toEqual({ kind: 'subagent', agentId: 'bg', background: true });
    expect(sent.find((x) => x.name === 'A/fast#0')?.call.branch.background).toBe(false);
  });

  it('each join turn goes only after its subagents’ last calls finished, however slow they are', () => {
    for (const slowS of [4, 30, 200]) {
      const { s, clock } = scheduler([TRACE_A], { durationS: 1000 });
      s.startBenchmark();
      const finished = new Map<string, number>();
      const sent = playPhase(s, clock, (c) => {
        const l = c.branch.agentId === 'slow' ? slowS : recordedApiTimeS(c);
        if (c.recyclePass === 0)
          finished.set(`${c.branch.agentId ?? 'root'}#${c.turnIndex}`, c.sentAtMs + l * 1000);
        return l;
      }).filter((x) => x.call.recyclePass === 0);
      const at = (name: string) => (sent.find((x) => x.name === name) as Sent).at * 1000;
      expect(at('A/root#2')).toBeGreaterThanOrEqual(finished.get('fast#1') as number);
      expect(at('A/root#3')).toBeGreaterThanOrEqual(finished.get('slow#1') as number);
      // With a slow subagent the join turn goes the moment it finishes (its own delay ran out long before).
      if (slowS > 10) expect(at('A/root#3')).toBe(finished.get('slow#1'));
    }
  });

  it('stops at the duration and cancels what is still in flight after the grace, counted apart', () => {
    const { s, clock } = scheduler([TRACE_A], { benchmarkGraceS: 2 });
    s.startBenchmark();
    const sent = playPhase(s, clock, latency);
    // As above, but slow#0 of pass 1 (sent at 39, done at 43) is cut at 40 + 2 s.
    expect(sent.length).toBe(15);
    expect(clock.ms).toBe(42000);
    expect(s.counts.benchmark).toEqual({ sent: 15, ok: 14, errors: 0, overflows: 0, cancelled: 1 });
    expect(s.inFlight).toBe(0);
    expect(s.next()).toBe('done');
  });

  it('at each dispatch, tells onTimer of the calls its completion may release, with the earliest they could be due', () => {
    const told: { atClock: number; name: string; dueAt: number }[] = [];
    const { s, clock } = scheduler([TRACE_A], {
      onTimer: (_trace, call, dueAt) =>
        told.push({ atClock: clock.ms, name: `${call.inner < 0 ? 'root' : 'sub'}#${call.turnIndex}`, dueAt }),
    });
    s.startBenchmark();
    playPhase(s, clock, latency);
    // root#1 goes at 2 s: its completion releases root#2 (delay 5 s) and spawns fast and slow (1 s each).
    expect(told.filter((x) => x.atClock === 2000)).toEqual([
      { atClock: 2000, name: 'root#2', dueAt: 7000 },
      { atClock: 2000, name: 'sub#0', dueAt: 3000 },
      { atClock: 2000, name: 'sub#0', dueAt: 3000 },
    ]);
    // fast#1 is fast's last call: its dispatch (7 s) announces nothing of fast's; root#5, the last root turn, nothing.
    expect(told.filter((x) => x.atClock === 7000)).toEqual([]);
    expect(told.filter((x) => x.atClock === 33000)).toEqual([]);
  });
});

describe('ReplayScheduler: errors', () => {
  it('an overflowing subagent ends that conversation and frees its join', () => {
    const { s, clock } = scheduler([TRACE_A], { durationS: 30 });
    s.startBenchmark();
    const sent = playPhase(s, clock, latency, (c) => (c.branch.agentId === 'slow' ? 'overflow' : 'ok'));
    const pass0 = log(sent.filter((x) => x.call.recyclePass === 0));
    expect(pass0).toEqual([
      '0 A/root#0',
      '2 A/root#1',
      '5 A/fast#0',
      '5 A/slow#0', // overflows at 9: slow#1 is never sent
      '7 A/fast#1',
      '9 A/root#2', // done 10
      '16 A/root#3', // 10 + 6: slow's end released the join; done 17
      '17.5 A/bg#0',
      '18 A/root#4', // done 19; root#5 due 19 + 299, capped to 29
      '29 A/root#5',
    ]);
    expect(s.counts.sessionsOverflowed).toBe(1);
    expect(s.counts.benchmark.overflows).toBe(1);
  });

  it('an overflowing root ends the session: its subagents never spawn and the lane recycles', () => {
    const { s, clock } = scheduler([TRACE_A], { durationS: 5 });
    s.startBenchmark();
    const sent = playPhase(s, clock, latency, (c) =>
      c.branch.kind === 'root' && c.turnIndex === 1 ? 'overflow' : 'ok',
    );
    expect(log(sent)).toEqual(['0 A/root#0', '2 A/root#1', '4 A/root#0']);
    expect(sent[2]?.call.recyclePass).toBe(1);
  });

  it('a generic error is not terminal: the session goes on with its next turn', () => {
    const { s, clock } = scheduler([TRACE_A]);
    s.startBenchmark();
    const sent = playPhase(s, clock, latency, (c) =>
      c.branch.kind === 'root' && c.turnIndex === 1 && c.recyclePass === 0 ? 'error' : 'ok',
    );
    expect(log(sent).slice(0, 6)).toEqual([
      '0 A/root#0',
      '2 A/root#1',
      '5 A/fast#0',
      '5 A/slow#0',
      '7 A/fast#1',
      '9 A/root#2',
    ]);
    expect(s.counts.benchmark.errors).toBe(1);
    expect(s.counts.benchmark.sent).toBe(15);
  });
});

describe('ReplayScheduler: idle caps', () => {
  it('the global 10 s cap: with nothing in flight anywhere, the 26 s think time of B shrinks to 10 s', () => {
    const { s, clock } = scheduler([TRACE_B], { durationS: 14 });
    s.startBenchmark();
    const sent = playPhase(s, clock, recordedApiTimeS);
    // root#0 done 1; root#1 at 2, done 3; root#2 due 29 → 13; done 14, the end: no recycle.
    expect(log(sent)).toEqual(['0 B/root#0', '2 B/root#1', '13 B/root#2']);
    expect(s.counts.subagentsDropped).toBe(1);
  });

  it('the per-trace time warp: while another lane keeps the system busy, the 401 s gap of A replays as 299 s', () => {
    // A busy trace: a call every 5 s for 500 s, each taking 4 s, so the global cap never has to act.
    const busy: AgenticTrace = {
      ...TRACE_B,
      id: 'C',
      requests: Array.from({ length: 100 }, (_, k) => ({
        type: 'n' as const,
        t: 5 * k,
        in: 64,
        out: 1,
        hash_ids: [k],
        api_time: 4,
      })),
    };
    const { s, clock } = scheduler([TRACE_A, busy], { lanes: 2, durationS: 400 });
    s.startBenchmark();
    const sent = playPhase(s, clock, (c) => (c.traceId === 'C' ? 4 : latency(c)));
    const a = log(sent.filter((x) => x.call.traceId === 'A' && x.call.recyclePass === 0));
    // As in the first test up to root#4 (done 23); then 23 + 299 s, not capped to 10 s.
    expect(a.slice(-2)).toEqual(['22 A/root#4', '322 A/root#5']);
  });
});

describe('ReplayScheduler: the per-tree 300 s cap', () => {
  // Trace D: root#0 t0, subagent x (spawned by root#0; calls t200 and t500; ends 501, joined by root#2),
  // root#1 t250, root#2 t600, every call 1 s. No start gap exceeds 300 s, so nothing is warped, but
  // root#2's delay is 600 − 250 − 1 = 349 s: it relies on x's call at 500 to keep the tree busy.
  const D = AgenticTraceSchema.parse({
    ...TRACE_B,
    id: 'D',
    requests: [
      { type: 'n', t: 0, in: 64, out: 1, hash_ids: [1], api_time: 1 },
      {
        type: 'subagent',
        t: 200,
        agent_id: 'x',
        duration_ms: 301000,
        requests: [
          { type: 'n', t: 200, in: 64, out: 1, hash_ids: [2], api_time: 1 },
          { type: 'n', t: 500, in: 64, out: 1, hash_ids: [2, 3], api_time: 1 },
        ],
      },
      { type: 'n', t: 250, in: 64, out: 1, hash_ids: [1, 4], api_time: 1 },
      { type: 'n', t: 600, in: 64, out: 1, hash_ids: [1, 4, 5], api_time: 1 },
    ],
  });
  // Another lane busy all the time (4 s of every 5), so that the global 10 s cap never acts.
  const busy = AgenticTraceSchema.parse({
    ...TRACE_B,
    id: 'C',
    requests: Array.from({ length: 200 }, (_, k) => ({
      type: 'n',
      t: 5 * k,
      in: 64,
      out: 1,
      hash_ids: [k],
      api_time: 4,
    })),
  });
  const run = (xOverflows: boolean) => {
    const { s, clock } = scheduler([D, busy], { lanes: 2, durationS: 700 });
    s.startBenchmark();
    const sent = playPhase(s, clock, recordedApiTimeS2, (c) =>
      xOverflows && c.branch.agentId === 'x' ? 'overflow' : 'ok',
    );
    return log(sent.filter((x) => x.call.traceId === 'D' && x.call.recyclePass === 0));
  };
  const recordedApiTimeS2 = (c: ReplayCall) => (c.traceId === 'C' ? 4 : 1);

  it('as recorded, x’s second call keeps the tree busy and root#2 waits its full 349 s', () => {
    expect(run(false)).toEqual(['0 D/root#0', '200 D/x#0', '250 D/root#1', '500 D/x#1', '600 D/root#2']);
  });

  it('when x ends early (an overflow), the tree idles from 251 and root#2 is brought to 251 + 300 s', () => {
    expect(run(true)).toEqual(['0 D/root#0', '200 D/x#0', '250 D/root#1', '551 D/root#2']);
  });
});

describe('ReplayScheduler: warmup', () => {
  it('sends the turn before t*, then advances each lane by the one-token requests; profiling resumes from there', () => {
    // t* = floor(0.5 × turns): A (6 turns) starts at root#3, B (3 turns) at root#1.
    const { s, clock } = scheduler([TRACE_A, TRACE_B], {
      lanes: 2,
      startRatio: [0.5, 0.5],
      warmupRequestsPerLane: 2,
      durationS: 2,
    });
    s.startWarmup();
    const warm = playPhase(s, clock, latency);
    const byTrace = (t: string) => warm.filter((x) => x.call.traceId === t);
    // A: root#2 primes (slow and fast, spawned before it, are not replayed, so root#3's join is free);
    // then root#3 and root#4 with no delays; bg (spawned by root#3 at 2) is left for profiling.
    expect(byTrace('A').map((x) => [x.at, x.name, x.call.warmup, x.call.maxTokens])).toEqual([
      [0, 'A/root#2', 'prime', 60],
      [1, 'A/root#3', 'advance', 1],
      [2, 'A/root#4', 'advance', 1],
    ]);
    expect(byTrace('B').map((x) => [x.at, x.name, x.call.warmup, x.call.maxTokens])).toEqual([
      [0, 'B/root#0', 'prime', 10],
      [1, 'B/root#1', 'advance', 1],
      [2, 'B/root#2', 'advance', 1],
    ]);
    expect(warm.every((x) => x.call.phase === 'warmup')).toBe(true);
    expect(clock.ms).toBe(3000);
    expect(s.counts.warmup).toEqual({ sent: 6, ok: 6, errors: 0, overflows: 0, cancelled: 0 });

    s.startBenchmark();
    const prof = playPhase(s, clock, latency);
    // The boundary (3 s) puts each trace at its t*: A's pending calls are due their recorded delays
    // after it, bg#0 at 3.5 (0.5 s after its spawn) and root#5 at 3 + 299 s (past the end); B's lane has
    // drained and takes the next trace at once, whose second turn would be due at or past the 5 s end.
    const laneOfA = (warm.find((x) => x.call.traceId === 'A') as Sent).call.lane;
    const next = laneOfA === 0 ? 'A' : 'B';
    expect(prof.map((x) => `${x.at} ${x.name} ${x.call.recyclePass}`).sort()).toEqual(
      ['3.5 A/bg#0 0', `3 ${next}/root#0 1`].sort(),
    );
    expect(prof.every((x) => x.call.phase === 'benchmark' && x.call.warmup === null)).toBe(true);
    expect(s.counts.benchmark.sent).toBe(2);
  });

  it('at the boundary, a long think time is cut by the global idle cap as after any turn', () => {
    // A alone from root#3 (t* = 3): warmup root#2, root#3, root#4 end at 3 s; bg#0 (spawned by root#3)
    // goes at 3.5 and is done at 4.5; root#5 is due 3 + 299 s, and with nothing in flight the 10 s cap
    // brings it to 14.5.
    const { s, clock } = scheduler([TRACE_A], { startRatio: [0.5, 0.5], warmupRequestsPerLane: 2 });
    s.startWarmup();
    playPhase(s, clock, latency);
    expect(clock.ms).toBe(3000);
    s.startBenchmark();
    const prof = playPhase(s, clock, latency);
    expect(log(prof).slice(0, 3)).toEqual(['3.5 A/bg#0', '14.5 A/root#5', '15.5 A/root#0']);
  });

  it('a failed root warmup request aborts the run; a subagent’s does not', () => {
    const { s, clock } = scheduler([TRACE_A], { startRatio: [0.5, 0.5], warmupRequestsPerLane: 3 });
    s.startWarmup();
    playPhase(s, clock, latency, (c) => (c.branch.kind === 'subagent' ? 'error' : 'ok'));
    expect(s.aborted).toBeNull();
    expect(s.counts.warmup.errors).toBe(1); // bg#0, spawned by root#3
    const t = scheduler([TRACE_A], { startRatio: [0.5, 0.5] });
    t.s.startWarmup();
    const sent = playPhase(t.s, t.clock, latency, () => 'error');
    expect(sent.length).toBe(1);
    expect(t.s.aborted).toMatch(/lane 0's root failed/);
  });

  it('cancels warmup requests still in flight after the warmup grace', () => {
    const { s, clock } = scheduler([TRACE_A], { startRatio: [0.5, 0.5], warmupGraceS: 100 });
    s.startWarmup();
    const sent = playPhase(s, clock, () => 500);
    expect(sent.length).toBe(1);
    expect(clock.ms).toBe(100_000);
    expect(s.counts.warmup.cancelled).toBe(1);
  });

  it('draws t* in [0.25, 0.75] of the turns, leaving a turn before and after it', () => {
    const { s } = scheduler([TRACE_A], { lanes: 50 });
    const starts = Array.from({ length: 50 }, (_, lane) => s.startTurn(lane));
    // 6 turns: floor(6 × [0.25, 0.75)) is 1..4.
    expect(Math.min(...starts)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...starts)).toBeLessThanOrEqual(4);
    expect(new Set(starts).size).toBeGreaterThan(1);
  });
});

describe('ReplayScheduler: identity and determinism', () => {
  const play = (seed: number) => {
    const { s, clock } = scheduler([TRACE_A, TRACE_B], {
      lanes: 3,
      seed,
      durationS: 60,
      affinityHeaders: ['x-session-id', 'x-dynamo-session-id'],
    });
    s.startWarmup();
    const warm = playPhase(s, clock, latency);
    s.startBenchmark();
    return [...warm, ...playPhase(s, clock, latency)];
  };

  it('the same seed gives the same schedule; another seed other correlation ids', () => {
    const one = play(7);
    expect(play(7)).toEqual(one);
    const other = play(8);
    expect(other.map((x) => x.call.correlationId)).not.toEqual(one.map((x) => x.call.correlationId));
  });

  it('a thread’s share of the lanes (laneIds) plays those lanes exactly as the whole scheduler does', () => {
    const whole = scheduler([TRACE_A, TRACE_B], { lanes: 2, durationS: 20 });
    whole.s.startBenchmark();
    const all = playPhase(whole.s, whole.clock, latency).filter((x) => x.call.lane === 1);
    const part = scheduler([TRACE_A, TRACE_B], { lanes: 2, durationS: 20, laneIds: [1] });
    part.s.startBenchmark();
    const mine = playPhase(part.s, part.clock, latency);
    // Global idle shifts differ once a lane is alone; up to then the two agree call for call.
    const key = (x: Sent) => `${x.name} ${x.call.correlationId}`;
    expect(mine.slice(0, 2).map(key)).toEqual(all.slice(0, 2).map(key));
    expect(mine.every((x) => x.call.lane === 1)).toBe(true);
  });

  it('headers: a correlation id per conversation and play, a request id per request, affinity from the correlation id', () => {
    const sent = play(7).map((x) => x.call);
    const ids = new Set(sent.map((c) => c.requestId));
    expect(ids.size).toBe(sent.length);
    for (const c of sent) {
      expect(c.headers['x-correlation-id']).toBe(c.correlationId);
      expect(c.headers['x-request-id']).toBe(c.requestId);
      expect(c.headers['x-session-id']).toBe(c.correlationId);
      expect(c.headers['x-dynamo-session-id']).toBe(c.correlationId);
      expect(c.headers['x-dynamo-parent-session-id']).toBe(c.parentCorrelationId ?? undefined);
      if (c.branch.kind === 'root') expect(c.correlationId).toBe(c.rootCorrelationId);
      else expect(c.correlationId).not.toBe(c.rootCorrelationId);
    }
    // One correlation id per (lane, pass, conversation), never shared between two of them.
    const owners = new Map<string, string>();
    for (const c of sent) {
      const owner = `${c.lane}/${c.recyclePass}/${c.conversationId}`;
      expect(owners.get(c.correlationId) ?? owner).toBe(owner);
      owners.set(c.correlationId, owner);
    }
    expect(new Set(owners.values()).size).toBe(owners.size);
  });
});
