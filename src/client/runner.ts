import type { RequestRecord } from '../schema/request-record.ts';
import { formatLockstep, LOCKSTEP_HEADER } from '../schema/sim-protocol.ts';
import { DONE, type DriverRequest, type PhaseDriver, type PhaseName, WAIT } from '../workload/driver.ts';
import { monotonicMs } from './clock.ts';
import type { Outcome, Transport } from './transport.ts';
import { checkUsage } from './usage-check.ts';

/**
 * The load loop of one client thread: `slots` lanes, each asking the phase's driver for its next request
 * when it frees, waiting for the request's arrival time, sending it, recording what happened and telling
 * the driver. The driver decides what goes next (a pre-built prompt, or a session's next turn once the
 * previous one finished); the lanes and the transport know nothing of prompts or sessions.
 */

export type Phase = PhaseName;

/** What one thread needs to run one phase. */
export interface PhaseRun {
  phase: Phase;
  worker: number;
  slots: number;
  driver: PhaseDriver;
  /** Monotonic ms the phase started: a request's arrival offset counts from here. */
  startMs: number;
  /**
   * Lockstep with a simulated engine (schema/sim-protocol.ts): each request says which phase it belongs
   * to, so the engine's clock waits for it. Arrival offsets are then on the engine clock: a request goes
   * as soon as a lane is free, tagged with when it is due, and the engine holds it until then.
   */
  lockstep: { phase: string; conc: number; total: number } | null;
  clockOriginMs: number;
  signal: AbortSignal;
  /**
   * Called once per finished request, with the generated text (for the client-side token count) and
   * how late the client sent it (sent − max(arrival, lane free)).
   */
  onRecord(record: RequestRecord, text: string, sendLagMs: number): void;
}

export async function runPhase(run: PhaseRun, transport: Transport): Promise<void> {
  const lanes: Promise<void>[] = [];
  const thread = new ThreadState();
  for (let i = 0; i < run.slots; i++) lanes.push(lane(run, transport, thread));
  await Promise.all(lanes);
}

/** Requests in flight on this thread, and the lanes waiting for one of them to finish (or for a time). */
class ThreadState {
  inFlight = 0;
  private waiters = new Set<() => void>();
  /**
   * Resolves at the next completion on this thread, at `atMs` (monotonic ms) when the driver named a time,
   * or at the end of the run. With nothing in flight and no time to wait for, nothing could wake the lane.
   */
  wake(signal: AbortSignal, atMs: number | null): Promise<void> {
    if (this.inFlight === 0 && atMs === null)
      throw new Error(
        'the workload driver waits for a request, but none is in flight on this thread and it names no time to ask again',
      );
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      let timer: NodeJS.Timeout | null = null;
      const done = () => {
        if (timer !== null) clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      // Node's timers run on a coarser, cached clock and may fire a little before `atMs` on ours: wait on.
      const arm = (at: number) => {
        const left = at - monotonicMs();
        if (left <= 0) return done();
        timer = setTimeout(() => arm(at), Math.ceil(left));
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
      if (atMs !== null) arm(atMs);
    });
  }
  completed(): void {
    this.inFlight--;
    if (this.waiters.size === 0) return;
    for (const w of [...this.waiters]) w();
  }
}

async function lane(run: PhaseRun, transport: Transport, thread: ThreadState): Promise<void> {
  for (;;) {
    if (run.signal.aborted) return;
    const freeAt = monotonicMs();
    const req = run.driver.next();
    if (req === DONE) return;
    if (req === WAIT) {
      await thread.wake(run.signal, run.driver.wakeAtMs?.() ?? null);
      continue;
    }
    const lock = run.lockstep;
    const offset = req.arrivalOffsetMs;
    const arrival = lock || offset === null ? null : run.startMs + offset;
    thread.inFlight++;
    if (arrival !== null && arrival > freeAt) await sleepUntil(arrival, run.signal);
    // Closed loop (rate inf): a request is due when a lane frees. Open loop: when it arrives, so the
    // wait for a free lane counts as queue time (no coordinated omission).
    const scheduled = arrival ?? freeAt;
    const due = Math.max(scheduled, freeAt);
    const headers = lock
      ? {
          ...req.headers,
          [LOCKSTEP_HEADER]: formatLockstep({
            phase: lock.phase,
            conc: lock.conc,
            total: lock.total,
            index: req.index,
            atMs: offset,
          }),
        }
      : req.headers;
    const outcome = await transport.send(req.body, run.signal, headers, req.maxTokens);
    const record = toRecord(run, req, scheduled, outcome);
    const text = outcome.stream.text.join('');
    run.onRecord(record, text, outcome.sentMs - due);
    run.driver.complete(req, record, text);
    thread.completed();
  }
}

function sleepUntil(t: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wait = t - monotonicMs();
    if (wait <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(done, wait);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function toRecord(run: PhaseRun, req: DriverRequest, scheduled: number, o: Outcome): RequestRecord {
  const origin = run.clockOriginMs;
  // Microsecond resolution: finer digits are clock noise and would triple the size of requests.jsonl.
  const rel = (t: number | null) => (t === null ? null : us(t - origin));
  const s = o.stream;
  const tokens = req.inputTokens;
  const requested = req.maxTokens;
  const usage = checkUsage(s.usage, {
    maxTokens: requested,
    clientPromptTokens: tokens.client,
    tokenChunks: s.contentChunks + s.reasoningChunks,
  });
  return {
    index: req.index,
    phase: run.phase,
    promptIndex: req.promptIndex,
    worker: run.worker,
    scheduledMs: us(scheduled - origin),
    sentMs: us(o.sentMs - origin),
    firstByteMs: rel(o.firstByteMs),
    firstTokenMs: rel(s.firstTokenMs),
    lastTokenMs: rel(s.lastTokenMs),
    doneMs: us(o.doneMs - origin),
    chunkGapsMs: s.chunkGapsMs.map(us),
    contentChunks: s.contentChunks,
    reasoningChunks: s.reasoningChunks,
    inputTokens: { target: tokens.target, client: tokens.client, server: usage.promptTokens },
    outputTokens: { requested, client: null, server: usage.completionTokens },
    usageFlag: usage.flag,
    ok: o.error === null,
    error: o.error,
    cancelled: o.cancelled,
    engine: engineStamps(s.engine),
  };
}

function engineStamps(e: Outcome['stream']['engine']): RequestRecord['engine'] {
  if (e === null || e.arrivalMs === null) return null;
  return {
    arrivalMs: us(e.arrivalMs),
    scheduledMs: e.scheduledMs === null ? null : us(e.scheduledMs),
    firstTokenMs: e.firstTokenMs === null ? null : us(e.firstTokenMs),
    lastTokenMs: e.lastTokenMs === null ? null : us(e.lastTokenMs),
    chunkGapsMs: e.chunkGapsMs.map(us),
  };
}

function us(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
