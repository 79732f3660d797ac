import type { RequestRecord } from '../schema/request-record.ts';
import { monotonicMs } from './clock.ts';
import type { Outcome, Transport } from './transport.ts';

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
    const arrival = run.arrivalMs(index);
    if (arrival !== null && arrival > freeAt) await sleepUntil(arrival, run.signal);
    // Closed loop (rate inf): a request is due when a lane frees. Open loop: when it arrives, so the
    // wait for a free lane counts as queue time (no coordinated omission).
    const scheduled = arrival ?? freeAt;
    const due = Math.max(scheduled, freeAt);
    const outcome = await transport.send(run.body(index), run.signal);
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
    inputTokens: { target: tokens.target, client: tokens.client, server: s.promptTokens },
    outputTokens: { requested: run.maxTokens(index), client: null, server: s.completionTokens },
    ok: o.error === null,
    error: o.error,
    cancelled: o.cancelled,
  };
}

function us(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
