import { isAggregate, isDisaggSetup, type RowSetup } from './aggregate.ts';
import { resolveSim, type SimSetup } from './config.ts';
import type { BatchEntry } from './perf-model.ts';

/**
 * How fast a simulated point may run on this host. Each engine step costs the host real work — the
 * engine writes one stream chunk per running request and the client reads and parses it — so a step
 * needs at least that much wall time. The point runs as fast as that allows: the time scale is the
 * predicted decode step (simulated ms) over the wall time the host needs for it, with headroom.
 *
 * On the engine clock (lockstep) a faster scale changes no figure, only how far the engine lags, and a
 * slower one only wastes time: a point cannot run faster than the host does its steps. So the scale is the
 * one at which a step's wall time just covers its host cost. A given scale well beyond it is flagged: the
 * point then takes as long as the host needs and its wall-clock figures stop matching.
 */

/**
 * Host cost of one engine step on the reference 2-core machine, client and engine together (wall ms),
 * measured with `npm run bench:sim` at 50x, where the high-concurrency points are host-bound: 1.0 ms per
 * step at 64 streams, 1.2–1.5 ms at 64–128.
 */
export const STEP_COST = { baseMs: 0.15, perSeqMs: 0.014 } as const;
/** Wall time given to a step over its host cost. */
export const HEADROOM = 1;
export const MIN_SCALE = 1;
export const MAX_SCALE = 200;
/** A chosen scale beyond this multiple of the auto one is flagged as unsustainable. */
export const UNSUSTAINABLE_FACTOR = 2;

export interface PointLoad {
  isl: number;
  osl: number;
  concurrency: number;
}

export interface ScaleChoice {
  /** Simulated ms per wall ms. */
  scale: number;
  /** Predicted decode step at this concurrency, simulated ms. */
  stepMs: number;
  /** Wall ms this host needs per step at this concurrency. */
  hostStepMs: number;
  /** Requests in a decode step. */
  seqs: number;
}

/** The predicted decode step of `seqs` requests at the workload's mean context. */
function decodeStepMs(setup: SimSetup, seqs: number, load: PointLoad): number {
  const resolved = resolveSim({ ...setup, maxNumSeqs: Math.max(256, seqs) });
  const n = Math.max(1, Math.min(seqs, resolved.engineOptions.maxNumSeqs ?? 256));
  const context = Math.round(load.isl + load.osl / 2);
  const entries: BatchEntry[] = Array.from({ length: n }, () => ({ newTokens: 1, context }));
  return resolved.engineOptions.timer.stepTimeMs(entries, 0);
}

/**
 * Relative host speed: this machine's time for a fixed piece of work like a step's (stringifying and
 * parsing stream chunks) over the reference machine's. Above 1: slower (or busier) than the reference.
 */
export function hostSlowdown(): number {
  const chunk = {
    id: 'cmpl-sim-1',
    object: 'text_completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, text: ' the', logprobs: null, finish_reason: null }],
    infx: { t: 1234.567 },
  };
  // The fastest of a few short batches: the first ones also pay for compiling the loop.
  let best = Number.POSITIVE_INFINITY;
  for (let batch = 0; batch < 4; batch++) {
    const t0 = performance.now();
    for (let n = 0; n < 1000; n++) JSON.parse(`data: ${JSON.stringify(chunk)}`.slice(6));
    best = Math.min(best, (performance.now() - t0) * 1e3);
  }
  // Bounded: a short sample on a busy machine overstates how slow it is, and a lower scale only costs time.
  return Math.min(2, Math.max(0.75, best / REFERENCE_NS_PER_CHUNK));
}

/** hostSlowdown()'s work on the reference machine, ns per chunk. */
const REFERENCE_NS_PER_CHUNK = 3600;

/** The fastest time scale this host sustains for the point. */
export function chooseTimeScale(setup: RowSetup, load: PointLoad, slowdown = 1): ScaleChoice {
  let stepMs: number;
  let seqs: number;
  let engines = 1;
  if (isAggregate(setup)) {
    seqs = Math.ceil(load.concurrency / setup.replicas);
    stepMs = decodeStepMs(setup.setup, seqs, load);
    engines = setup.replicas;
  } else if (isDisaggSetup(setup)) {
    seqs = Math.ceil(load.concurrency / setup.decode.workers);
    stepMs = decodeStepMs(setup.decode.setup, seqs, load);
    engines = setup.prefill.workers + setup.decode.workers;
  } else {
    seqs = load.concurrency;
    stepMs = decodeStepMs(setup, seqs, load);
  }
  const hostStepMs = (STEP_COST.baseMs * engines + STEP_COST.perSeqMs * load.concurrency) * slowdown;
  const raw = stepMs / (HEADROOM * hostStepMs);
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, roundScale(raw)));
  return { scale, stepMs, hostStepMs, seqs };
}

/** Two significant digits, rounded down: a scale that reads well in logs and command lines. */
function roundScale(x: number): number {
  if (!(x > 0)) return MIN_SCALE;
  const p = 10 ** Math.floor(Math.log10(x) - 1);
  return Math.max(MIN_SCALE, Number((Math.floor(x / p + 1e-9) * p).toPrecision(2)));
}

/** A warning when `scale` is beyond what this host sustains for the point; null when it is fine. */
export function unsustainableScale(scale: number, choice: ScaleChoice): string | null {
  if (scale <= choice.scale * UNSUSTAINABLE_FACTOR) return null;
  const wall = choice.stepMs / scale;
  return (
    `at ${scale}x an engine step gets ${fmt(wall)} ms of wall time, but this host needs about ` +
    `${fmt(choice.hostStepMs)} ms for one at concurrency ${choice.seqs}: the engine will fall behind ` +
    `(figures on the engine clock stay right, the point takes as long as the host needs, and its wall-clock ` +
    `figures will not match); ${choice.scale}x or less is sustainable`
  );
}

const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(2));
