import type { InferencexAgenticServerMetricsBlock } from '../schema/agentic-metrics.ts';
import type { PointResult } from '../schema/point-result.ts';
import type { RequestRecord } from '../schema/request-record.ts';
import type { Workload } from '../schema/workload.ts';
import type { FiguresClock } from './clock-view.ts';
import type { EngineFacts } from './engine-gate.ts';

/**
 * What every aggregator is given, whatever the workload's kind: the facts about the run and its request
 * records. Each kind's aggregator (metrics/aggregate.ts chooses it) turns them into that kind's result.
 */

/** The parts of a PointResult that are facts about the run, not computed from its records. */
export type PointMeta<W extends Workload> = Pick<
  PointResult,
  'tool' | 'createdAt' | 'seed' | 'target' | 'load' | 'gpus' | 'client'
> & { workload: W };

export interface PointInput<W extends Workload> extends PointMeta<W> {
  /**
   * Every record of the point, warmup and benchmark, in any order, with the client's wall-clock times
   * (ms from the clock origin) and, against a simulated engine, its own stamps.
   */
  records: readonly RequestRecord[];
  /** The engine behind the point, and how it kept to its schedule. */
  engine: EngineFacts;
  /** Which clock the figures are on (see clock-view.ts chooseClock). */
  clock: FiguresClock;
  /** Notes on the engine to carry into the result (e.g. why the engine clock was not used). */
  engineNotes?: readonly string[];
  /** Wall-clock time (Unix ms) at the records' monotonic clock origin. */
  clockOriginUnixMs: number;
  /** Largest failure rate that still passes the gate (the reference uses 0.05). */
  maxFailureRate: number;
  /** An agentic point: what the replay knows that its records do not say. */
  replay?: AgenticReplayFacts;
}

/** What the replay knows about the run that its records do not say. */
export interface AgenticReplayFacts {
  /**
   * The profiling phase on the client's clock (the records' own wall ms): its start, and the end of the
   * configured duration. Coverage is judged on that clock, whatever clock the figures are on.
   */
  profilingStartMs: number;
  profilingEndMs: number;
  /** Requests the replay could not dispatch on schedule. */
  creditDropCount: number;
  /** The live error gate stopped the run. */
  runCancelled: boolean;
  /** The error gate's threshold; the reference's 0.10 when absent. */
  failedRequestThreshold?: number;
  /** The server's cache metrics over the profiling phase (metrics/agentic/server-metrics.ts); null: none read. */
  server?: InferencexAgenticServerMetricsBlock | null;
}
