import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import { planTrace, type TreePlan } from './replay-plan.ts';

/**
 * Where the scheduler's traces come from: a corpus too big to plan whole is planned a trace at a time,
 * when a lane first needs it. The trace order is a seeded permutation of `0 … count − 1`; a trace that
 * plans to null (past the corpus's end: `count` may be an upper bound) or to a plan without root turns
 * is skipped, as if the corpus did not hold it.
 */
export interface TraceSource {
  readonly count: number;
  /** Trace i's plan; a non-null answer is held (by a lane) until `release(i)`. */
  plan(i: number): TreePlan | null;
  /** Whether `plan(i)` answers now without reading or compiling; the warmup's lanes wait for it. Absent: always. */
  ready?(i: number): boolean;
  release?(i: number): void;
}

/** The traces of an array, planned at once: a trace without root turns is left out. */
export function arrayTraceSource(
  traces: readonly AgenticTrace[],
  opts: { traceIdleGapCapS?: number } = {},
): TraceSource {
  const all = traces.map((t) => planTrace(t, opts));
  // A trace whose subagents all precede its first root turn has nothing the replay can play.
  const plans = all.filter((p) => p.root.length > 0);
  return { count: plans.length, plan: (i) => plans[i] ?? null };
}
