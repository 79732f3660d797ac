import { describe, expect, it } from 'vitest';
import { arec } from '../../../test/support/agentic-records.ts';
import { measureOf } from './records.ts';
import { qpsOf, throughputOf } from './throughput.ts';

describe('agentic throughput', () => {
  // spec §10 case 12: starts 1.0 2.5 1.5 3.0 4.0 s, ends 2.0 3.7 2.3 4.5 5.1 s; ISL Σ 840, OSL Σ 275.
  const rows = [
    [100, 50, 1.0, 2.0],
    [180, 60, 2.5, 3.7],
    [120, 40, 1.5, 2.3],
    [200, 70, 3.0, 4.5],
    [240, 55, 4.0, 5.1],
  ] as const;
  const measures = rows.map(([isl, osl, s, e]) =>
    measureOf(arec({ isl, osl, sent: s * 1000, ttft: 10, e2e: 20, done: e * 1000 })),
  );

  it('spans first start to last end, and divides every figure by all GPUs', () => {
    // duration 5.1 − 1.0 = 4.1 s: 840/4.1 = 204.878, 275/4.1 = 67.073, 1115/4.1 = 271.951; 16 GPUs → 16.997.
    const t = throughputOf(measures, 16)!;
    expect(t.durationS).toBeCloseTo(4.1, 12);
    expect(t.inputTokensPerS).toBeCloseTo(204.878, 3);
    expect(t.outputTokensPerS).toBeCloseTo(67.073, 3);
    expect(t.totalTokensPerS).toBeCloseTo(271.951, 3);
    expect(t.perGpu.total).toBeCloseTo(16.997, 3);
    expect(t.perGpu.output).toBeCloseTo(67.073 / 16, 3);
    expect(t.perGpu.input).toBeCloseTo(204.878 / 16, 3);
    expect(throughputOf(measures, null)!.perGpu).toEqual({ total: null, output: null, input: null });
  });

  it('is null with no span', () => {
    expect(throughputOf([], 8)).toBeNull();
    expect(throughputOf([measureOf(arec({ sent: 0, ttft: null, e2e: null, done: 0 }))], 8)).toBeNull();
  });

  it('counts completions in whole 1-second windows', () => {
    // ends sorted 2.0 2.3 3.7 4.5 5.1: [2,3) 2, [3,4) 1, [4,5) 1; 5 + 1 > 5.1 stops. Windows [2, 1, 1]:
    // mean 4/3; sorted 1 1 2: p50 1, p75 1.5, p90 1.8, p95 1.9; std √(2/9) = 0.4714.
    const q = qpsOf(measures.map((m) => m.endMs!))!;
    expect(q.samples).toBe(3);
    expect(q.mean).toBeCloseTo(4 / 3, 12);
    expect(q.p50).toBe(1);
    expect(q.p75).toBeCloseTo(1.5, 12);
    expect(q.p90).toBeCloseTo(1.8, 12);
    expect(q.p95).toBeCloseTo(1.9, 12);
    expect(q.std).toBeCloseTo(Math.sqrt(2 / 9), 12);
  });

  it('under a second is completions over the span; under two completions nothing', () => {
    // 3 completions over 0.5 s: 6/s.
    expect(qpsOf([1000, 1200, 1500])).toEqual({
      windowSeconds: 1,
      samples: 0,
      mean: 6,
      p50: null,
      p75: null,
      p90: null,
      p95: null,
      std: null,
    });
    expect(qpsOf([1000])).toBeNull();
    expect(qpsOf([1000, 1000])).toBeNull();
  });
});
