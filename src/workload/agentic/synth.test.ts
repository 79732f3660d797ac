import { describe, expect, it } from 'vitest';
import {
  type AgenticTrace,
  AgenticTraceSchema,
  isSubagent,
  type TraceApiCall,
} from '../../schema/agentic-trace.ts';
import { traceContext } from './max-context.ts';
import { TraceStatsAccumulator } from './stats.ts';
import { synthTrace, writeSynthCorpus } from './synth.ts';

const corpus = (traces: number, seed: number, maxContext?: number) => {
  const lines: string[] = [];
  writeSynthCorpus({ traces, seed, maxContext }, (l) => lines.push(l));
  return lines.join('');
};

const rootCalls = (t: AgenticTrace) => t.requests.filter((e): e is TraceApiCall => !isSubagent(e));
const extendsPrefix = (prev: number[], next: number[]) => prev.every((id, i) => next[i] === id);

describe('trace synth', () => {
  it('gives the same bytes for the same seed, other bytes for another', () => {
    const a = corpus(3, 7, 256_000);
    expect(corpus(3, 7, 256_000)).toBe(a);
    expect(corpus(3, 8, 256_000)).not.toBe(a);
    expect(a.split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('writes lines the trace schema reads, every call within the cap', () => {
    for (const line of corpus(4, 1, 256_000).trim().split('\n')) {
      const trace = AgenticTraceSchema.parse(JSON.parse(line));
      expect(traceContext(trace)).toBeLessThanOrEqual(256_000);
      for (const e of trace.requests)
        for (const c of isSubagent(e) ? e.requests : [e]) expect(c.in).toBe(c.hash_ids.length * 64);
    }
  });

  it('has preambles, compactions, subagents and never more than 5 subagents running at once', () => {
    let preambles = 0;
    let compactions = 0;
    let subagents = 0;
    for (let i = 0; i < 30; i++) {
      const trace = synthTrace(3, i, 256_000);
      const roots = rootCalls(trace);
      const ids = new Set(
        trace.requests.flatMap((e) => (isSubagent(e) ? e.requests : [e]).flatMap((c) => c.hash_ids)),
      );
      const first = roots[0] as TraceApiCall;
      // A preamble: the first call, its blocks its own, at most 64 tokens out.
      const others = new Set(
        trace.requests.slice(1).flatMap((e) => (isSubagent(e) ? e.requests : [e]).flatMap((c) => c.hash_ids)),
      );
      if (first.out <= 64 && first.hash_ids.every((id) => !others.has(id))) preambles++;
      const main = roots.slice(first.out <= 64 ? 1 : 0);
      for (let k = 1; k < main.length; k++)
        if (!extendsPrefix((main[k - 1] as TraceApiCall).hash_ids, (main[k] as TraceApiCall).hash_ids))
          compactions++;
      expect(ids.size).toBeGreaterThan(0);
      const spans = trace.requests.filter(isSubagent).map((s) => {
        const end = Math.max(...s.requests.map((c) => c.t + (c.api_time ?? 0)));
        return [s.t, end] as const;
      });
      subagents += spans.length;
      for (const [start] of spans)
        expect(spans.filter(([s, e]) => s <= start && start < e).length).toBeLessThanOrEqual(5);
    }
    expect(preambles).toBeGreaterThan(15);
    expect(compactions).toBeGreaterThan(0);
    expect(subagents).toBeGreaterThan(30);
  });

  it('matches the published shape on average: ≈252 calls and ≈145 top-level turns a trace', () => {
    // 393 traces, ≈99k calls, ≈57k top-level turns (addendum §1.13); 60 traces give the means within 25%.
    const acc = new TraceStatsAccumulator();
    for (let i = 0; i < 60; i++) acc.add(synthTrace(42, i));
    const s = acc.result();
    expect(s.requests / s.traces).toBeGreaterThan(252 * 0.75);
    expect(s.requests / s.traces).toBeLessThan(252 * 1.25);
    expect(s.topLevelTurns / s.traces).toBeGreaterThan(145 * 0.75);
    expect(s.topLevelTurns / s.traces).toBeLessThan(145 * 1.25);
    expect(s.maxContext).toBeLessThanOrEqual(1_048_576);
  });

  it('refuses a cap too small for its shape', () => {
    expect(() => synthTrace(1, 0, 1000)).toThrow(/at least 65536/);
  });
});
