import { describe, expect, it } from 'vitest';
import { nowMs, Scheduler } from './clock.ts';

describe('Scheduler', () => {
  it('fires in deadline order (ties in insertion order), never before the deadline', async () => {
    const sched = new Scheduler();
    const t0 = nowMs();
    const fired: { id: string; late: number }[] = [];
    const add = (id: string, offset: number) =>
      sched.at(t0 + offset, () => fired.push({ id, late: nowMs() - (t0 + offset) }));
    add('c', 12);
    add('a', 3);
    add('b1', 8);
    add('b2', 8);
    add('past', -5);
    const cancelled = add('x', 6);
    cancelled.cancel();
    expect(sched.pending).toBe(5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fired.map((f) => f.id)).toEqual(['past', 'a', 'b1', 'b2', 'c']);
    for (const f of fired) expect(f.late).toBeGreaterThanOrEqual(0);
    expect(sched.pending).toBe(0);
  });

  it('clear() drops everything waiting', async () => {
    const sched = new Scheduler(0);
    let fired = 0;
    sched.at(nowMs() + 5, () => fired++);
    sched.at(nowMs() + 1, () => fired++);
    sched.clear();
    await new Promise((resolve) => setTimeout(resolve, 15));
    expect(fired).toBe(0);
  });
});
