import type { AgenticFields } from '../schema/agentic-fields.ts';
import type { RequestRecord } from '../schema/request-record.ts';

/**
 * The seam between a workload and the client. A driver runs one phase (warmup or the measured phase) on
 * one client thread: when a lane frees, the client asks it for the next request; it answers with a
 * request, with WAIT (the next one depends on a request still in flight on this thread) or with DONE
 * (the phase has nothing more for this thread). Every finished request is reported back with its record
 * and generated text, so turn N+1 of a session can be built from turn N's output.
 *
 * A driver object cannot cross to a worker thread, so the client is given a DriverSpec (structured-
 * cloneable; SharedArrayBuffers inside it are shared, not copied) and each thread builds its own driver
 * from it (drivers.ts). A session's requests must all come from one thread's driver: the factory is told
 * which thread it runs on and how many there are, and keeps its share of the sessions.
 */

export type PhaseName = 'warmup' | 'benchmark';

export interface DriverRequest {
  /**
   * Dispatch index in the phase, unique across threads (take it from DriverContext.dispatch): records
   * are ordered by it and the simulated engine's lockstep tag carries it.
   */
  index: number;
  /** Which prompt (or turn) of the workload this is, for the record. */
  promptIndex: number;
  /** One Buffer, or segments sent in order (shared prefixes are not copied per request). */
  body: Buffer | readonly Buffer[];
  maxTokens: number;
  /** The input length the workload drew, and the client's count of what is sent. */
  inputTokens: { target: number; client: number };
  /** Extra request headers (names in lower case), e.g. a session id; null for none. */
  headers: Readonly<Record<string, string>> | null;
  /**
   * When the request may go, in ms after the phase started (on the engine clock in lockstep), or null:
   * as soon as a lane is free. A wait for a free lane past this time counts as queue time.
   */
  arrivalOffsetMs: number | null;
  /**
   * When the request was due, in monotonic ms (the client's clock), for a driver that releases requests
   * only once due (the agentic replay): the record's `scheduledMs`, and the send lag counts from it.
   * Absent: from `arrivalOffsetMs`.
   */
  dueAtMs?: number;
  /** Aborts this request alone (the replay cancels requests past a grace); absent: only the run's end does. */
  signal?: AbortSignal;
  /** An AgentX replay request's place in its trace, copied into its record. */
  agentic?: AgenticFields;
}

export const WAIT = 'wait';
export const DONE = 'done';
export type DriverStep = DriverRequest | typeof WAIT | typeof DONE;

export interface PhaseDriver {
  /**
   * The next request for a free lane. WAIT while a request this driver handed out is in flight (the client
   * asks again after each completion on this thread) or until `wakeAtMs()`; DONE ends the lane.
   */
  next(): DriverStep;
  /**
   * With WAIT, when to ask again if no request completes first (a think time or a deadline ends), in
   * monotonic ms (`process.hrtime`, the client's clock); null or absent: only after a completion.
   */
  wakeAtMs?(): number | null;
  /** A request it handed out has finished (failed ones too). */
  complete(request: DriverRequest, record: RequestRecord, text: string): void;
}

/** What the client tells a driver factory on each thread. */
export interface DriverContext {
  phase: PhaseName;
  /** This thread (0-based) and how many run the phase. */
  thread: number;
  threads: number;
  /**
   * One cell shared by every thread of the phase (an Int32Array, on a SharedArrayBuffer in worker
   * mode), starting at 0: `Atomics.add(dispatch, 0, 1)` takes the next dispatch index, so the threads
   * together number (and, for a workload without sessions, order) requests as one thread would.
   */
  dispatch: Int32Array;
}

/** Fields every spec has; a kind adds its own (see drivers.ts for the union). */
export interface DriverSpecBase {
  kind: string;
  /** Requests in the phase when known in advance (lockstep and progress need it); null when not. */
  total: number | null;
  /**
   * No request waits on another, so a freed lane always sends at once. Lockstep with the simulated
   * engine needs it: the engine holds its clock while the client owes it a request.
   */
  independent: boolean;
}
