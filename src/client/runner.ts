import type { RequestRecord } from '../schema/request-record.ts';
import { formatLockstep, LOCKSTEP_HEADER } from '../schema/sim-protocol.ts';
import { monotonicMs } from './clock.ts';
import type { Outcome, Transport } from './transport.ts';
import { checkUsage } from './usage-check.ts';

/**
 * The load loop of one client thread: `slots` lanes, each claiming the next request of the phase,
 * waiting for its arrival time, sending it and recording what happened. Claiming goes through a
 * function so that several threads can share one counter (worker mode) and so that other workloads
 * (agentic replay: sessions, think time, fan-out) can decide what a free lane sends next without the
 * transport knowing.
 */

export type Phase = 'warmup' | 'benchmark';

/** What one thread needs to run one phase. */
export interface PhaseRun {
  phase: Phase;
  worker: number;
  slots: number;
  /** Next request index of the phase, or null when none are left. */
  claim(): number | null;
  /** Absolute monotonic ms the request may go, or null to go as soon as a lane is free (rate inf). */
  arrivalMs(index: number): number | null;
  /**
   * Lockstep with a simulated engine (schema/sim-protocol.ts): each request says which phase it belongs
   * to, so the engine's clock waits for it. With `engineDueMs` (an open loop on the engine clock) a
   * request goes as soon as a lane is free, tagged with when it is due, and the engine holds it until then.
   */
  lockstep: {
    phase: string;
    conc: number;
    total: number;
    engineDueMs: ((index: number) => number) | null;
  } | null;
  promptIndex(index: number): number;
  body(index: number): Buffer;
  maxTokens(index: number): number;
  inputTokens(index: number): { target: number; client: number };
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
  for (let i = 0; i < run.slots; i++) lanes.push(lane(run, transport));
  await Promise.all(lanes);
}

async function lane(run: PhaseRun, transport: Transport): Promise<void> {
  for (;;) {
    if (run.signal.aborted) return;
    const freeAt = monotonicMs();
    const index = run.claim();
    if (index === null) return;
    const lock = run.lockstep;
    const arrival = lock?.engineDueMs ? null : run.arrivalMs(index);
    if (arrival !== null && arrival > freeAt) await sleepUntil(arrival, run.signal);
    // Closed loop (rate inf): a request is due when a lane frees. Open loop: when it arrives, so the
    // wait for a free lane counts as queue time (no coordinated omission).
    const scheduled = arrival ?? freeAt;
    const due = Math.max(scheduled, freeAt);
    const headers = lock
      ? {
          [LOCKSTEP_HEADER]: formatLockstep({
            phase: lock.phase,
            conc: lock.conc,
            total: lock.total,
            index,
            atMs: lock.engineDueMs ? lock.engineDueMs(index) : null,
          }),
        }
      : null;
    const outcome = await transport.send(run.body(index), run.signal, headers, run.maxTokens(index));
    const record = toRecord(run, index, scheduled, outcome);
    run.onRecord(record, outcome.stream.text.join(''), outcome.sentMs - due);
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

function toRecord(run: PhaseRun, index: number, scheduled: number, o: Outcome): RequestRecord {
  const origin = run.clockOriginMs;
  // Microsecond resolution: finer digits are clock noise and would triple the size of requests.jsonl.
  const rel = (t: number | null) => (t === null ? null : us(t - origin));
  const s = o.stream;
  const tokens = run.inputTokens(index);
  const requested = run.maxTokens(index);
  const usage = checkUsage(s.usage, {
    maxTokens: requested,
    clientPromptTokens: tokens.client,
    tokenChunks: s.contentChunks + s.reasoningChunks,
  });
  return {
    index,
    phase: run.phase,
    promptIndex: run.promptIndex(index),
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
