import { describe, expect, it } from 'vitest';
import { predictPoint } from './predict.ts';
import { predictDisagg } from './predict-disagg.ts';
import { type Completion, unsteadyParts, windowHalves } from './window-halves.ts';

/** `n` completions of 100 output tokens at 20 ms TPOT, TTFT given per completion index. */
function stream(n: number, ttft: (i: number) => number): Completion[] {
  // E2E − TTFT: the 99 tokens after the first, 20 ms each.
  return Array.from({ length: n }, (_, i) => ({
    outputTokens: 100,
    ttftMs: ttft(i),
    e2eMs: ttft(i) + 99 * 20,
  }));
}

describe('window halves', () => {
  it('a steady stream: the halves agree; nothing is called unsteady', () => {
    const h = windowHalves(stream(64, () => 200))!;
    expect(h.throughput).toBeLessThan(1e-9);
    expect(h.interactivity).toBeLessThan(1e-9);
    expect(h.ttftMedian).toBeLessThan(1e-9);
    expect(unsteadyParts(h)).toEqual([]);
  });

  it('a second half whose requests queue 2 s before their first token: half the rate per user, measured and worded', () => {
    // E2E 2000 ms, then 4000 ms: by Little's law the same users complete tokens at half the rate.
    const h = windowHalves(stream(64, (i) => (i < 32 ? 20 : 2020)))!;
    expect(h.throughput).toBeCloseTo(0.5, 9);
    expect(h.interactivity).toBeLessThan(1e-9);
    expect(h.ttftMedian).toBeCloseTo(100, 9);
    expect(unsteadyParts(h)).toEqual(['throughput 50 %', 'median TTFT 10000 %']);
  });

  it('gives nothing for fewer than 16 completions', () => {
    expect(windowHalves(stream(15, () => 200))).toBeNull();
    expect(unsteadyParts(null)).toEqual([]);
  });

  it('the steady method reports them, single engine and disaggregated; as measured does not', () => {
    const llama = { model: 'llama3.1-8b', hardware: 'h100', isl: 1024, osl: 256, concurrency: 32 } as const;
    const steady = predictPoint(llama);
    expect(steady.halves).not.toBeNull();
    // A lone-model point this small is steady after its warm-up.
    expect(steady.halves!.interactivity).toBeLessThan(0.1);
    expect(predictPoint({ ...llama, method: 'as-measured' }).halves).toBeNull();
    const one = { model: 'llama3.1-8b', hardware: 'h100', precision: 'fp8' } as const;
    const setup = { prefill: { workers: 1, setup: one }, decode: { workers: 1, setup: one } };
    const pd = predictDisagg(setup, { isl: 1024, osl: 256, concurrency: 32 });
    expect(pd.halves).not.toBeNull();
    expect(
      predictDisagg(setup, { isl: 1024, osl: 256, concurrency: 32, method: 'as-measured' }).halves,
    ).toBeNull();
  });
});
