import type { AgenticFields } from '../../schema/agentic-fields.ts';
import type { RequestRecord } from '../../schema/request-record.ts';
import type { DriverContext, DriverRequest, DriverStep, PhaseDriver, PhaseName } from '../driver.ts';
import { DONE, WAIT } from '../driver.ts';
import { FINISHED, type ReplayCall, type ReplayScheduler, WAITING } from './replay-scheduler.ts';
import type { CallOutcome } from './replay-tree.ts';

/**
 * The replay scheduler as a PhaseDriver: one per phase over the same scheduler, so profiling resumes
 * from the state the warmup left. The compiler supplies each call's body from its trace position. WAIT
 * here may also mean "a timer": the client asks again at `wakeAtMs()` (a think time ends, the duration
 * ends, a grace ends) as well as after each completion (PhaseDriver.wakeAtMs, client/runner.ts); the
 * scheduler's clock must then be the client's (monotonic ms), or the caller converts. Each request carries
 * its own abort signal: `next()` first cuts the calls past the phase's grace (`cancelDue`) and aborts them.
 */

/** What the compiler gives for one call: the body to send, its input length as compiled, and its record fields. */
export interface CompiledCall {
  body: Buffer | readonly Buffer[];
  inputTokens: number;
  /** When it was due on the client's clock (monotonic ms); absent: when it was released. */
  dueAtMs?: number;
  agentic?: AgenticFields;
}
export type CallCompiler = (call: ReplayCall) => CompiledCall;

export interface ReplayPhaseDriver extends PhaseDriver {
  /** When to ask `next()` again if nothing completes before (scheduler clock, ms); null: only a completion can. */
  wakeAtMs(): number | null;
  /** Requests past the phase's grace: abort them; they are counted cancelled and need no `complete`. */
  cancelDue(): DriverRequest[];
  /** Aborts every request it handed out that has not finished (the run is cancelled). */
  abortAll(): void;
  /** The replay's view of a request it handed out (for the record's agentic fields). */
  callOf(request: DriverRequest): ReplayCall | undefined;
}

/** Body phrases of a context-length rejection (client-metrics §2.8), for servers the client does not classify. */
const OVERFLOW = /context length|maximum context|context_length_exceeded|prompt is too long/i;

export function outcomeOf(record: RequestRecord): CallOutcome {
  if (record.cancelled) return 'cancelled';
  const error = record.error;
  if (error === null) return record.ok ? 'ok' : 'error';
  if (error.category === 'context_overflow') return 'overflow';
  if (OVERFLOW.test(error.bodyExcerpt ?? '') || OVERFLOW.test(error.message)) return 'overflow';
  return 'error';
}

export function createReplayPhaseDriver(
  scheduler: ReplayScheduler,
  phase: PhaseName,
  ctx: DriverContext,
  compile: CallCompiler,
): ReplayPhaseDriver {
  const calls = new Map<number, { call: ReplayCall; request: DriverRequest; abort: AbortController }>();
  let started = false;
  /** The calls the scheduler cut at the grace's end, forgotten here (the client reports them cancelled). */
  const cutDue = () => {
    const cut = new Set(scheduler.cancelDue().map((c) => c.id));
    const out: { request: DriverRequest; abort: AbortController }[] = [];
    if (cut.size === 0) return out;
    for (const [index, entry] of calls)
      if (cut.has(entry.call.id)) {
        calls.delete(index);
        out.push(entry);
      }
    return out;
  };
  const start = () => {
    if (started) return;
    started = true;
    if (phase === 'warmup') scheduler.startWarmup();
    else scheduler.startBenchmark();
  };
  return {
    next(): DriverStep {
      start();
      for (const { abort } of cutDue()) abort.abort();
      const step = scheduler.next();
      if (step === FINISHED) return DONE;
      if (step === WAITING) return WAIT;
      const compiled = compile(step);
      const abort = new AbortController();
      const request: DriverRequest = {
        index: Atomics.add(ctx.dispatch, 0, 1),
        promptIndex: step.turnIndex,
        body: compiled.body,
        maxTokens: step.maxTokens,
        inputTokens: { target: compiled.inputTokens, client: compiled.inputTokens },
        headers: step.headers,
        // The scheduler releases a call only when it is due: a free lane sends it at once.
        arrivalOffsetMs: null,
        signal: abort.signal,
        ...(compiled.dueAtMs === undefined ? {} : { dueAtMs: compiled.dueAtMs }),
        ...(compiled.agentic === undefined ? {} : { agentic: compiled.agentic }),
      };
      calls.set(request.index, { call: step, request, abort });
      return request;
    },
    complete(request: DriverRequest, record: RequestRecord): void {
      const entry = calls.get(request.index);
      if (entry === undefined) return;
      calls.delete(request.index);
      scheduler.complete(entry.call.id, outcomeOf(record));
    },
    wakeAtMs: () => (started ? scheduler.wakeAt() : null),
    cancelDue: () =>
      cutDue().map((e) => {
        e.abort.abort();
        return e.request;
      }),
    abortAll(): void {
      for (const { abort } of calls.values()) abort.abort();
    },
    callOf: (request) => calls.get(request.index)?.call,
  };
}
