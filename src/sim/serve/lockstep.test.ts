import { describe, expect, it } from 'vitest';
import type { LockstepTag } from '../../schema/sim-protocol.ts';
import { formatLockstep, parseLockstep } from '../../schema/sim-protocol.ts';
import { LockstepTracker } from './lockstep.ts';

function clock() {
  const c = {
    holds: 0,
    transitions: [] as string[],
    v: 100,
    hold: () => {
      c.holds++;
      c.transitions.push('hold');
    },
    release: () => {
      c.holds--;
      c.transitions.push('release');
    },
    virtualNow: () => c.v,
  };
  return c;
}

const tag = (index: number, over: Partial<LockstepTag> = {}): LockstepTag => ({
  phase: 'p1',
  conc: 2,
  total: 4,
  index,
  atMs: null,
  ...over,
});

describe('LockstepTracker', () => {
  it('holds the clock while the client owes requests, and not once the phase has all it will send', () => {
    const c = clock();
    const t = new LockstepTracker(c);
    expect(t.arrive(tag(0))).toBe(100); // the phase's origin
    expect(t.owed()).toBe(1);
    expect(c.holds).toBe(1);
    c.v = 150; // held clocks do not move, but the origin stays the first arrival's time either way
    expect(t.arrive(tag(1))).toBe(100);
    expect(t.owed()).toBe(0);
    expect(c.holds).toBe(0);
    t.leave(tag(0)); // one finished: its replacement is owed
    expect(t.owed()).toBe(1);
    t.arrive(tag(2));
    t.leave(tag(1));
    t.arrive(tag(3));
    expect(t.owed()).toBe(0);
    // All four arrived: finishing the last ones owes nothing more.
    t.leave(tag(2));
    expect(t.owed()).toBe(0);
    t.leave(tag(3));
    expect(c.holds).toBe(0);
    expect(c.transitions).toEqual(['hold', 'release', 'hold', 'release', 'hold', 'release']);
    expect(t.stats.waits).toBe(3);
    // The phase ended: a straggler with its id is served outside lockstep.
    expect(t.arrive(tag(0))).toBeNull();
    expect(c.holds).toBe(0);
  });

  it('sums what every phase owes; abandoning releases the clock', () => {
    const c = clock();
    const t = new LockstepTracker(c);
    t.arrive(tag(0, { phase: 'a', conc: 3, total: 10 }));
    t.arrive(tag(0, { phase: 'b', conc: 2, total: 2 }));
    expect(t.owed()).toBe(3);
    expect(t.abandonOwing().sort()).toEqual(['a', 'b']);
    expect(t.owed()).toBe(0);
    expect(c.holds).toBe(0);
    expect(t.stats.abandoned).toBe(2);
  });
});

describe('lockstep header', () => {
  it('round-trips and rejects what it cannot use', () => {
    const t = { phase: 'x-1', conc: 8, total: 80, index: 3, atMs: 12.5 };
    expect(parseLockstep(formatLockstep(t))).toEqual(t);
    expect(parseLockstep(formatLockstep({ ...t, atMs: null }))).toEqual({ ...t, atMs: null });
    expect(parseLockstep('phase=x;conc=0;total=1;index=0')).toMatch(/conc and total must be integers >= 1/);
    expect(parseLockstep('phase=x;conc=1;total=2;index=2')).toMatch(/index 2 is not below total 2/);
    expect(parseLockstep('phase=x;conc=1;total=2;index=0;at=-1')).toMatch(/at must be/);
    expect(parseLockstep('garbage')).toMatch(/not key=value/);
    expect(parseLockstep('conc=1;total=2;index=0')).toMatch(/phase must be/);
  });
});
