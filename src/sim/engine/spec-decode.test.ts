import { describe, expect, it } from 'vitest';
import { Prng } from './prng.ts';
import { AcceptanceSampler, type SpecDecodingConfig } from './spec-decode.ts';

const stats = (xs: readonly number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  return { mean, sd };
};

describe('AcceptanceSampler', () => {
  it('draws the chain model with one uniform per step: the mean is the acceptance length', () => {
    const spec: SpecDecodingConfig = { method: 'mtp', draftTokens: 3, acceptanceLength: 2.5 };
    const s = new AcceptanceSampler(spec, new Prng(7));
    const xs = Array.from({ length: 40_000 }, () => s.sample());
    expect(Math.min(...xs)).toBe(1);
    expect(Math.max(...xs)).toBe(4);
    expect(stats(xs).mean).toBeCloseTo(2.5, 1);
    // With fewer drafts the count is capped at 1 + drafts.
    expect(Math.max(...Array.from({ length: 1000 }, () => s.sample(1)))).toBe(2);
  });

  it('stepsToEmit has the distribution of drawing step by step until the tokens are out', () => {
    for (const [k, al, tokens] of [
      [3, 2.5, 1000],
      [3, 2.5, 37],
      [1, 1.7, 500],
      [5, 3.1, 4096],
    ] as const) {
      const spec: SpecDecodingConfig = { method: 'mtp', draftTokens: k, acceptanceLength: al };
      const blocks = new AcceptanceSampler(spec, new Prng(1));
      const steps = new AcceptanceSampler(spec, new Prng(2));
      const n = 6000;
      const a = Array.from({ length: n }, () => blocks.stepsToEmit(tokens));
      const b = Array.from({ length: n }, () => {
        let got = 0;
        let i = 0;
        for (; got < tokens; i++) got += steps.sample();
        return i;
      });
      const sa = stats(a);
      const sb = stats(b);
      const what = `k ${k}, AL ${al}, ${tokens} tokens`;
      // Means within 4 standard errors of their difference; spreads within 10 %.
      expect(Math.abs(sa.mean - sb.mean), what).toBeLessThan(4 * Math.sqrt((sa.sd ** 2 + sb.sd ** 2) / n));
      expect(Math.abs(sa.sd / sb.sd - 1), what).toBeLessThan(0.1);
      // Never fewer steps than all drafts accepted would need, never more than one token a step.
      expect(Math.min(...a), what).toBeGreaterThanOrEqual(Math.ceil(tokens / (k + 1)));
      expect(Math.max(...a), what).toBeLessThanOrEqual(tokens);
    }
  });
});
