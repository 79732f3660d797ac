import type { DriverContext, DriverRequest, DriverSpecBase, DriverStep, PhaseDriver } from './driver.ts';
import { DONE } from './driver.ts';

/**
 * The fixed-seq-len driver: every body is built before the run (so sending costs no encoding), the
 * measured phase sends prompt i as request i, and warmup sends prompt 0 every time, as the reference
 * does. No request depends on another, so the threads share one dispatch counter and together send in
 * the same order, at the same concurrency, as one thread would.
 */

/** One pre-built request. */
export interface FixedRequest {
  body: Buffer;
  maxTokens: number;
  targetInputTokens: number;
  clientInputTokens: number;
}

/**
 * The same requests in shared memory, for worker threads: a 400 KB prompt is never copied per thread.
 * offsets[i]..offsets[i+1] is request i's body.
 */
export interface SharedRequests {
  bodies: SharedArrayBuffer;
  offsets: Float64Array;
  maxTokens: Int32Array;
  targetInputTokens: Int32Array;
  clientInputTokens: Int32Array;
}

export interface FixedSeqLenSpec extends DriverSpecBase {
  kind: 'fixed-seq-len';
  total: number;
  independent: true;
  /** A list in this thread; shared memory across threads (see shareFixedSeqLen). */
  requests: readonly FixedRequest[] | SharedRequests;
  /** Every request sends request 0 (warmup). */
  repeatFirst: boolean;
  /** Arrival offsets from the start of the phase per request; null for a closed loop. */
  arrivalOffsetsMs: Float64Array | null;
}

/** Warmup (prompt 0, `warmup` times, closed loop) and the measured phase (prompt i, request i). */
export function fixedSeqLenPhases(
  requests: readonly FixedRequest[],
  warmup: number,
  arrivalOffsetsMs: Float64Array | null,
): { warmup: FixedSeqLenSpec; benchmark: FixedSeqLenSpec } {
  const spec = (total: number, repeatFirst: boolean, offsets: Float64Array | null): FixedSeqLenSpec => ({
    kind: 'fixed-seq-len',
    total,
    independent: true,
    // Warmup needs request 0 only: sharing it with worker threads then copies one body, not all.
    requests: repeatFirst ? requests.slice(0, 1) : requests,
    repeatFirst,
    arrivalOffsetsMs: offsets,
  });
  return {
    warmup: spec(requests.length > 0 ? warmup : 0, true, null),
    benchmark: spec(requests.length, false, arrivalOffsetsMs),
  };
}

/** The spec with its requests (and offsets) in shared memory, for worker threads. */
export function shareFixedSeqLen(spec: FixedSeqLenSpec): FixedSeqLenSpec {
  let offsets: Float64Array | null = null;
  if (spec.arrivalOffsetsMs) {
    offsets = new Float64Array(new SharedArrayBuffer(8 * spec.arrivalOffsetsMs.length));
    offsets.set(spec.arrivalOffsetsMs);
  }
  const r = spec.requests;
  return { ...spec, requests: isShared(r) ? r : shareRequests(r), arrivalOffsetsMs: offsets };
}

function isShared(r: FixedSeqLenSpec['requests']): r is SharedRequests {
  return !Array.isArray(r);
}

function shareRequests(requests: readonly FixedRequest[]): SharedRequests {
  const n = requests.length;
  const offsets = new Float64Array(new SharedArrayBuffer(8 * (n + 1)));
  let size = 0;
  requests.forEach((r, i) => {
    offsets[i] = size;
    size += r.body.length;
  });
  offsets[n] = size;
  const bodies = new SharedArrayBuffer(size);
  const view = new Uint8Array(bodies);
  const ints = () => new Int32Array(new SharedArrayBuffer(4 * n));
  const maxTokens = ints();
  const targetInputTokens = ints();
  const clientInputTokens = ints();
  requests.forEach((r, i) => {
    view.set(r.body, offsets[i] as number);
    maxTokens[i] = r.maxTokens;
    targetInputTokens[i] = r.targetInputTokens;
    clientInputTokens[i] = r.clientInputTokens;
  });
  return { bodies, offsets, maxTokens, targetInputTokens, clientInputTokens };
}

export function createFixedSeqLenDriver(spec: FixedSeqLenSpec, ctx: DriverContext): PhaseDriver {
  const { total, repeatFirst } = spec;
  const offsets = spec.arrivalOffsetsMs;
  const r = spec.requests;
  const at = (i: number) => (repeatFirst ? 0 : i);
  let make: (index: number, prompt: number, arrival: number | null) => DriverRequest;
  if (isShared(r)) {
    const bodies = Buffer.from(r.bodies);
    make = (index, p, arrival) => ({
      index,
      promptIndex: p,
      body: bodies.subarray(r.offsets[p] as number, r.offsets[p + 1] as number),
      maxTokens: r.maxTokens[p] as number,
      inputTokens: { target: r.targetInputTokens[p] as number, client: r.clientInputTokens[p] as number },
      headers: null,
      arrivalOffsetMs: arrival,
    });
  } else {
    make = (index, p, arrival) => {
      const q = r[p] as FixedRequest;
      return {
        index,
        promptIndex: p,
        body: q.body,
        maxTokens: q.maxTokens,
        inputTokens: { target: q.targetInputTokens, client: q.clientInputTokens },
        headers: null,
        arrivalOffsetMs: arrival,
      };
    };
  }
  return {
    next(): DriverStep {
      const i = Atomics.add(ctx.dispatch, 0, 1);
      if (i >= total) return DONE;
      return make(i, at(i), offsets ? (offsets[i] as number) : null);
    },
    complete() {},
  };
}
