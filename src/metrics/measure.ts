import type * as z from 'zod';
import type {
  InteractivitySchema,
  LatencySetSchema,
  PointResult,
  QueueInclusiveSchema,
  Stats,
  ThroughputSchema,
} from '../schema/point-result.ts';
import type { RequestRecord } from '../schema/request-record.ts';
import { summarize } from './stats.ts';

export type LatencySet = z.infer<typeof LatencySetSchema>;
export type QueueInclusive = z.infer<typeof QueueInclusiveSchema>;
export type Interactivity = z.infer<typeof InteractivitySchema>;
export type Throughput = z.infer<typeof ThroughputSchema>;
export type Gpus = PointResult['gpus'];

/** A growable Float64Array: ITL pools one value per chunk, millions per point at high concurrency. */
class Samples {
  private buf = new Float64Array(64);
  private n = 0;
  push(v: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = v;
  }
  view(): Float64Array {
    return this.buf.subarray(0, this.n);
  }
}

/**
 * Latencies of successful requests (spec §4.2), `outputTokens[i]` being the count of `records[i]`.
 * TPOT needs at least two output tokens (one gap); ITL pools every record's chunk gaps in record order.
 * A success without token timestamps (an empty chat stream) has no TTFT, E2EL or TPOT to give.
 */
export function latencyOf(
  records: readonly RequestRecord[],
  outputTokens: readonly number[],
): { latency: LatencySet; queueInclusive: QueueInclusive } {
  const ttft: number[] = [];
  const tpot: number[] = [];
  const e2el: number[] = [];
  const itl = new Samples();
  const queue: number[] = [];
  const qTtft: number[] = [];
  const qE2el: number[] = [];
  records.forEach((r, i) => {
    queue.push(r.sentMs - r.scheduledMs);
    if (r.firstTokenMs !== null) {
      ttft.push(r.firstTokenMs - r.sentMs);
      qTtft.push(r.firstTokenMs - r.scheduledMs);
    }
    if (r.lastTokenMs !== null) {
      e2el.push(r.lastTokenMs - r.sentMs);
      qE2el.push(r.lastTokenMs - r.scheduledMs);
    }
    const out = outputTokens[i] ?? 0;
    if (r.firstTokenMs !== null && r.lastTokenMs !== null && out > 1) {
      tpot.push((r.lastTokenMs - r.firstTokenMs) / (out - 1));
    }
    for (const g of r.chunkGapsMs) itl.push(g);
  });
  return {
    latency: {
      ttftMs: summarize(ttft),
      tpotMs: summarize(tpot),
      itlMs: summarize(itl.view()),
      e2elMs: summarize(e2el),
    },
    queueInclusive: { queueMs: summarize(queue), ttftMs: summarize(qTtft), e2elMs: summarize(qE2el) },
  };
}

const reciprocal = (ms: number | null): number | null => (ms === null || ms <= 0 ? null : 1000 / ms);

/**
 * Interactivity (tokens/s/user) = 1000 / TPOT(ms), statistic by statistic, as the reference's
 * process_result.py does: p99 interactivity is the reciprocal of p99 TPOT, i.e. the slow tail, and
 * `mean` is 1000 / mean TPOT (not the mean of the reciprocals).
 */
export function interactivityOf(tpot: Stats): Interactivity {
  return {
    mean: reciprocal(tpot.mean),
    median: reciprocal(tpot.median),
    p75: reciprocal(tpot.p75),
    p90: reciprocal(tpot.p90),
    p95: reciprocal(tpot.p95),
    p99: reciprocal(tpot.p99),
    'p99.9': reciprocal(tpot['p99.9']),
  };
}

/**
 * Rates over a window (spec §4.3 for the GPU split). Disaggregated points divide output by decode GPUs
 * and input by prefill GPUs, since each role only does that work; aggregated points divide all three by
 * the total. Without a known GPU count the per-GPU values are null. A window of zero length measured
 * nothing, so everything is null; a real window with no completions is a measured 0.
 */
export function throughputOf(
  requests: number,
  inputTokens: number,
  outputTokens: number,
  durationS: number,
  gpus: Gpus,
): Throughput {
  if (!(durationS > 0)) {
    return {
      requestsPerS: null,
      inputTokensPerS: null,
      outputTokensPerS: null,
      totalTokensPerS: null,
      perGpu: { total: null, output: null, input: null },
    };
  }
  const input = inputTokens / durationS;
  const output = outputTokens / durationS;
  const total = input + output;
  let perGpu: Throughput['perGpu'] = { total: null, output: null, input: null };
  if (gpus.prefill !== null && gpus.decode !== null) {
    perGpu = {
      total: total / (gpus.prefill + gpus.decode),
      output: output / gpus.decode,
      input: input / gpus.prefill,
    };
  } else if (gpus.total !== null) {
    perGpu = { total: total / gpus.total, output: output / gpus.total, input: input / gpus.total };
  }
  return {
    requestsPerS: requests / durationS,
    inputTokensPerS: input,
    outputTokensPerS: output,
    totalTokensPerS: total,
    perGpu,
  };
}
