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
  const thread = new ThreadState(run.signal);
  transport.onRead?.((t) => thread.poll(t));
  for (let i = 0; i < run.slots; i++) lanes.push(lane(run, transport, thread));
  try {
    await Promise.all(lanes);
  } finally {
    transport.onRead?.(null);
    thread.close();
  }
}

/**
 * Requests in flight on this thread, and the lanes waiting for one of them to finish or for a time. A
 * completion or a due time wakes one waiting lane, not all: a lane that then gets a request wakes the
 * next (`passOn`), so as many lanes wake as there are requests to send. Waking every idle lane at each
 * completion would cost lanes × (the driver's `next()`) per completion: at 256 agentic users with eight
 * request slots each, most of the client's CPU.
 */
class ThreadState {
  inFlight = 0;
  private readonly waiters: (() => void)[] = [];
  /**
   * Each request in flight has its own signal, aborted with the run's: one listener on the run's signal,
   * not one per request or per wait (EventTarget checks each add against every listener it holds).
   */
  private readonly live = new Set<AbortController>();
  private readonly onAbort = () => {
    for (const w of this.waiters.splice(0)) w();
    for (const c of this.live) c.abort();
    this.live.clear();
  };

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** A signal for one request: aborted with the run, or with the request's own (`own`, from the driver). */
  requestSignal(own: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
    const c = new AbortController();
    if (this.signal.aborted || own?.aborted) c.abort();
    else this.live.add(c);
    const abort = () => c.abort();
    own?.addEventListener('abort', abort, { once: true });
    return {
      signal: c.signal,
      release: () => {
        this.live.delete(c);
        own?.removeEventListener('abort', abort);
      },
    };
  }

  /**
   * Due times the waiting lanes named, and the one timer armed for the earliest. A set: waiting lanes
   * mostly name the same time (the driver's earliest timer).
   */
  private readonly dueTimes = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;

  /**
   * Resolves when this lane is woken: by a completion on this thread, at `atMs` (monotonic ms) when the
   * driver named a time, or at the end of the run. With nothing in flight and no time to wait for, nothing
   * could wake the lane.
   */
  wake(atMs: number | null): Promise<void> {
    if (this.inFlight === 0 && atMs === null)
      throw new Error(
        'the workload driver waits for a request, but none is in flight on this thread and it names no time to ask again',
      );
    return new Promise((resolve) => {
      if (this.signal.aborted) return resolve();
      this.waiters.push(resolve);
      if (atMs !== null) {
        this.dueTimes.add(atMs);
        this.arm();
      }
    });
  }

  /** A woken lane got a request: the next waiting lane may have one too. */
  passOn(): void {
    this.waiters.shift()?.();
  }

  completed(): void {
    this.inFlight--;
    this.passOn();
  }

  // Node's timers run on a coarser, cached clock and may fire a little before the time on ours: wait on.
  private arm(): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const t of this.dueTimes) if (t < earliest) earliest = t;
    if (earliest >= this.timerAt) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerAt = earliest;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(earliest - monotonicMs())));
  }

  /**
   * A socket read at `t` was handled: a due time reached meanwhile fires now, between two reads, instead
   * of waiting for the timer phase after the whole burst of reads the event loop is handling.
   */
  poll(t: number): void {
    if (this.timer !== null && t >= this.timerAt) {
      clearTimeout(this.timer);
      this.fire();
    }
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = monotonicMs();
    let due = false;
    for (const t of this.dueTimes)
      if (t <= now) {
        this.dueTimes.delete(t);
        due = true;
      }
    if (due) this.passOn();
    if (this.dueTimes.size > 0) this.arm();
  }

  /** The run is over: no timer may keep the process alive. */
  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

async function lane(run: PhaseRun, transport: Transport, thread: ThreadState): Promise<void> {
  for (;;) {
    if (run.signal.aborted) return;
    const freeAt = monotonicMs();
    const req = run.driver.next();
    if (req === DONE) {
      // A lane waiting for a time far off would learn only then that the phase is over.
      thread.passOn();
      return;
    }
    if (req === WAIT) {
      await thread.wake(run.driver.wakeAtMs?.() ?? null);
      continue;
    }
    thread.passOn();
    const lock = run.lockstep;
    const offset = req.arrivalOffsetMs;
    const arrival = req.dueAtMs ?? (lock || offset === null ? null : run.startMs + offset);
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
    const signal = thread.requestSignal(req.signal);
    const outcome = await transport
      .send(req.body, signal.signal, headers, req.maxTokens)
      .finally(signal.release);
    const record = toRecord(run, req, scheduled, outcome);
    const text = outcome.stream.text.toString();
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
    ...(req.agentic
      ? { agentic: { ...req.agentic, cancelledAtMs: o.cancelled ? us(o.doneMs - origin) : null } }
      : {}),
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
