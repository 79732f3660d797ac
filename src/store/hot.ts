import type { CurveMetrics } from '../schema/curve.ts';
import type { PointResult } from '../schema/point-result.ts';
import { HOT_COLUMNS, type ResultsTable } from './tables.ts';

/**
 * The hot metric columns of `results`: what charts and comparisons read without parsing result.json.
 * One mapping each way, so ingest, verify and queries agree.
 */

/** The hot metric columns of a `results` row. */
export type HotColumns = Pick<ResultsTable, (typeof HOT_COLUMNS)[number]>;

export { HOT_COLUMNS };

export function hotColumns(r: PointResult): HotColumns {
  const { perGpu } = r.throughput;
  const { ttftMs, e2elMs } = r.latency;
  return {
    tput_per_gpu: perGpu.total,
    output_tput_per_gpu: perGpu.output,
    input_tput_per_gpu: perGpu.input,
    intvty_median: r.interactivity.median,
    intvty_p90: r.interactivity.p90,
    intvty_p99: r.interactivity.p99,
    ttft_median_ms: ttftMs.median,
    ttft_p90_ms: ttftMs.p90,
    ttft_p99_ms: ttftMs.p99,
    e2el_median_ms: e2elMs.median,
    e2el_p90_ms: e2elMs.p90,
    e2el_p99_ms: e2elMs.p99,
    // result.json carries no power measurement yet: not measured, never a zero.
    joules_per_output_token: null,
  };
}

export function curveMetrics(h: HotColumns): CurveMetrics {
  return {
    tputPerGpu: h.tput_per_gpu,
    outputTputPerGpu: h.output_tput_per_gpu,
    inputTputPerGpu: h.input_tput_per_gpu,
    interactivity: { median: h.intvty_median, p90: h.intvty_p90, p99: h.intvty_p99 },
    ttftMs: { median: h.ttft_median_ms, p90: h.ttft_p90_ms, p99: h.ttft_p99_ms },
    e2elMs: { median: h.e2el_median_ms, p90: h.e2el_p90_ms, p99: h.e2el_p99_ms },
    joulesPerOutputToken: h.joules_per_output_token,
  };
}
