import type { AgenticCurveMetrics } from '../schema/agentic-curve.ts';
import type { CurveMetrics } from '../schema/curve.ts';
import type { PointResult } from '../schema/point-result.ts';
import { type AGENTIC_COLUMNS, HOT_COLUMNS, type ResultsTable } from './tables.ts';

/**
 * The hot metric columns of `results`: what charts and comparisons read without parsing result.json.
 * One mapping each way, so ingest, verify and queries agree.
 */

/** The hot metric columns of a `results` row. */
export type HotColumns = Pick<ResultsTable, (typeof HOT_COLUMNS)[number]>;

export { HOT_COLUMNS };

/** The agentic hot columns of a point result: null for a fixed-seq-len point. */
function agenticColumns(r: PointResult): Pick<HotColumns, (typeof AGENTIC_COLUMNS)[number]> {
  const a = r.agentic;
  return {
    e2e_intvty_p50: a?.interactivity.e2eNormIntvty.p50 ?? null,
    e2e_intvty_p90: a?.interactivity.e2eNormIntvty.p90 ?? null,
    gen_intvty_p90: a?.interactivity.intvty.p90 ?? null,
    theoretical_cache_hit_rate: a?.cache.theoreticalCacheHitRate ?? null,
    // From the server's own /metrics over the profiling phase; null when it had none (not measured, never 0).
    server_cache_hit_rate: a?.server?.cache.overall_cache_hit_rate ?? null,
    submission_valid: a === undefined ? null : a.submissionValid ? 1 : 0,
  };
}

/**
 * An agentic point's throughput per GPU and TTFT p90 are its agentic block's (client-metrics §4.4: per
 * GPU over every allocated GPU, the reference's percentiles), so its chart and table show the reference's
 * figures; the other columns are the ordinary fields, the same records seen as any point.
 */
export function hotColumns(r: PointResult): HotColumns {
  const a = r.agentic;
  const perGpu =
    a?.throughput?.perGpu ?? (a ? { total: null, output: null, input: null } : r.throughput.perGpu);
  const { ttftMs, e2elMs } = r.latency;
  return {
    ...agenticColumns(r),
    tput_per_gpu: perGpu.total,
    output_tput_per_gpu: perGpu.output,
    input_tput_per_gpu: perGpu.input,
    intvty_median: r.interactivity.median,
    intvty_p90: r.interactivity.p90,
    intvty_p99: r.interactivity.p99,
    ttft_median_ms: ttftMs.median,
    ttft_p90_ms: a ? a.latency.ttftMs.p90 : ttftMs.p90,
    ttft_p99_ms: ttftMs.p99,
    e2el_median_ms: e2elMs.median,
    e2el_p90_ms: e2elMs.p90,
    e2el_p99_ms: e2elMs.p99,
    // result.json carries no power measurement yet: not measured, never a zero.
    joules_per_output_token: null,
  };
}

/** An agentic point's figures from its hot columns (the dashboard's and the frontier comparison's). */
export function agenticMetrics(h: HotColumns): AgenticCurveMetrics {
  return {
    e2eNormIntvty: { p50: h.e2e_intvty_p50, p90: h.e2e_intvty_p90 },
    intvtyP90: h.gen_intvty_p90,
    ttftP90Ms: h.ttft_p90_ms,
    tputPerGpu: h.tput_per_gpu,
    outputTputPerGpu: h.output_tput_per_gpu,
    inputTputPerGpu: h.input_tput_per_gpu,
    theoreticalCacheHitRate: h.theoretical_cache_hit_rate,
    serverCacheHitRate: h.server_cache_hit_rate,
    submissionValid: h.submission_valid === null ? null : h.submission_valid === 1,
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
