import { describe, expect, it } from 'vitest';
import { predictPoint } from './predict.ts';
import { predictDisagg } from './predict-disagg.ts';
import { type Completion, unsteadyParts, windowHalves } from './window-halves.ts';

/** `n` completions every `gapMs`, of `tokens` output tokens, TTFT and TPOT given per completion index. */
function stream(n: number, gapMs: (i: number) => number, ttft: (i: number) => number): Completion[] {
  const out: Completion[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += gapMs(i);
    // TPOT 20 ms: E2E − TTFT over the 99 tokens after the first.
    out.push({ finishMs: t, outputTokens: 100, ttftMs: ttft(i), e2eMs: ttft(i) + 99 * 20 });
  }
  return out;
}

describe('window halves', () => {
  it('a steady stream: the halves agree; nothing is called unsteady', () => {
    const h = windowHalves(
      0,
      stream(
        64,
        () => 10,
        () => 200,
      ),
    )!;
    expect(h.throughput).toBeLessThan(1e-9);
    expect(h.interactivity).toBeLessThan(1e-9);
    expect(h.ttftMedian).toBeLessThan(1e-9);
    expect(unsteadyParts(h)).toEqual([]);
  });

  it('a second half that finishes at half the rate with twice the TTFT is measured and worded', () => {
    const h = windowHalves(
      0,
      stream(
        64,
        (i) => (i < 32 ? 10 : 20),
        (i) => (i < 32 ? 200 : 400),
      ),
    )!;
    expect(h.throughput).toBeCloseTo(0.5, 6);
    expect(h.ttftMedian).toBeCloseTo(1, 6);
    expect(unsteadyParts(h)).toEqual(['throughput 50 %', 'median TTFT 100 %']);
  });

  it('gives nothing for fewer than 16 completions', () => {
    expect(
      windowHalves(
        0,
        stream(
          15,
          () => 10,
          () => 200,
        ),
      ),
    ).toBeNull();
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
