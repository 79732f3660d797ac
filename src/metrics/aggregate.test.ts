import { describe, expect, it } from 'vitest';
import { input, many } from '../../test/support/fixed-seq-len-point.ts';
import { WORKLOAD_KINDS } from '../schema/workload.ts';
import { aggregatorFor, notRunnable, WORKLOAD_CAPABILITIES, WorkloadNotRunnableError } from './aggregate.ts';
import { aggregatePoint } from './fixed-seq-len.ts';

describe('the workload capability table', () => {
  it('has an entry for every kind, with an aggregator or the reason it has none', () => {
    expect(Object.keys(WORKLOAD_CAPABILITIES).sort()).toEqual([...WORKLOAD_KINDS].sort());
    for (const kind of WORKLOAD_KINDS) {
      const c = WORKLOAD_CAPABILITIES[kind];
      expect(c.aggregate === null, kind).toBe(c.missing !== null);
    }
  });

  it('runs fixed-seq-len with its aggregator', () => {
    expect(notRunnable('fixed-seq-len')).toBeNull();
    expect(aggregatorFor({ kind: 'fixed-seq-len' })).toBe(aggregatePoint);
    const result = aggregatorFor(input([]).workload)(input(many(3)));
    expect(result.counts.completed).toBe(3);
  });

  it('does not run agentic-coding yet, in the words planning and the store have always used', () => {
    expect(notRunnable('agentic-coding')).toEqual({
      plan: 'agentic-coding rows need the AgentX trace replay, which infx sweep does not run yet',
      store: 'an agentic point: the store holds fixed-seq-len points only; not stored',
    });
    // No stand-in aggregator: asking for one is refused.
    expect(() => aggregatorFor({ kind: 'agentic-coding' })).toThrow(WorkloadNotRunnableError);
    expect(() => aggregatorFor({ kind: 'agentic-coding' })).toThrow(/AgentX trace replay/);
  });
});
