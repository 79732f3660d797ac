import { describe, expect, it } from 'vitest';
import { powerOfTwo, randomPolicy, roundRobin } from './basic.ts';
import type { Decision, RouteRequest, WorkerView } from './policy.ts';
import type { Rng } from './rng.ts';
import { seededRng } from './rng.ts';

const REQ: RouteRequest = { headers: {}, body: null, rawBody: '', text: '' };

function pool(spec: string): WorkerView[] {
  // "h2 u0 h1": healthy with load 2, unhealthy with load 0, healthy with load 1
  return spec
    .split(' ')
    .map((s, i) => ({ url: `http://w${i}`, healthy: s[0] === 'h', load: Number(s.slice(1)) }));
}

/** Draws the given values in turn. */
function scripted(...draws: number[]): Rng & { left: () => number } {
  let i = 0;
  return {
    next: () => {
      const d = draws[i++];
      if (d === undefined) throw new Error('no draw left');
      return d;
    },
    left: () => draws.length - i,
  };
}

const index = (d: Decision) => (d.kind === 'worker' ? d.index : d.reason);

describe('round robin', () => {
  it('takes the counter modulo the healthy workers, skipping unhealthy ones', () => {
    const p = roundRobin();
    const ws = pool('h0 u0 h0 h0');
    // healthy = [0, 2, 3]: counter 0, 1, 2, 3, 4 → 0, 2, 3, 0, 2
    expect([1, 2, 3, 4, 5].map(() => index(p.select(REQ, ws)))).toEqual([0, 2, 3, 0, 2]);
    // worker 1 recovers: healthy = [0, 1, 2, 3], counter 5 → 5 % 4 = 1, then 2, 3, 0
    ws[1] = { ...ws[1]!, healthy: true };
    expect([1, 2, 3, 4].map(() => index(p.select(REQ, ws)))).toEqual([1, 2, 3, 0]);
  });

  it('says why there is no worker', () => {
    expect(roundRobin().select(REQ, [])).toMatchObject({ kind: 'none', reason: 'no-workers' });
    expect(roundRobin().select(REQ, pool('u0 u0'))).toMatchObject({
      kind: 'none',
      reason: 'no-healthy-worker',
    });
  });
});

describe('random', () => {
  it('maps a draw onto the healthy workers only', () => {
    const ws = pool('u0 h0 u0 h0 h0');
    const p = randomPolicy(scripted(0, 0.34, 0.67, 0.999));
    // healthy = [1, 3, 4]: floor(d × 3) = 0, 1, 2, 2
    expect([1, 2, 3, 4].map(() => index(p.select(REQ, ws)))).toEqual([1, 3, 4, 4]);
  });

  it('replays from its seed', () => {
    const ws = pool('h0 h0 h0 h0 h0');
    const run = () => {
      const p = randomPolicy(seededRng(7));
      return Array.from({ length: 20 }, () => index(p.select(REQ, ws)));
    };
    expect(run()).toEqual(run());
    expect(new Set(run()).size).toBeGreaterThan(1);
  });
});

describe('power of two', () => {
  it('draws two distinct healthy workers and takes the lower load; a tie goes to the first drawn', () => {
    // healthy = [0, 2, 3] (worker 1 unhealthy). Draws: a = floor(d1 × 3), b = floor(d2 × 2), b += 1 if b ≥ a.
    const tie = pool('h5 u0 h5 h5');
    // a = 0, b = 0 → 1: workers 0 and 2, loads 5 and 5 → tie → the first, 0
    expect(index(powerOfTwo(scripted(0, 0)).select(REQ, tie))).toBe(0);
    // a = 2, b = 0: workers 3 and 0 → tie → 3
    expect(index(powerOfTwo(scripted(0.9, 0)).select(REQ, tie))).toBe(3);
    // a = 1, b = 1 → 2: workers 2 and 3 → tie → 2
    expect(index(powerOfTwo(scripted(0.5, 0.5)).select(REQ, tie))).toBe(2);

    const uneven = pool('h5 u0 h4 h6');
    // a = 0, b = 1 → 2: workers 0 (5) and 3 (6) → 0
    expect(index(powerOfTwo(scripted(0, 0.5)).select(REQ, uneven))).toBe(0);
    // a = 2, b = 0: workers 3 (6) and 0 (5) → 0, the second drawn, lower
    expect(index(powerOfTwo(scripted(0.9, 0)).select(REQ, uneven))).toBe(0);
    // a = 1, b = 0: workers 2 (4) and 0 (5) → 2
    expect(index(powerOfTwo(scripted(0.5, 0)).select(REQ, uneven))).toBe(2);
  });

  it('never draws the same worker twice, and takes a lone healthy worker without drawing', () => {
    // Two distinct draws out of two always include the idle worker; drawing one worker twice would not.
    const p = powerOfTwo(seededRng(3));
    const busy = pool('h9 h0');
    expect(Array.from({ length: 100 }, () => index(p.select(REQ, busy)))).toEqual(Array(100).fill(1));
    const ws = pool('h0 h0');
    const lone = scripted();
    expect(index(powerOfTwo(lone).select(REQ, pool('u0 h9 u0')))).toBe(1);
    expect(lone.left()).toBe(0);
    // two healthy, equal load: the first drawn wins whichever it is
    expect(index(powerOfTwo(scripted(0.7, 0.2)).select(REQ, ws))).toBe(1);
    expect(index(powerOfTwo(scripted(0.2, 0.7)).select(REQ, ws))).toBe(0);
  });
});
