import type { InferencexRawResult } from '../schema/inferencex-result.ts';
import type { PointResult } from '../schema/point-result.ts';

/**
 * GPU power and energy over a fixed-seq-len benchmark window (spec §9), with the reference's
 * integrator (aggregate_power.py): per GPU, trapezoids over the samples clipped to the window with
 * linearly interpolated bounds, and a reason code for everything that makes the number untrustworthy.
 */

/** One power reading. `powerW` NaN or `gpu` "" mark an unreadable cell, judged like the reference does. */
export interface PowerSample {
  /** Unix seconds. */
  timestampS: number;
  gpu: string;
  powerW: number;
}

/** A telemetry file as read: `reasons` non-empty means it could not be used at all (empty, no columns). */
export interface ParsedTelemetry {
  samples: PowerSample[];
  reasons: string[];
}

/** Samples, a parsed file, or null when there was no telemetry at all. */
export type Telemetry = readonly PowerSample[] | ParsedTelemetry | null;

export const DEFAULT_MAX_SAMPLE_GAP_S = 3.0;
export const POWER_METRIC_SCHEMA_VERSION = 2;
export const POWER_INTEGRATION_METHOD = 'per_device_trapezoidal_with_linear_boundary_interpolation';

export interface PowerIntegration {
  reasons: string[];
  expectedGpus: number | null;
  observedGpuIds: string[];
  perGpuSampleCounts: Record<string, number>;
  perGpuMaxSampleGapS: Record<string, number>;
  perGpuEnergyJ: Record<string, number>;
  deviceIssues: Record<string, string[]>;
  totalGpuEnergyJ: number | null;
  avgTotalGpuPowerW: number | null;
  avgPowerW: number | null;
}

export interface PowerWindow {
  startUnixS: number;
  endUnixS: number;
}

const isSampleList = (t: NonNullable<Telemetry>): t is readonly PowerSample[] => Array.isArray(t);

function addReason(reasons: string[], reason: string): void {
  if (!reasons.includes(reason)) reasons.push(reason);
}

// Numeric ids in numeric order first, then any other id, as the reference sorts them.
function compareGpuIds(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return Number(a) - Number(b);
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

type Point = readonly [t: number, w: number];

/** Power at `t`, interpolated between the samples around it (callers make sure `t` is bracketed). */
function powerAt(samples: readonly Point[], t: number): number {
  let right = samples.findIndex(([ts]) => ts >= t);
  if (right < 0) right = samples.length;
  const hit = samples[right];
  if (hit && Math.abs(hit[0] - t) <= 1e-9) return hit[1];
  const [lt, lw] = samples[right - 1]!;
  const [rt, rw] = hit!;
  return lw + ((t - lt) / (rt - lt)) * (rw - lw);
}

function integrateDevice(samples: readonly Point[], w: PowerWindow): number {
  const clipped: Point[] = [[w.startUnixS, powerAt(samples, w.startUnixS)]];
  for (const s of samples) if (s[0] > w.startUnixS && s[0] < w.endUnixS) clipped.push(s);
  clipped.push([w.endUnixS, powerAt(samples, w.endUnixS)]);
  let energy = 0;
  for (let i = 1; i < clipped.length; i++) {
    const [lt, lw] = clipped[i - 1]!;
    const [rt, rw] = clipped[i]!;
    energy += ((rt - lt) * (lw + rw)) / 2;
  }
  return energy;
}

function emptyIntegration(expectedGpus: number | null, reasons: string[]): PowerIntegration {
  return {
    reasons,
    expectedGpus,
    observedGpuIds: [],
    perGpuSampleCounts: {},
    perGpuMaxSampleGapS: {},
    perGpuEnergyJ: {},
    deviceIssues: {},
    totalGpuEnergyJ: null,
    avgTotalGpuPowerW: null,
    avgPowerW: null,
  };
}

/**
 * Integrates per-GPU power over the window. Valid (no reasons) only if every GPU has samples on both
 * sides of the window, no gap inside it exceeds `maxSampleGapS`, and the number of GPUs seen equals
 * `expectedGpus`. Rows farther than one gap from the window cannot affect the result, so a corrupt
 * reading there (warmup, evals) is ignored; an unparseable timestamp cannot be placed, so it always
 * counts.
 */
export function integratePower(
  telemetry: Telemetry,
  window: PowerWindow,
  options: { expectedGpus?: number | null; maxSampleGapS?: number } = {},
): PowerIntegration {
  const expectedGpus = options.expectedGpus ?? null;
  const maxGap = options.maxSampleGapS ?? DEFAULT_MAX_SAMPLE_GAP_S;
  const { startUnixS: start, endUnixS: end } = window;
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) {
    return emptyIntegration(expectedGpus, ['invalid_benchmark_window']);
  }
  const reasons: string[] = [];
  if (expectedGpus !== null && expectedGpus <= 0) addReason(reasons, 'invalid_expected_gpu_count');
  if (!(Number.isFinite(maxGap) && maxGap > 0))
    return emptyIntegration(expectedGpus, ['invalid_max_sample_gap']);
  // A bare empty sample list is "no telemetry"; a parsed file with no rows goes on to say why.
  if (telemetry === null || (isSampleList(telemetry) && telemetry.length === 0)) {
    addReason(reasons, 'telemetry_file_missing');
    return emptyIntegration(expectedGpus, reasons);
  }
  if (!isSampleList(telemetry) && telemetry.reasons.length > 0) {
    for (const r of telemetry.reasons) addReason(reasons, r);
    return emptyIntegration(expectedGpus, reasons);
  }
  const samples = isSampleList(telemetry) ? telemetry : telemetry.samples;

  const byGpu = new Map<string, Map<number, number[]>>();
  let missingGpu = false;
  for (const s of samples) {
    if (!Number.isFinite(s.timestampS)) {
      addReason(reasons, 'invalid_timestamp_sample');
      continue;
    }
    if (s.timestampS < start - maxGap || s.timestampS > end + maxGap) continue;
    if (!Number.isFinite(s.powerW) || s.powerW < 0) {
      addReason(reasons, 'invalid_power_sample');
      continue;
    }
    if (s.gpu === '') {
      missingGpu = true;
      continue;
    }
    const perTs = byGpu.get(s.gpu) ?? new Map<number, number[]>();
    byGpu.set(s.gpu, perTs);
    const vals = perTs.get(s.timestampS) ?? [];
    perTs.set(s.timestampS, vals);
    vals.push(s.powerW);
  }
  if (missingGpu) addReason(reasons, 'gpu_identity_missing');
  if (byGpu.size === 0) {
    addReason(reasons, 'no_usable_power_samples');
    return emptyIntegration(expectedGpus, reasons);
  }
  const observedGpuIds = [...byGpu.keys()].sort(compareGpuIds);
  if (expectedGpus !== null && expectedGpus > 0 && observedGpuIds.length !== expectedGpus) {
    addReason(reasons, 'expected_gpu_count_mismatch');
  }

  const out = emptyIntegration(expectedGpus, reasons);
  out.observedGpuIds = observedGpuIds;
  for (const id of observedGpuIds) {
    // Some SMI versions stamp at a coarser resolution than they sample: average, don't reject.
    const points: Point[] = [...byGpu.get(id)!]
      .map(([t, ws]): Point => [t, ws.reduce((a, b) => a + b, 0) / ws.length])
      .sort((a, b) => a[0] - b[0]);
    out.perGpuSampleCounts[id] = points.length;
    const issue = (r: string): void => {
      out.deviceIssues[id] = [...(out.deviceIssues[id] ?? []), r];
      addReason(reasons, r);
    };
    if (points.length < 2) {
      issue('insufficient_power_samples');
      continue;
    }
    if (points[0]![0] > start || points[points.length - 1]![0] < end) {
      issue('benchmark_window_not_bracketed');
      continue;
    }
    // Gaps that matter: from the last sample at or before the start to the first at or after the end.
    let lo = 0;
    while (lo + 1 < points.length && points[lo + 1]![0] <= start) lo++;
    let hi = points.length - 1;
    while (hi - 1 >= 0 && points[hi - 1]![0] >= end) hi--;
    let gap = 0;
    for (let i = lo + 1; i <= hi; i++) gap = Math.max(gap, points[i]![0] - points[i - 1]![0]);
    out.perGpuMaxSampleGapS[id] = gap;
    if (gap > maxGap) issue('sampling_gap_exceeded');
    out.perGpuEnergyJ[id] = integrateDevice(points, window);
  }
  const energies = Object.values(out.perGpuEnergyJ);
  if (energies.length === observedGpuIds.length) {
    const total = energies.reduce((a, b) => a + b, 0);
    out.totalGpuEnergyJ = total;
    out.avgTotalGpuPowerW = total / (end - start);
    out.avgPowerW = out.avgTotalGpuPowerW / observedGpuIds.length;
  }
  return out;
}

/** What energy is normalised by: the raw result's window and counts. */
export interface PowerBenchmark extends PowerWindow {
  /** The client's own duration, checked against end − start. */
  durationS: number;
  completed: number;
  totalInputTokens: number;
  totalOutputTokens: number;
}

export function powerBenchmarkOfRaw(raw: InferencexRawResult): PowerBenchmark {
  return {
    startUnixS: raw.benchmark_start_time_unix,
    endUnixS: raw.benchmark_end_time_unix,
    durationS: raw.duration,
    completed: raw.completed,
    totalInputTokens: raw.total_input_tokens,
    totalOutputTokens: raw.total_output_tokens,
  };
}

export function powerBenchmarkOfPoint(result: PointResult): PowerBenchmark {
  return {
    startUnixS: result.timing.startUnixMs / 1000,
    endUnixS: result.timing.endUnixMs / 1000,
    durationS: result.timing.durationS,
    completed: result.counts.completed,
    totalInputTokens: result.tokens.totalInput,
    totalOutputTokens: result.tokens.totalOutput,
  };
}

/** Derived metrics, in the order the reference writes them. */
export interface PowerMetrics {
  avg_power_w: number;
  avg_total_gpu_power_w: number;
  total_gpu_energy_j: number;
  joules_per_successful_query: number;
  joules_per_input_token: number;
  joules_per_output_token: number;
  joules_per_total_token: number;
}

const METRIC_KEYS = [
  'avg_power_w',
  'avg_total_gpu_power_w',
  'total_gpu_energy_j',
  'joules_per_successful_query',
  'joules_per_input_token',
  'joules_per_output_token',
  'joules_per_total_token',
] as const satisfies readonly (keyof PowerMetrics)[];

/** The keys patched into the aggregate row: numeric only, so dashboards can ingest every field. */
export type PowerFields = { power_metric_schema_version: 2; power_valid: 0 | 1 } & Partial<PowerMetrics>;

export interface PowerReport {
  valid: boolean;
  reasons: string[];
  integration: PowerIntegration;
  /** Unrounded; null unless valid. */
  metrics: PowerMetrics | null;
  fields: PowerFields;
}

/** The checks the reference makes on the raw result before trusting it as a denominator. */
function benchmarkReasons(b: PowerBenchmark): string[] | null {
  const { startUnixS: s, endUnixS: e, durationS: d } = b;
  if (![s, e, d].every(Number.isFinite) || e <= s || d <= 0) return null;
  const reasons: string[] = [];
  if (Math.abs(d - (e - s)) > Math.max(0.5, (e - s) * 0.01)) reasons.push('benchmark_duration_mismatch');
  if (!(Number.isInteger(b.completed) && b.completed > 0)) reasons.push('invalid_successful_query_count');
  if (!(Number.isInteger(b.totalInputTokens) && b.totalInputTokens > 0))
    reasons.push('invalid_input_token_count');
  if (!(Number.isInteger(b.totalOutputTokens) && b.totalOutputTokens > 0)) {
    reasons.push('invalid_output_token_count');
  }
  return reasons;
}

/**
 * Python's round(x, digits): the decimal nearest to the exact binary value, ties to even. Differs from
 * Math.round(x·10ⁿ)/10ⁿ, whose multiplication can itself round across a tie.
 */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21) return x;
  const [int, frac] = Math.abs(x).toFixed(100).split('.') as [string, string];
  let kept = BigInt(int + frac.slice(0, digits));
  const next = frac[digits] ?? '0';
  const rest = frac.slice(digits + 1);
  if (next > '5' || (next === '5' && (/[1-9]/.test(rest) || kept % 2n === 1n))) kept += 1n;
  const s = kept.toString().padStart(digits + 1, '0');
  const value = Number(`${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`);
  return x < 0 ? -value : value;
}

/**
 * Power for one FSL point, as aggregate_power.py reports it: the reasons (benchmark checks first, then
 * telemetry ones), the metrics when valid, and the fields to patch into the aggregate row. Metrics are
 * written only when valid; `_w`/`_j` values round to 3 decimals, the others to 6.
 */
export function fslPower(
  telemetry: Telemetry,
  benchmark: PowerBenchmark,
  expectedGpus: number | null,
  options: { maxSampleGapS?: number } = {},
): PowerReport {
  const pre = benchmarkReasons(benchmark);
  const integration =
    pre === null
      ? emptyIntegration(expectedGpus, ['invalid_benchmark_window'])
      : integratePower(telemetry, benchmark, { expectedGpus, maxSampleGapS: options.maxSampleGapS });
  const reasons = [...(pre ?? [])];
  for (const r of integration.reasons) addReason(reasons, r);
  const valid = reasons.length === 0 && integration.totalGpuEnergyJ !== null;
  let metrics: PowerMetrics | null = null;
  const fields: PowerFields = { power_metric_schema_version: POWER_METRIC_SCHEMA_VERSION, power_valid: 0 };
  if (valid) {
    const e = integration.totalGpuEnergyJ!;
    const b = benchmark;
    metrics = {
      avg_power_w: integration.avgPowerW!,
      avg_total_gpu_power_w: integration.avgTotalGpuPowerW!,
      total_gpu_energy_j: e,
      joules_per_successful_query: e / b.completed,
      joules_per_input_token: e / b.totalInputTokens,
      joules_per_output_token: e / b.totalOutputTokens,
      joules_per_total_token: e / (b.totalInputTokens + b.totalOutputTokens),
    };
    fields.power_valid = 1;
    for (const k of METRIC_KEYS)
      fields[k] = pyRound(metrics[k], k.endsWith('_w') || k.endsWith('_j') ? 3 : 6);
  }
  return { valid, reasons, integration, metrics, fields };
}

/** The aggregate row with its power fields replaced by the report's: stale metrics never survive. */
export function withPowerFields<T extends Record<string, unknown>>(
  row: T,
  report: PowerReport,
): T & PowerFields {
  const out: Record<string, unknown> = { ...row };
  for (const k of [...METRIC_KEYS, 'power_invalid_reasons']) delete out[k];
  return Object.assign(out, report.fields) as T & PowerFields;
}
