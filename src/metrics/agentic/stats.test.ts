import { describe, expect, it } from 'vitest';
import { arec } from '../../../test/support/agentic-records.ts';
import { e2eNormIntvty, latencyOf } from './latency.ts';
import { measureOf } from './records.ts';
import { agenticStats, interactivityOf } from './stats.ts';

describe('agenticStats', () => {
  it('is NumPy-linear percentiles with the population std', () => {
    // 30 32 33 35 40 (spec §10 case 12's TTFTs): p50 = 33; p75: k = 3 → 35; p90: k = 3.6 → 35 + 0.6·5 = 38;
    // p95: k = 3.8 → 39; mean 170/5 = 34; std √((16+4+1+1+36)/5) = √11.6.
    const s = agenticStats([30, 35, 32, 40, 33]);
    expect(s).toMatchObject({ count: 5, mean: 34, p50: 33, p75: 35 });
    expect(s.p90).toBeCloseTo(38, 12);
    expect(s.p95).toBeCloseTo(39, 12);
    expect(s.std).toBeCloseTo(Math.sqrt(11.6), 12);
  });

  it('gives nulls, not zeros, for no values, and std 0 for one', () => {
    expect(agenticStats([])).toEqual({
      count: 0,
      mean: null,
      p50: null,
      p75: null,
      p90: null,
      p95: null,
      std: null,
    });
    expect(agenticStats([7])).toEqual({ count: 1, mean: 7, p50: 7, p75: 7, p90: 7, p95: 7, std: 0 });
  });
});

describe('generation interactivity', () => {
  it('inverts each ITL statistic (spec §10 case 13), from ITLs the records give', () => {
    // TTFT 10 ms and OSL 11 each: ITL = (E2E − 10) / 10 → 10, 20, 100 ms.
    const m = [110, 210, 1010].map((e2e) => measureOf(arec({ ttft: 10, e2e, osl: 11 })));
    const { latency, interactivity } = latencyOf(m);
    expect(latency.itlMs).toMatchObject({ count: 3, p50: 20, p75: 60 });
    // The reference's tpot is a copy of itl.
    expect(latency.tpotMs).toEqual(latency.itlMs);
    const i = interactivity.intvty;
    // p50 1000/20 = 50; p75 1000/60 = 16.667; p90 k=1.8 → 84 → 11.905; p95 92 → 10.870; mean 1000/43.333 = 23.077.
    expect(i.p50).toBeCloseTo(50, 10);
    expect(i.p75).toBeCloseTo(16.6667, 4);
    expect(i.p90).toBeCloseTo(11.9048, 4);
    expect(i.p95).toBeCloseTo(10.8696, 4);
    expect(i.mean).toBeCloseTo(23.0769, 4);
    expect(i.p90!).toBeLessThan(20);
    // std over 100, 50, 10 tok/s: mean 53.333, √((46.667² + 3.333² + 43.333²)/3) = 36.8179.
    expect(i.std).toBeCloseTo(36.8179, 3);
  });

  it('full-response ITL uses the response end, and inverts the same way (spec §10 case 16)', () => {
    // first token at 10; done at 10 + 10·x → full ITL x for OSL 11: 5.469791, 5, 4 ms.
    const m = [5.469791, 5, 4].map((x) => measureOf(arec({ ttft: 10, e2e: 20, done: 10 + 10 * x, osl: 11 })));
    const { latency, interactivity } = latencyOf(m);
    // sorted 4, 5, 5.469791: p50 5; p75 5 + 0.5·0.469791 = 5.2348955.
    expect(latency.fullResponseItlMs.p50).toBeCloseTo(5, 9);
    expect(latency.fullResponseItlMs.p75).toBeCloseTo(5.2348955, 6);
    expect(interactivity.fullResponseIntvty.p50).toBeCloseTo(200, 6);
    expect(interactivity.fullResponseIntvty.p75).toBeCloseTo(191.026, 2);
  });

  it('leaves out values that are not positive, and one-token outputs from ITL', () => {
    const m = [
      measureOf(arec({ ttft: 10, e2e: 10, osl: 5 })),
      measureOf(arec({ ttft: 10, e2e: 50, osl: 1 })),
    ];
    const { latency, interactivity } = latencyOf(m);
    // ITL 0 (dropped) and no ITL for OSL 1: nothing measured.
    expect(latency.itlMs.count).toBe(0);
    expect(interactivity.intvty).toEqual({
      mean: null,
      p50: null,
      p75: null,
      p90: null,
      p95: null,
      std: null,
    });
    expect(latency.ttftMs.count).toBe(2);
  });
});

describe('e2e-normalized interactivity', () => {
  it('is OSL/E2EL per record, inverted per statistic (spec §10 case 14)', () => {
    // r = 1000/50 = 20 and 2000/50 = 40 ms/token: mean 30 → 33.333; p75 35 → 28.571; p90 38 → 26.316;
    // p95 39 → 25.641; std of 50 and 25 tok/s = 12.5.
    const e = e2eNormIntvty([
      { requestLatencyMs: 1000, osl: 50 },
      { requestLatencyMs: 2000, osl: 50 },
    ]);
    expect(e.mean).toBeCloseTo(33.3333, 4);
    expect(e.p50).toBeCloseTo(1000 / 30, 10);
    expect(e.p75).toBeCloseTo(28.5714, 4);
    expect(e.p90).toBeCloseTo(26.3158, 4);
    expect(e.p95).toBeCloseTo(25.641, 3);
    expect(e.std).toBeCloseTo(12.5, 10);
    expect(e.p50!).toBeGreaterThanOrEqual(e.p75!);
    expect(e.p75!).toBeGreaterThanOrEqual(e.p90!);
    expect(e.p90!).toBeGreaterThanOrEqual(e.p95!);
    expect(Object.keys(e)).not.toContain('p99');
  });

  it('pairs latency and length on one record only, and drops bad values (spec §10 case 15)', () => {
    const bad = [0, -1, Number.NaN, Number.POSITIVE_INFINITY];
    const pairs = [
      ...bad.map((v) => ({ requestLatencyMs: v, osl: 50 })),
      ...bad.map((v) => ({ requestLatencyMs: 1000, osl: v })),
      { requestLatencyMs: 1000, osl: 50 },
    ];
    expect(e2eNormIntvty(pairs)).toEqual({ mean: 50, p50: 50, p75: 50, p90: 50, p95: 50, std: 0 });
    const apart = e2eNormIntvty([
      { requestLatencyMs: null, osl: 50 },
      { requestLatencyMs: 1000, osl: null },
    ]);
    expect(apart.mean).toBeNull();
    expect(interactivityOf([]).std).toBeNull();
  });
});
