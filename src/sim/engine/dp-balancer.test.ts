import { describe, expect, it } from 'vitest';
import { DpBalancer } from './dp-balancer.ts';

describe("TensorRT-LLM's attention-DP balancer", () => {
  it('holds until every rank has a prompt, or the counter reaches the time-out, or nothing decodes', () => {
    const b = new DpBalancer({ ranks: 2, timeoutSteps: 3 }, 0);
    expect(b.open(true)).toBe(false); // nothing waits: the counter runs anyway
    b.queued(0);
    expect(b.open(true)).toBe(false);
    expect(b.open(true)).toBe(false);
    expect(b.open(true)).toBe(true); // held 3 steps: the time-out
    expect(b.heldSteps).toBe(0);
    expect(b.open(true)).toBe(false);
    b.queued(1); // every rank has one
    expect(b.open(true)).toBe(true);
    b.left(0);
    b.left(1);
    expect(b.open(true)).toBe(false);
    expect(b.open(false)).toBe(true); // no rank decodes: at once
  });

  it('skips steps as that many held steps would leave the counter', () => {
    for (const start of [0, 1, 5, 7])
      for (const steps of [0, 1, 3, 8, 9, 17, 100]) {
        const a = new DpBalancer({ ranks: 4, timeoutSteps: 8 }, 0);
        const b = new DpBalancer({ ranks: 4, timeoutSteps: 8 }, 0);
        for (let i = 0; i < start; i++) {
          a.open(true);
          b.open(true);
        }
        for (let i = 0; i < steps; i++) a.open(true);
        b.skip(steps);
        expect(b.heldSteps, `from ${start}, ${steps} steps`).toBe(a.heldSteps);
      }
    const covered = new DpBalancer({ ranks: 1, timeoutSteps: 8 }, 0);
    covered.queued(0);
    covered.skip(5);
    expect(covered.heldSteps).toBe(0);
  });

  it('draws ranks uniformly and the same way for the same seed', () => {
    const draw = (seed: number) => {
      const b = new DpBalancer({ ranks: 8, timeoutSteps: 60 }, seed);
      return Array.from({ length: 8000 }, () => b.rankOf());
    };
    const ranks = draw(3);
    expect(draw(3)).toEqual(ranks);
    const counts = new Array(8).fill(0);
    for (const r of ranks) counts[r]++;
    for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(120);
    expect(() => new DpBalancer({ ranks: 0, timeoutSteps: 60 }, 0)).toThrow(/ranks/);
  });
});
