import { describe, expect, it } from 'vitest';
import { aggregate, rec } from '../../test/support/fixed-seq-len-point.ts';
import type { RequestRecord } from '../schema/request-record.ts';
import { chooseClock } from './clock-view.ts';

describe('aggregatePoint on the engine clock', () => {
  // The truth: the four requests of the hand-checked case above, as the engine timed them (its clock
  // starts at 5,000 ms; a request is done at its last token). The client saw them on a 10x engine through a slow host: every wall interval is
  // 1.25x what it should be.
  const truth = (): RequestRecord[] => [
    rec({ index: 0, sent: 0, ttft: 50, e2el: 450, done: 450, outServer: 5, gaps: [100, 100, 100, 100] }),
    rec({ index: 1, sent: 0, ttft: 70, e2el: 370, done: 370, outServer: 3, gaps: [150, 150] }),
    rec({ index: 2, sent: 375, ttft: 25, e2el: 25, done: 400, outServer: 1 }),
    rec({
      index: 3,
      sent: 460,
      ttft: 20,
      e2el: 520,
      done: 980,
      outServer: 6,
      gaps: [100, 100, 100, 100, 100],
    }),
  ];
  const ORIGIN = 5000;
  const stamped = (): RequestRecord[] =>
    truth().map((r) => {
      const wall = (t: number) => 3 + (t * 1.25) / 10;
      const wn = (t: number | null) => (t === null ? null : wall(t));
      return {
        ...r,
        scheduledMs: wall(r.scheduledMs),
        sentMs: wall(r.sentMs),
        firstByteMs: wn(r.firstByteMs),
        firstTokenMs: wn(r.firstTokenMs),
        lastTokenMs: wn(r.lastTokenMs),
        doneMs: wn(r.doneMs),
        chunkGapsMs: r.chunkGapsMs.map((g) => (g * 1.25) / 10),
        engine: {
          arrivalMs: ORIGIN + r.sentMs,
          scheduledMs: null,
          firstTokenMs: ORIGIN + r.firstTokenMs!,
          lastTokenMs: ORIGIN + r.lastTokenMs!,
          chunkGapsMs: r.chunkGapsMs,
        },
      };
    });
  const sim = { kind: 'simulated', simulator: 'infx-sim/test', timeScale: 10, lockstep: true } as const;
  const conc = { load: { concurrency: 2, requestRate: 'inf', burstiness: 1 } } as const;

  it("takes every latency and rate from the engine's stamps and keeps the wall clock's beside them", () => {
    const want = aggregate(truth(), conc);
    const got = aggregate(stamped(), { ...conc, engine: { ...sim, lag: null }, clock: 'engine' });
    expect(got.latency).toEqual(want.latency);
    // Queue time: on the engine clock a request is due when it arrives (closed loop, lockstep).
    expect(got.queueInclusive.ttftMs).toEqual(want.latency.ttftMs);
    expect(got.interactivity).toEqual(want.interactivity);
    expect(got.throughput).toEqual(want.throughput);
    expect(got.timing).toMatchObject({ startMs: ORIGIN, endMs: ORIGIN + 980, durationS: 0.98 });
    // The wall window (ms from the origin) is what the client saw, and the Unix times are real ones.
    expect(got.timing.wallStartMs).toBeCloseTo(3, 9);
    expect(got.timing.wallDurationS).toBeCloseTo((980 * 1.25) / 10 / 1000, 9);
    expect(got.timing.startUnixMs).toBeCloseTo(1_700_000_000_003, 3);
    expect(got.timing.endUnixMs).toBeLessThan(1_700_000_000_200);
    // Wall x time scale: 25% slower than the engine says.
    expect(got.wallClock?.durationS).toBeCloseTo(0.98 * 1.25, 9);
    expect(got.wallClock?.latency.e2elMs.max).toBeCloseTo(520 * 1.25, 6);
    expect(got.engine).toMatchObject({ kind: 'simulated', clock: 'engine', engineLimited: false });
    expect(got.valid).toBe(true);
  });

  it('on the wall clock of a scaled engine, wall ms x scale are the figures', () => {
    const got = aggregate(stamped(), {
      ...conc,
      engine: { ...sim, lag: null, lockstep: false },
      clock: 'wall',
    });
    expect(got.wallClock).toBeNull();
    expect(got.timing.durationS).toBeCloseTo(0.98 * 1.25, 9);
    expect(got.latency.e2elMs.max).toBeCloseTo(650, 6);
  });

  const lag = {
    steps: 1000,
    missedDeadlines: 0,
    behindMs: 0,
    lockstepWaits: 10,
    lockstepWaitMs: 3,
    lockstepTimeouts: 0,
  };

  it('is engine-limited when a lockstep wait ran out (engine clock) or the schedule slipped (wall clock)', () => {
    const ok = aggregate(stamped(), {
      ...conc,
      engine: { ...sim, lag: { ...lag, behindMs: 500 } },
      clock: 'engine',
    });
    expect(ok.engine.engineLimited).toBe(false); // slips move no figure on the engine clock
    const broken = aggregate(stamped(), {
      ...conc,
      engine: { ...sim, lag: { ...lag, lockstepTimeouts: 1 } },
      clock: 'engine',
    });
    expect(broken.engine.engineLimited).toBe(true);
    expect(broken.engine.reasons[0]).toMatch(/waited in vain 1 time/);
    expect(broken.valid).toBe(false);
    // Wall window 122.5 ms: 2% of it is 2.45 ms.
    const wall = (behindMs: number) =>
      aggregate(stamped(), {
        ...conc,
        engine: { ...sim, lockstep: false, lag: { ...lag, behindMs } },
        clock: 'wall',
      });
    expect(wall(2).engine.engineLimited).toBe(false);
    const slipped = wall(10);
    expect(slipped.engine.engineLimited).toBe(true);
    expect(slipped.engine.reasons[0]).toMatch(
      /fell behind its schedule by 10 ms, 8\.2% of the measured window/,
    );
    expect(slipped.valid).toBe(false);
  });

  it('falls back to the wall clock, saying why, when a success has no engine stamps', () => {
    const records = stamped();
    records[2] = { ...records[2]!, engine: null };
    const { clock, reason } = chooseClock(records, true);
    expect(clock).toBe('wall');
    expect(reason).toMatch(/1 successful request\(s\) came back without the engine's timestamps/);
    expect(chooseClock(stamped(), true)).toEqual({ clock: 'engine', reason: null });
    expect(chooseClock(stamped(), false).clock).toBe('wall');
    // A failure that never reached the engine has no stamps and leaves the engine window alone.
    const failed = [...stamped(), rec({ index: 4, sent: 0, fail: 'connection_reset' })];
    const r = aggregate(failed, {
      ...conc,
      engine: { ...sim, lag: null },
      clock: chooseClock(failed, true).clock,
    });
    expect(r.engine.clock).toBe('engine');
    expect(r.counts.failed).toBe(1);
    expect(r.timing.startMs).toBe(ORIGIN);
  });
});
