import { describe, expect, it } from 'vitest';
import { SimEngine, type StepTimer } from './engine.ts';
import { Pacer } from './pacer.ts';

/** The pacer on an injected clock: simulated time is event-driven, holds stop it, a late host slips it. */

const timer: StepTimer = { stepTimeMs: (entries) => 10 + entries.length };

function fakeClock() {
  const c = {
    wall: 1000,
    /** Extra wall ms every sleep costs (a busy host wakes up late). */
    lateBy: 0,
    now: () => c.wall,
    sleep: async (ms: number) => {
      c.wall += ms + c.lateBy;
      await new Promise((r) => setImmediate(r));
    },
  };
  return c;
}

function tokenTimes(engine: SimEngine): Map<string, number[]> {
  const times = new Map<string, number[]>();
  engine.hooks = {
    onToken: (id, _n, t) => times.set(id, [...(times.get(id) ?? []), t]),
  };
  return times;
}

async function runFor(pacer: Pacer, engine: SimEngine, stop: AbortController, until: () => boolean) {
  const running = pacer.run(engine);
  for (let i = 0; i < 10_000 && !until(); i++) await new Promise((r) => setImmediate(r));
  stop.abort();
  await running;
}

describe('Pacer', () => {
  it('gives the same simulated token times however late the host wakes up', async () => {
    const results: number[][] = [];
    for (const lateBy of [0, 7]) {
      const clock = fakeClock();
      clock.lateBy = lateBy;
      const engine = new SimEngine({ timer, kvBlocks: 64 });
      const times = tokenTimes(engine);
      const stop = new AbortController();
      const pacer = new Pacer({
        timeScale: 10,
        signal: stop.signal,
        now: clock.now,
        sleep: clock.sleep,
        minSleepMs: 0,
      });
      engine.attachClock(() => pacer.virtualNow());
      engine.submit({ id: 'a', promptTokens: 20, maxTokens: 6, ignoreEos: true });
      engine.attachClock(null);
      await runFor(pacer, engine, stop, () => (times.get('a')?.length ?? 0) >= 6);
      results.push(times.get('a')!);
      if (lateBy > 0) {
        expect(pacer.stats.missedDeadlines).toBeGreaterThan(0);
        expect(pacer.stats.behindMs).toBeGreaterThan(0);
      } else expect(pacer.stats.behindMs).toBe(0);
    }
    expect(results[1]).toEqual(results[0]);
    // Each step lasts 10 + 1 simulated ms, back to back from the arrival.
    const t = results[0]!;
    for (let i = 1; i < t.length; i++) expect(t[i]! - t[i - 1]!).toBeCloseTo(11, 9);
  });

  it('a hold stops simulated time; release resumes where it stopped', () => {
    const clock = fakeClock();
    const pacer = new Pacer({ timeScale: 5, now: clock.now, sleep: clock.sleep });
    clock.wall += 10;
    expect(pacer.virtualNow()).toBeCloseTo(50, 9);
    pacer.hold();
    clock.wall += 100;
    expect(pacer.virtualNow()).toBeCloseTo(50, 9);
    pacer.hold();
    pacer.release();
    clock.wall += 100;
    expect(pacer.virtualNow()).toBeCloseTo(50, 9);
    pacer.release();
    expect(pacer.virtualNow()).toBeCloseTo(50, 9);
    clock.wall += 2;
    expect(pacer.virtualNow()).toBeCloseTo(60, 9);
  });

  it('fires timed events at their simulated time, in order, and never in the past', async () => {
    const clock = fakeClock();
    const stop = new AbortController();
    const pacer = new Pacer({
      timeScale: 2,
      signal: stop.signal,
      now: clock.now,
      sleep: clock.sleep,
      minSleepMs: 0,
    });
    const fired: [string, number, number][] = [];
    const engine = new SimEngine({ timer, kvBlocks: 64 });
    pacer.schedule(30, (t) => fired.push(['b', t, pacer.virtualNow()]));
    pacer.schedule(10, (t) => fired.push(['a', t, pacer.virtualNow()]));
    clock.wall += 50; // 100 simulated ms later: a schedule in the past fires now, not back in time
    pacer.schedule(20, (t) => fired.push(['c', t, pacer.virtualNow()]));
    await runFor(pacer, engine, stop, () => fired.length === 3);
    expect(fired.map((f) => f[0])).toEqual(['a', 'b', 'c']);
    expect(fired[0]![1]).toBe(10);
    expect(fired[1]![1]).toBe(30);
    expect(fired[2]![1]).toBeCloseTo(100, 9);
    for (const [, t, now] of fired) expect(now).toBe(t);
  });

  it('a hold that outlasts the lockstep timeout is broken and counted', async () => {
    const clock = fakeClock();
    const stop = new AbortController();
    let timeouts = 0;
    const pacer = new Pacer({
      timeScale: 1,
      signal: stop.signal,
      now: clock.now,
      sleep: clock.sleep,
      lockstepTimeoutMs: 500,
      onLockstepTimeout: () => timeouts++,
    });
    const engine = new SimEngine({ timer, kvBlocks: 64 });
    const times = tokenTimes(engine);
    engine.attachClock(() => pacer.virtualNow());
    engine.submit({ id: 'a', promptTokens: 20, maxTokens: 2, ignoreEos: true });
    engine.attachClock(null);
    pacer.hold();
    await runFor(pacer, engine, stop, () => (times.get('a')?.length ?? 0) >= 2);
    expect(timeouts).toBe(1);
    expect(pacer.stats.holdTimeouts).toBe(1);
    expect(pacer.held).toBe(false);
  });
});
