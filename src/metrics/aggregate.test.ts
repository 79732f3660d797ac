import { describe, expect, it } from 'vitest';
import { input, many } from '../../test/support/fixed-seq-len-point.ts';
import { type AgenticCodingWorkload, WORKLOAD_KINDS } from '../schema/workload.ts';

const AGENTIC_WORKLOAD: AgenticCodingWorkload = {
  kind: 'agentic-coding',
  traces: { name: 'hand', files: [{ path: 'traces.jsonl', sha256: '0'.repeat(64) }] },
  durationS: 60,
  warmup: { startMinRatio: 0.25, startMaxRatio: 0.75, requestsPerLane: 1, graceS: 60 },
  maxContextTokens: null,
  fast: false,
  tokenizer: { kind: 'builtin', name: 'o200k_base', path: null },
};

import { aggregateAgenticPoint } from './agentic/point.ts';
import { aggregatorFor, notRunnable, WORKLOAD_CAPABILITIES } from './aggregate.ts';
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

  it('runs agentic-coding with the AgentX aggregator, which needs the replay facts', () => {
    expect(notRunnable('agentic-coding')).toBeNull();
    expect(aggregatorFor({ kind: 'agentic-coding' })).toBe(aggregateAgenticPoint);
    const fixed = input([]);
    const agentic = { ...fixed, workload: AGENTIC_WORKLOAD };
    expect(() => aggregateAgenticPoint(agentic)).toThrow(/replay facts/);
  });
});
