import type { RequestRecord } from '../schema/request-record.ts';
import type { DriverPhases } from '../workload/drivers.ts';
import type { FixedRequest } from '../workload/fixed-seq-len-driver.ts';
import { monotonicMs } from './clock.ts';
import type { ThreadHealth } from './health.ts';
import type { Phase } from './runner.ts';
import type { TransportConfig } from './transport-types.ts';

/**
 * What one point's load is asked to do and how a phase's records are collected: shared by load.ts (this
 * thread) and workers.ts (worker threads), which both fill a PhaseSink.
 */

/** One pre-built request of a fixed-seq-len workload. */
export type LoadRequest = FixedRequest;

export interface LoadOptions {
  transport: TransportConfig;
  /**
   * What warmup and the measured phase send (workload/drivers.ts). Arrival offsets a driver gives are
   * on the engine clock with lockstep (the engine holds each request until it is due).
   */
  phases: DriverPhases;
  concurrency: number;
  workers: number;
  /** Lockstep with a simulated engine that announced the engine-clock protocol (schema/sim-protocol.ts). */
  lockstep: boolean;
  signal: AbortSignal;
  onProgress?: (p: LoadProgress) => void;
  /** Awaited just before the measured phase starts and just after it ends (e.g. to read engine counters). */
  aroundMeasurement?: { before(): Promise<void>; after(): Promise<void> };
}

export interface LoadProgress {
  phase: Phase;
  done: number;
  failed: number;
  total: number;
  /** Output tokens reported by the server so far in this phase. */
  outputTokens: number;
  /** Since the phase started. */
  elapsedMs: number;
  /** Engine time the phase's finished requests span (engine clock), or null without engine stamps. */
  engineElapsedMs: number | null;
}

/** The engine-clock span of a phase's finished requests: first arrival to last token. */
export class EngineSpan {
  first = Number.POSITIVE_INFINITY;
  last = Number.NEGATIVE_INFINITY;
  add(r: RequestRecord): void {
    const e = r.engine;
    if (e === null) return;
    this.first = Math.min(this.first, e.arrivalMs);
    this.last = Math.max(this.last, e.lastTokenMs ?? e.arrivalMs);
  }
  merge(first: number, last: number): void {
    this.first = Math.min(this.first, first);
    this.last = Math.max(this.last, last);
  }
  get ms(): number | null {
    return this.last >= this.first ? this.last - this.first : null;
  }
}

/** Collects the records of one phase and reports progress. */
export class PhaseSink {
  readonly records: RequestRecord[] = [];
  readonly texts: string[] = [];
  readonly sendLagsMs: number[] = [];
  private doneCount = 0;
  private failed = 0;
  private outputTokens = 0;
  private readonly started = monotonicMs();
  readonly span = new EngineSpan();
  constructor(
    private readonly phase: Phase,
    private readonly total: number,
    private readonly onProgress?: (p: LoadProgress) => void,
  ) {}

  /** Records in dispatch order (threads and lanes finish in any order). */
  ordered(threads: ThreadHealth[]): PhaseOutput {
    const order = this.records
      .map((_, i) => i)
      .sort((a, b) => this.records[a]!.index - this.records[b]!.index);
    return {
      records: order.map((i) => this.records[i]!),
      texts: order.map((i) => this.texts[i]!),
      sendLagsMs: order.map((i) => this.sendLagsMs[i]!),
      threads,
    };
  }

  add(record: RequestRecord, text: string, sendLagMs: number) {
    this.records.push(record);
    this.texts.push(text);
    this.sendLagsMs.push(sendLagMs);
    this.span.add(record);
    this.note(record.ok ? 0 : 1, record.outputTokens.server ?? 0);
  }

  note(failed: number, outputTokens: number, done = 1) {
    this.failed += failed;
    this.outputTokens += outputTokens;
    this.doneCount += done;
    this.onProgress?.({
      phase: this.phase,
      done: this.doneCount,
      failed: this.failed,
      total: this.total,
      outputTokens: this.outputTokens,
      elapsedMs: monotonicMs() - this.started,
      engineElapsedMs: this.span.ms,
    });
  }
}

/** One phase's records in dispatch order, with the threads' health. */
export interface PhaseOutput {
  records: RequestRecord[];
  texts: string[];
  sendLagsMs: number[];
  threads: ThreadHealth[];
}
