import type * as z from 'zod';
import type { WindowMetricsSchema } from '../schema/point-result.ts';
import type { RequestRecord } from '../schema/request-record.ts';
import { type Gpus, interactivityOf, latencyOf, throughputOf } from './measure.ts';
import { endOf } from './records.ts';

export type WindowMetrics = z.infer<typeof WindowMetricsSchema>;

export interface SteadyStateWindow {
  startMs: number;
  endMs: number;
}

/**
 * The steady-state window of a closed-loop point: the stretch where all CONC slots were busy.
 *
 * It opens when the CONC-th benchmark request is sent (before that the slots are still filling) and
 * closes when the last benchmark request is sent (after that a finished request frees a slot nobody
 * refills, so the load drains). Every request that was sent counts, failed or cancelled too, since it
 * held a slot. Fewer than 2×CONC requests leave too little between ramp and drain to call steady, so
 * the window is null then, and also when it has no length.
 */
export function steadyStateWindow(
  benchmark: readonly RequestRecord[],
  concurrency: number,
): SteadyStateWindow | null {
  if (concurrency < 1 || benchmark.length < 2 * concurrency) return null;
  const sent = Float64Array.from(benchmark, (r) => r.sentMs).sort();
  const startMs = sent[concurrency - 1]!;
  const endMs = sent[sent.length - 1]!;
  return endMs > startMs ? { startMs, endMs } : null;
}

/** Share of [s, e] that lies inside the window; a zero-length span counts whole if it lies inside. */
function overlapFraction(s: number, e: number, w: SteadyStateWindow): number {
  if (e <= s) return s >= w.startMs && s <= w.endMs ? 1 : 0;
  const overlap = Math.min(e, w.endMs) - Math.max(s, w.startMs);
  return overlap > 0 ? overlap / (e - s) : 0;
}

/**
 * Metrics inside a steady-state window, over successful benchmark requests (`outputTokens[i]` and
 * `inputTokens[i]` are the counts of `successes[i]`).
 *
 * Latency: only requests whose whole [sent, last token] span lies inside the window, so none of them
 * saw the ramp or the drain; `completed` counts them. Throughput: every request contributes its tokens
 * (and itself, to requests/s) in proportion to how much of its [sent, done] span overlaps the window,
 * so work that straddles a bound is split instead of counted whole on one side.
 */
export function steadyStateMetrics(
  window: SteadyStateWindow,
  successes: readonly RequestRecord[],
  inputTokens: readonly number[],
  outputTokens: readonly number[],
  gpus: Gpus,
): WindowMetrics {
  const inside: RequestRecord[] = [];
  const insideOut: number[] = [];
  let requests = 0;
  let input = 0;
  let output = 0;
  successes.forEach((r, i) => {
    const out = outputTokens[i] ?? 0;
    const last = r.lastTokenMs ?? endOf(r);
    if (r.sentMs >= window.startMs && last <= window.endMs) {
      inside.push(r);
      insideOut.push(out);
    }
    const f = overlapFraction(r.sentMs, endOf(r), window);
    requests += f;
    input += f * (inputTokens[i] ?? 0);
    output += f * out;
  });
  const durationS = (window.endMs - window.startMs) / 1000;
  const { latency } = latencyOf(inside, insideOut);
  return {
    startMs: window.startMs,
    endMs: window.endMs,
    durationS,
    completed: inside.length,
    throughput: throughputOf(requests, input, output, durationS, gpus),
    latency,
    interactivity: interactivityOf(latency.tpotMs),
  };
}
