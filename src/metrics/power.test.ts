import { describe, expect, it } from 'vitest';
import {
  fslPower,
  integratePower,
  type PowerBenchmark,
  type PowerSample,
  pyRound,
  withPowerFields,
} from './power.ts';
import { parseGpuMetricsCsv, parsePowerCell, parseTelemetryTimestamp } from './power-csv.ts';

const T = 1_700_000_000;

/** Samples of one GPU: [seconds after T, watts]. */
const gpu = (id: string, points: [number, number][]): PowerSample[] =>
  points.map(([dt, w]) => ({ timestampS: T + dt, gpu: id, powerW: w }));

const bench = (over: Partial<PowerBenchmark> = {}): PowerBenchmark => ({
  startUnixS: T,
  endUnixS: T + 60,
  durationS: 60,
  completed: 30,
  totalInputTokens: 240_000,
  totalOutputTokens: 30_000,
  ...over,
});

/** 600 W every second across [T, T+60], with 100 W well before and 200 W well after. */
const steady = (id: string): PowerSample[] =>
  gpu(id, [[-10, 100], ...Array.from({ length: 61 }, (_, i): [number, number] => [i, 600]), [70, 200]]);

describe('fslPower', () => {
  it('case 8: constant 600 W on 8 GPUs for 60 s', () => {
    const samples = ['0', '1', '2', '3', '4', '5', '6', '7'].flatMap(steady);
    const r = fslPower(samples, bench(), 8);
    expect(r.reasons).toEqual([]);
    expect(r.fields).toEqual({
      power_metric_schema_version: 2,
      power_valid: 1,
      avg_power_w: 600,
      avg_total_gpu_power_w: 4800,
      total_gpu_energy_j: 288_000,
      joules_per_successful_query: 9600,
      joules_per_input_token: 1.2,
      joules_per_output_token: 9.6,
      joules_per_total_token: 1.066667,
    });
  });

  it('case 9: no telemetry gives power_valid 0 and no metrics', () => {
    const r = fslPower(null, bench(), 8);
    expect(r.valid).toBe(false);
    expect(r.reasons).toEqual(['telemetry_file_missing']);
    expect(r.fields).toEqual({ power_metric_schema_version: 2, power_valid: 0 });
    expect(fslPower([], bench(), 8).reasons).toEqual(['telemetry_file_missing']);
  });

  it('case 10: trapezoids with interpolated bounds', () => {
    const ramp: [number, number][] = [
      [-1, 100],
      [1, 140],
      [3.5, 190],
      [6, 240],
      [8.5, 290],
      [11, 340],
    ];
    const samples = [
      ...gpu('0', ramp),
      ...gpu(
        '1',
        ramp.map(([t, w]): [number, number] => [t, w + 100]),
      ),
    ];
    const integration = integratePower(samples, { startUnixS: T, endUnixS: T + 10 }, { expectedGpus: 2 });
    expect(integration.reasons).toEqual([]);
    expect(integration.perGpuEnergyJ['0']).toBeCloseTo(2200, 6);
    expect(integration.perGpuEnergyJ['1']).toBeCloseTo(3200, 6);
    expect(integration.perGpuMaxSampleGapS['0']).toBe(2.5);
    const r = fslPower(samples, bench({ endUnixS: T + 10, durationS: 10 }), 2);
    expect(r.fields).toMatchObject({
      total_gpu_energy_j: 5400,
      avg_total_gpu_power_w: 540,
      avg_power_w: 270,
    });
  });

  it('requires every GPU to have samples on both sides of the window', () => {
    const late = gpu(
      '1',
      Array.from({ length: 60 }, (_, i): [number, number] => [i + 1, 600]),
    );
    const r = fslPower([...steady('0'), ...late], bench(), 2);
    expect(r.reasons).toEqual(['benchmark_window_not_bracketed']);
    expect(r.integration.deviceIssues).toEqual({ 1: ['benchmark_window_not_bracketed'] });
    expect(r.fields.power_valid).toBe(0);
    expect(r.fields).not.toHaveProperty('avg_power_w');
  });

  it('rejects a sampling gap over 3 s inside the window, but allows exactly 3 s', () => {
    // One sample a second from −1 to 61 s, except a hole after 10 s.
    const withGap = (gap: number) =>
      gpu(
        '0',
        Array.from({ length: 63 }, (_, i): [number, number] => [i - 1, 600]).filter(
          ([t]) => t <= 10 || t >= 10 + gap,
        ),
      );
    const r = fslPower(withGap(4), bench(), 1);
    expect(r.reasons).toEqual(['sampling_gap_exceeded']);
    expect(r.integration.perGpuMaxSampleGapS['0']).toBe(4);
    expect(fslPower(withGap(3), bench(), 1).reasons).toEqual([]);
  });

  it('checks the observed GPU count against the expected one', () => {
    const r = fslPower([...steady('0'), ...steady('1')], bench(), 8);
    expect(r.reasons).toEqual(['expected_gpu_count_mismatch']);
    expect(r.integration.observedGpuIds).toEqual(['0', '1']);
  });

  it('rejects an empty or inverted window and a duration that disagrees with it', () => {
    expect(fslPower(steady('0'), bench({ endUnixS: T }), 1).reasons).toEqual(['invalid_benchmark_window']);
    expect(fslPower(steady('0'), bench({ durationS: 0 }), 1).reasons).toEqual(['invalid_benchmark_window']);
    expect(fslPower(steady('0'), bench({ durationS: 59 }), 1).reasons).toEqual([
      'benchmark_duration_mismatch',
    ]);
    expect(fslPower(steady('0'), bench({ durationS: 59.6 }), 1).reasons).toEqual([]);
    expect(fslPower(steady('0'), bench({ completed: 0 }), 1).reasons).toEqual([
      'invalid_successful_query_count',
    ]);
  });

  it('averages readings that share a timestamp', () => {
    // 600, 500 and 1000 W at 30 s average to 700 W: two trapezoids gain 50 J each over 600 W flat.
    const extra = [500, 1000].map((powerW) => ({ timestampS: T + 30, gpu: '0', powerW }));
    const r = integratePower([...steady('0'), ...extra], { startUnixS: T, endUnixS: T + 60 });
    expect(r.perGpuSampleCounts['0']).toBe(61); // 0..60 s; the readings at −10 and 70 s lie beyond one gap
    expect(r.perGpuEnergyJ['0']).toBeCloseTo(36_100, 6);
  });

  it('ignores corrupt readings far from the window but not inside it', () => {
    const far = [...steady('0'), { timestampS: T - 100, gpu: '0', powerW: Number.NaN }];
    expect(fslPower(far, bench(), 1).reasons).toEqual([]);
    const inside = [...steady('0'), { timestampS: T + 5.5, gpu: '0', powerW: -1 }];
    expect(fslPower(inside, bench(), 1).reasons).toEqual(['invalid_power_sample']);
    const noId = [...steady('0'), { timestampS: T + 5.5, gpu: '', powerW: 1 }];
    expect(fslPower(noId, bench(), 1).reasons).toEqual(['gpu_identity_missing']);
  });

  it('replaces stale power fields in an aggregate row', () => {
    const row = { tput_per_gpu: 1, avg_power_w: 123, power_valid: 1, joules_per_output_token: 9 };
    const patched = withPowerFields(row, fslPower(null, bench(), 1));
    expect(patched).toEqual({ tput_per_gpu: 1, power_valid: 0, power_metric_schema_version: 2 });
  });
});

describe('pyRound', () => {
  it('rounds like Python: nearest to the exact binary value, ties to even', () => {
    expect(pyRound(0.0625, 3)).toBe(0.062); // exact tie → even
    expect(pyRound(0.125, 2)).toBe(0.12);
    expect(pyRound(2.675, 2)).toBe(2.67); // 2.675 is stored just below the tie
    expect(pyRound(0.0015, 3)).toBe(0.002); // stored just above
    expect(pyRound(1.0005, 3)).toBe(1);
    expect(pyRound(1234.5678, 3)).toBe(1234.568);
    expect(pyRound(-2.5, 0)).toBe(-2);
    expect(pyRound(288_000 / 270_000, 6)).toBe(1.066667);
  });
});

describe('parseGpuMetricsCsv', () => {
  const csv = [
    'timestamp, index, power.draw [W], power.limit [W], temperature.gpu',
    '2025/01/15 12:00:00.000, 0, 600.50 W, 700.00 W, 45',
    '2025/01/15 12:00:00.000, 1, [N/A], 700.00 W, 46',
    '',
    '2025/01/15 12:00:01.250, 0, 601 W, 700.00 W, 45',
  ].join('\n');

  it('finds the columns by name and parses nvidia-smi cells', () => {
    const t0 = Date.UTC(2025, 0, 15, 12, 0, 0) / 1000;
    const parsed = parseGpuMetricsCsv(csv, { utcOffsetMinutes: 0 });
    expect(parsed.reasons).toEqual([]);
    expect(parsed.samples).toEqual([
      { timestampS: t0, gpu: '0', powerW: 600.5 },
      { timestampS: t0, gpu: '1', powerW: Number.NaN },
      { timestampS: t0 + 1.25, gpu: '0', powerW: 601 },
    ]);
  });

  it('reads timestamps in the given zone, ISO with offsets, and epochs in s or ms', () => {
    const utc = Date.UTC(2025, 0, 15, 12, 0, 0) / 1000;
    expect(parseTelemetryTimestamp('2025/01/15 04:00:00', { utcOffsetMinutes: -480 })).toBe(utc);
    expect(parseTelemetryTimestamp('2025-01-15T13:00:00.5+01:00')).toBe(utc + 0.5);
    expect(parseTelemetryTimestamp('1700000000.5')).toBe(1_700_000_000.5);
    expect(parseTelemetryTimestamp('1700000000500')).toBe(1_700_000_000.5);
    expect(parseTelemetryTimestamp('yesterday')).toBeNaN();
    expect(parsePowerCell('412.34 W')).toBe(412.34);
  });

  it('says why a file is unusable', () => {
    expect(parseGpuMetricsCsv('').reasons).toEqual(['telemetry_file_empty']);
    expect(parseGpuMetricsCsv('time, card, temperature.gpu\n').reasons).toEqual(['power_column_missing']);
    expect(parseGpuMetricsCsv('power.draw [W]\n').reasons).toEqual([
      'timestamp_column_missing',
      'gpu_identity_column_missing',
    ]);
    const headerOnly = parseGpuMetricsCsv('timestamp, index, power.draw [W]\n');
    expect(fslPower(headerOnly, bench(), 1).reasons).toEqual(['no_usable_power_samples']);
    expect(fslPower(parseGpuMetricsCsv(''), bench(), 1).reasons).toEqual(['telemetry_file_empty']);
  });

  it('feeds the integrator end to end', () => {
    const lines = ['timestamp, index, power.draw [W]'];
    for (let s = -1; s <= 61; s++) {
      for (const g of [0, 1]) lines.push(`${T + s}, ${g}, 250.00 W`);
    }
    const r = fslPower(parseGpuMetricsCsv(lines.join('\n')), bench(), 2);
    expect(r.fields).toMatchObject({ power_valid: 1, avg_power_w: 250, total_gpu_energy_j: 30_000 });
  });
});
