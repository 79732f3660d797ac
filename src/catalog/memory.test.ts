import { describe, expect, it } from 'vitest';
import { accelerator, model } from './index.ts';
import {
  BYTES_PER_PARAM,
  DEFAULT_RESERVE_GIB,
  GIB,
  kvBytesPerToken,
  kvBytesPerTokenPerRank,
  kvCapacityTokens,
  memoryBudgetBytes,
  memoryPlan,
  type Parallelism,
  stateBytesPerSeqPerRank,
  weightBytes,
  weightBytesPerParam,
  weightBytesPerRank,
  weightSplit,
} from './memory.ts';

const par = (tp: number, over: Partial<Parallelism> = {}): Parallelism => ({
  tp,
  pp: 1,
  ep: 1,
  dpAttn: false,
  ...over,
});

describe('bytes per parameter', () => {
  it('prices bf16, fp8 and fp4 with its block scales', () => {
    expect(BYTES_PER_PARAM).toEqual({ bf16: 2, fp8: 1, fp4: 0.5625 });
  });
});

describe('Llama-3.1-8B bf16 TP1 on H100', () => {
  const m = model('meta-llama/Llama-3.1-8B-Instruct');
  const h100 = accelerator('h100');

  it('weights ≈ 16 GB, all on the one rank', () => {
    expect(weightBytes(m, 'bf16')).toBeCloseTo(16.06e9, -6);
    expect(weightBytesPerRank(m, 'bf16', par(1))).toBe(weightBytes(m, 'bf16'));
    expect(weightSplit(m)).toEqual({ routedB: 0, otherB: 8.03 });
  });

  it('KV per token = 32 layers · 2 · 8 heads · 128 · 2 B = 131072 B', () => {
    expect(kvBytesPerToken(m, 'bf16')).toBe(131072);
    expect(kvBytesPerTokenPerRank(m, 'bf16', par(1))).toBe(131072);
    expect(kvBytesPerToken(m, 'fp8')).toBe(65536);
  });

  it('KV capacity = (0.9 · 80 GiB − 16.06 GB − reserve) / 131072 B', () => {
    const budget = 0.9 * 80 * GIB;
    expect(memoryBudgetBytes(h100, 0.9)).toBe(budget);
    const expected = Math.trunc((budget - 16.06e9 - DEFAULT_RESERVE_GIB * GIB) / 131072);
    const opts = { precision: 'bf16', kvPrecision: 'bf16', par: par(1), gpuMemoryUtilization: 0.9 } as const;
    expect(kvCapacityTokens(h100, m, opts)).toBe(expected);
    expect(expected).toBeGreaterThan(350_000);
    // A smaller reserve leaves more room, GiB for GiB.
    expect(kvCapacityTokens(h100, m, { ...opts, reserveGiB: 2 })).toBe(
      Math.trunc((budget - 16.06e9 - 2 * GIB) / 131072),
    );
  });

  it('splits GQA heads over TP and replicates them beyond kvHeads', () => {
    expect(kvBytesPerTokenPerRank(m, 'bf16', par(2))).toBe(131072 / 2);
    expect(kvBytesPerTokenPerRank(m, 'bf16', par(8))).toBe(131072 / 8);
    // tp 16 > 8 KV heads: each rank still holds one whole head.
    expect(kvBytesPerTokenPerRank(m, 'bf16', par(16))).toBe(131072 / 8);
    // Layers split over pipeline stages.
    expect(kvBytesPerTokenPerRank(m, 'bf16', par(1, { pp: 2 }))).toBe(131072 / 2);
    // dp-attn: a rank keeps every head of its own sequences.
    expect(kvBytesPerTokenPerRank(m, 'bf16', par(4, { dpAttn: true }))).toBe(131072);
  });
});

describe('DeepSeek-R1 fp8 TP8 (MLA)', () => {
  const m = model('dsr1');

  it('KV per token per rank = 61 · 576 · 1 B on every TP rank', () => {
    expect(kvBytesPerToken(m, 'fp8')).toBe(61 * 576);
    expect(kvBytesPerTokenPerRank(m, 'fp8', par(8))).toBe(61 * 576);
    expect(kvBytesPerTokenPerRank(m, 'fp8', par(8, { ep: 8, dpAttn: true }))).toBe(61 * 576);
    expect(kvBytesPerTokenPerRank(m, 'bf16', par(4, { pp: 2 }))).toBe(31 * 576 * 2);
  });

  it('splits routed experts from the rest within 1% of the config.json count (58·256·3·7168·2048)', () => {
    const { routedB, otherB } = weightSplit(m);
    expect(routedB / ((58 * 256 * 3 * 7168 * 2048) / 1e9)).toBeCloseTo(1, 2);
    expect(routedB + otherB).toBeCloseTo(671, 6);
  });

  it('holds 1/8 of the checkpoint per rank under TP8, and the same with EP8', () => {
    const whole = weightBytes(m, 'fp8');
    expect(whole).toBeCloseTo(671e9, -6);
    expect(weightBytesPerRank(m, 'fp8', par(8))).toBeCloseTo(whole / 8, -3);
    expect(weightBytesPerRank(m, 'fp8', par(8, { ep: 8 }))).toBeCloseTo(whole / 8, -3);
  });

  it('replicates the non-expert weights on every rank with dp-attn', () => {
    const { routedB, otherB } = weightSplit(m);
    expect(weightBytesPerRank(m, 'fp8', par(8, { ep: 8, dpAttn: true }))).toBeCloseTo(
      (routedB / 8 + otherB) * 1e9,
      -3,
    );
  });

  it('sums KV capacity over the dp-attn ranks', () => {
    const h200 = accelerator('h200');
    const opts = { precision: 'fp8', kvPrecision: 'fp8', gpuMemoryUtilization: 0.9 } as const;
    const tp = memoryPlan(h200, m, { ...opts, par: par(8) });
    const dpa = memoryPlan(h200, m, { ...opts, par: par(8, { ep: 8, dpAttn: true }) });
    expect(tp.fits && dpa.fits).toBe(true);
    expect(tp.kvTokens).toBe(tp.kvTokensPerRank);
    expect(dpa.kvTokens).toBe(dpa.kvTokensPerRank * 8);
    // Same per-token cost, less room per rank (replicated attention), eight times the ranks.
    expect(dpa.kvTokensPerRank).toBeLessThan(tp.kvTokensPerRank);
    expect(dpa.kvTokens).toBeGreaterThan(tp.kvTokens);
  });
});

describe('DeepSeek-V4-Pro fp4 on MI355X: TP2 does not fit, TP4 does', () => {
  const m = model('deepseek-ai/DeepSeek-V4-Pro');
  const mi355x = accelerator('mi355x');
  const opts = { precision: 'fp4', kvPrecision: 'fp8', gpuMemoryUtilization: 0.9 } as const;

  it('matches the reference config: "806G/4 = 201G/GPU" of weights at TP4, within 6%', () => {
    const perRankGiB = weightBytesPerRank(m, 'fp4', par(4)) / GIB;
    expect(perRankGiB / (806 / 4)).toBeGreaterThan(1);
    expect(perRankGiB / (806 / 4)).toBeLessThan(1.06);
  });

  it('TP2: weights per rank exceed the 0.9 budget; the plan reports the missing headroom', () => {
    const plan = memoryPlan(mi355x, m, { ...opts, par: par(2) });
    expect(plan.budgetBytes).toBe(0.9 * 288 * GIB);
    expect(plan.weightBytesPerRank).toBeGreaterThan(plan.budgetBytes);
    expect(plan.fits).toBe(false);
    expect(plan.kvBytesPerRank).toBe(plan.budgetBytes - plan.weightBytesPerRank - plan.reserveBytes);
    expect(plan.kvBytesPerRank).toBeLessThan(0);
    expect(plan.kvTokens).toBeLessThanOrEqual(0);
    expect(kvCapacityTokens(mi355x, m, { ...opts, par: par(2) })).toBe(plan.kvTokens);
  });

  it('TP4: fits with room for KV', () => {
    const plan = memoryPlan(mi355x, m, { ...opts, par: par(4) });
    expect(plan.weightBytesPerRank).toBeLessThan(plan.budgetBytes);
    expect(plan.fits).toBe(true);
    expect(plan.kvBytesPerRank).toBeGreaterThan(30 * GIB);
    // 9 full-layer equivalents of one 512-wide fp8 row: 4,608 B per token on every rank.
    expect(plan.kvBytesPerTokenPerRank).toBe(9 * 512);
    expect(plan.kvTokens).toBe(Math.trunc(plan.kvBytesPerRank / (9 * 512)));
  });
});

describe('checkpoint sizes against the reference config comments', () => {
  it.each([
    // [model, precision, stated size in GB, tolerance]
    ['kimik3', 'fp4', 1560, 0.05], // "the 1.56 TB MXFP4 checkpoint"
    ['glm5.2', 'fp4', 433, 0.05], // "the ~433 GB NVFP4 checkpoint"
    ['minimaxm3', 'fp4', 250, 0.05], // "the ~250 GB NVFP4 checkpoint"
  ] as const)('%s at %s ≈ %d GB', (name, precision, gb, tol) => {
    expect(Math.abs(weightBytes(model(name), precision) / 1e9 / gb - 1)).toBeLessThan(tol);
  });

  it('Kimi-K3 fp4 does not fit TP8 on B200 and fits TP8 on MI355X, as the configs say', () => {
    const m = model('kimik3');
    const opts = { precision: 'fp4', kvPrecision: 'bf16', par: par(8), gpuMemoryUtilization: 0.9 } as const;
    expect(memoryPlan(accelerator('b200'), m, opts).fits).toBe(false);
    expect(memoryPlan(accelerator('cluster:mi355x-amds'), m, opts).fits).toBe(true);
    // TP8 x PP2 over two B200 nodes fits.
    expect(memoryPlan(accelerator('b200'), m, { ...opts, par: par(8, { pp: 2 }) }).fits).toBe(true);
  });
});

describe('expert parallelism', () => {
  it('holds routed / max(tp, ep) experts per rank and splits the rest over tp', () => {
    const m = model('qwen3.5');
    const { routedB, otherB } = weightSplit(m);
    const fp8 = (b: number) => b * 1e9;
    expect(weightBytesPerRank(m, 'fp8', par(4, { ep: 4 }))).toBeCloseTo(fp8(routedB / 4 + otherB / 4), -3);
    expect(weightBytesPerRank(m, 'fp8', par(4, { ep: 2 }))).toBeCloseTo(fp8(routedB / 4 + otherB / 4), -3);
    expect(weightBytesPerRank(m, 'fp8', par(8, { ep: 16 }))).toBeCloseTo(fp8(routedB / 16 + otherB / 8), -3);
  });

  it('charges fp4 to routed experts and fp8 to the rest of an fp4 MoE checkpoint', () => {
    const m = model('dsr1');
    const { routedB, otherB } = weightSplit(m);
    expect(weightBytes(m, 'fp4')).toBeCloseTo((routedB * 0.5625 + otherB) * 1e9, -3);
    expect(weightBytesPerParam(m, 'fp4')).toEqual({ routed: 0.5625, other: 1 });
    expect(weightBytesPerParam(m, 'bf16')).toEqual({ routed: 2, other: 2 });
    // A dense model at fp4 is fp4 throughout.
    const dense = model('llama3.3-70b');
    expect(weightBytes(dense, 'fp4')).toBeCloseTo(70.6e9 * 0.5625, -3);
    expect(weightBytesPerParam(dense, 'fp4')).toEqual({ routed: 0.5625, other: 0.5625 });
  });
});

describe('hybrid and per-sequence state', () => {
  it('counts only the full-attention layers of Qwen3.5 in KV and splits its linear-attention state', () => {
    const m = model('qwen3.5');
    expect(kvBytesPerToken(m, 'bf16')).toBe(15 * 2 * 2 * 256 * 2);
    expect(stateBytesPerSeqPerRank(m, par(4))).toBe(m.stateBytesPerSeq / 4);
    expect(stateBytesPerSeqPerRank(m, par(4, { dpAttn: true }))).toBe(m.stateBytesPerSeq);
  });
});

describe('argument checks', () => {
  it('rejects utilization outside (0, 1] and non-positive parallelism', () => {
    const m = model('dsr1');
    expect(() => memoryBudgetBytes(accelerator('h100'), 0)).toThrow(RangeError);
    expect(() => memoryBudgetBytes(accelerator('h100'), 1.2)).toThrow(RangeError);
    expect(() => weightBytesPerRank(m, 'fp8', par(0))).toThrow(/tp must be an integer >= 1/);
    expect(() => kvBytesPerTokenPerRank(m, 'fp8', par(8, { pp: 1.5 }))).toThrow(/pp must be/);
  });
});
