import { describe, expect, it } from 'vitest';
import {
  playPhase,
  recordedApiTimeS,
  SimClock,
  TRACE_A,
  TRACE_B,
} from '../../../test/support/replay-fixtures.ts';
import { planTrace, type TreePlan } from './replay-plan.ts';
import { type ReplayOptions, ReplayScheduler, type TraceSource } from './replay-scheduler.ts';

/** A source over given plans that counts what the scheduler asks of it, with a switch for readiness. */
function countingSource(plans: (TreePlan | null)[]) {
  const asked: number[] = [];
  const holds = plans.map(() => 0);
  const ready = plans.map(() => true);
  const source: TraceSource = {
    count: plans.length,
    ready: (i) => ready[i] as boolean,
    plan(i) {
      asked.push(i);
      const plan = plans[i] ?? null;
      if (plan !== null) holds[i] = (holds[i] as number) + 1;
      return plan;
    },
    release(i) {
      holds[i] = (holds[i] as number) - 1;
    },
  };
  return { source, asked, holds, ready };
}

const A = planTrace(TRACE_A);
const B = planTrace(TRACE_B);
const opts: ReplayOptions = { lanes: 3, seed: 5, durationS: 200, warmupRequestsPerLane: 1 };

function play(traces: ConstructorParameters<typeof ReplayScheduler>[0]) {
  const clock = new SimClock();
  const s = new ReplayScheduler(traces, opts, clock);
  s.startWarmup();
  const warm = playPhase(s, clock, recordedApiTimeS);
  s.startBenchmark();
  const prof = playPhase(s, clock, recordedApiTimeS);
  return { s, log: [...warm, ...prof].map((x) => `${x.at} ${x.call.lane} ${x.name}`) };
}

describe('ReplayScheduler over a TraceSource', () => {
  it('plays a source exactly as the array of the same traces, and holds a plan only while a lane plays it', () => {
    const { source, holds } = countingSource([A, B]);
    const lazy = play(source);
    expect(lazy.log).toEqual(play([TRACE_A, TRACE_B]).log);
    expect(lazy.s.counts.treesDrained).toBeGreaterThan(0);
    // Three lanes in play at the end: each holds its trace once; recycled trees gave theirs back.
    expect((holds[0] as number) + (holds[1] as number)).toBe(3);
  });

  it('skips traces that plan to null (past the end) or have no root turn, as the array leaves them out', () => {
    const noRoot: TreePlan = { ...A, traceId: 'no-root', root: [] };
    const { source, holds } = countingSource([null, A, noRoot, B, null]);
    const { log, s } = play(source);
    expect(log.length).toBeGreaterThan(0);
    expect(new Set(log.map((l) => l.split(' ')[2]?.split('/')[0]))).toEqual(new Set(['A', 'B']));
    expect(holds[2]).toBe(0);
    expect(s.counts.treesStarted).toBe(3 + s.counts.treesDrained);
    expect(() => new ReplayScheduler(countingSource([null, noRoot]).source, opts, new SimClock())).toThrow(
      /no trace has a root turn/,
    );
  });

  it('plans nothing it is not asked for, and a warmup lane waits until its trace is ready', () => {
    const { source, asked, ready } = countingSource([A, B]);
    ready.fill(false);
    const clock = new SimClock();
    const s = new ReplayScheduler(source, { ...opts, lanes: 2 }, clock);
    expect(asked).toEqual([]);
    s.startWarmup();
    expect(s.waitingLanes).toBe(2);
    expect(s.next()).toBe('wait');
    ready.fill(true);
    const first = s.next();
    expect(typeof first).toBe('object');
    expect(s.waitingLanes).toBe(0);
    expect(first !== 'wait' && first !== 'done' && first.warmup).toBe('prime');
  });

  it('a lane whose trace is still not ready when the warmup grace ends starts at its first turn in profiling', () => {
    const { source, ready } = countingSource([A, B]);
    const clock = new SimClock();
    const o = { ...opts, lanes: 2, warmupGraceS: 50 };
    // The order is the seed's: a first scheduler tells which trace the second lane takes.
    ready[new ReplayScheduler([TRACE_A, TRACE_B], o, clock).traceOrder[1] as number] = false;
    const s = new ReplayScheduler(source, o, clock);
    s.startWarmup();
    const warm = playPhase(s, clock, recordedApiTimeS);
    expect(warm.every((x) => x.call.lane === 0)).toBe(true);
    expect(clock.ms).toBe(50_000);
    s.startBenchmark();
    const prof = playPhase(s, clock, recordedApiTimeS);
    const lane1 = prof.filter((x) => x.call.lane === 1);
    expect(lane1[0]?.call.turnIndex).toBe(0);
    expect(lane1[0]?.call.recyclePass).toBe(0);
    expect(lane1[0]?.at).toBe(50);
  });
});
