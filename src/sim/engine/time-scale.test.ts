import { describe, expect, it } from 'vitest';
import { chooseTimeScale, MAX_SCALE, STEP_COST, unsustainableScale } from './time-scale.ts';

const llama70 = { model: 'llama3.3-70b', hardware: 'h100', precision: 'fp8', tp: 2 } as const;
const load = (concurrency: number) => ({ isl: 1024, osl: 1024, concurrency });

describe('chooseTimeScale', () => {
  it('gives each step its host cost with headroom: more streams, a lower scale', () => {
    const c1 = chooseTimeScale(llama70, load(1));
    const c64 = chooseTimeScale(llama70, load(64));
    const c256 = chooseTimeScale(llama70, load(256));
    expect(c1.scale).toBeGreaterThan(c64.scale);
    expect(c64.scale).toBeGreaterThan(c256.scale);
    for (const c of [c1, c64, c256]) {
      // Wall time per step at the chosen scale covers the host's cost of it.
      expect(c.stepMs / c.scale).toBeGreaterThanOrEqual(c.hostStepMs * 0.999);
      expect(String(c.scale)).toMatch(/^\d+(\.\d)?$/);
      expect(c.scale).toBeGreaterThanOrEqual(1);
      expect(c.scale).toBeLessThanOrEqual(MAX_SCALE);
    }
    expect(c64.hostStepMs).toBeCloseTo(STEP_COST.baseMs + 64 * STEP_COST.perSeqMs, 9);
    // A slower (or busier) host gets a lower scale.
    expect(chooseTimeScale(llama70, load(64), 2).scale).toBeLessThan(c64.scale);
  });

  it('flags a given scale the host cannot sustain, and names what it can', () => {
    const c = chooseTimeScale(llama70, load(64));
    expect(unsustainableScale(c.scale, c)).toBeNull();
    const warning = unsustainableScale(c.scale * 10, c);
    expect(warning).toContain(`at ${c.scale * 10}x an engine step gets`);
    expect(warning).toContain(`${c.scale}x or less is sustainable`);
  });

  it('sizes a disaggregated point by its decode pool and counts every worker', () => {
    const pool = { model: 'dsr1', hardware: 'h200', precision: 'fp8', tp: 8 } as const;
    const c = chooseTimeScale(
      { prefill: { workers: 1, setup: pool }, decode: { workers: 2, setup: pool } },
      load(64),
    );
    expect(c.seqs).toBe(32);
    expect(c.hostStepMs).toBeCloseTo(3 * STEP_COST.baseMs + 64 * STEP_COST.perSeqMs, 9);
  });
});
