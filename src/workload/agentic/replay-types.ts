import type { AffinityHeader } from './replay-ids.ts';
import type { PlannedCall } from './replay-plan.ts';

/** The agentic replay scheduler's contract: its options, the calls it releases, its counts and steps. */

export type ReplayPhase = 'warmup' | 'benchmark';

export interface ReplayOptions {
  /** `--concurrency`: trajectory trees in play at once. */
  lanes: number;
  seed: number;
  durationS: number;
  /** In-flight requests may finish this long after the duration (`--benchmark-grace-period`). */
  benchmarkGraceS?: number;
  /** One-token requests each lane advances by after its t* turn (`--warmup-requests-per-lane`, 10; agentx-fast 1). */
  warmupRequestsPerLane?: number;
  warmupGraceS?: number;
  /** t* is drawn uniformly in this fraction of each initial trace's root turns. */
  startRatio?: readonly [number, number];
  /** `--system-idle-gap-cap-seconds`: with nothing in flight anywhere, the next request starts within it. */
  systemIdleGapCapS?: number;
  /** `--trace-idle-gap-cap-seconds`: per tree, and the plan's time warp. */
  traceIdleGapCapS?: number;
  affinityHeaders?: readonly AffinityHeader[];
  /** Lanes this scheduler plays (a worker thread's share); default all. */
  laneIds?: readonly number[];
  /**
   * Told of each call that got a due time (trace index, the call, when), and at each dispatch of the calls
   * its completion may release (with the earliest they could be due): their bodies can be made ahead.
   */
  onTimer?: (trace: number, call: PlannedCall, dueAt: number) => void;
}

export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
}

/** One call to send: its trace position (for the compiler's body) and everything the request carries. */
export interface ReplayCall {
  id: number;
  phase: ReplayPhase;
  lane: number;
  recyclePass: number;
  /** The source's index of its trace. */
  trace: number;
  traceId: string;
  conversationId: string;
  correlationId: string;
  rootCorrelationId: string;
  parentCorrelationId: string | null;
  requestId: string;
  outer: number;
  inner: number;
  turnIndex: number;
  branch: { kind: 'root' | 'subagent'; agentId: string | null; background: boolean };
  /** The recorded output, or 1 for the warmup's advance requests. */
  maxTokens: number;
  /** `prime`: the turn before t*, with its full prefix; `advance`: a one-token warmup request. */
  warmup: 'prime' | 'advance' | null;
  dueAtMs: number;
  sentAtMs: number;
  headers: Record<string, string>;
}

export interface PhaseCounts {
  sent: number;
  ok: number;
  errors: number;
  overflows: number;
  /** Cut by the scheduler at a grace's end (or by the client): not errors, not in the metrics. */
  cancelled: number;
}

export interface ReplayCounts {
  warmup: PhaseCounts;
  benchmark: PhaseCounts;
  treesStarted: number;
  treesDrained: number;
  /** Conversations (root or subagent) ended by a context overflow. */
  sessionsOverflowed: number;
  subagentsDropped: number;
}

export const WAITING = 'wait';
export const FINISHED = 'done';
export type ReplayStep = ReplayCall | typeof WAITING | typeof FINISHED;
