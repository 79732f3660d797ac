import { describe, expect, it } from 'vitest';
import { accelerator, model } from '../../catalog/index.ts';
import { weightSplit } from '../../catalog/memory.ts';
import { expectedMaxOfNormals } from './dp-share.ts';
import {
  ATTENTION_EFFICIENCY,
  GEMM_EFFICIENCY,
  LINK_EFFICIENCY,
  MLA_DECODE_EFFICIENCY,
} from './perf-constants.ts';
import { PerfModel } from './perf-model.ts';
import { Prng } from './prng.ts';

/**
 * DP-attention and expert parallelism in the step model: the busiest DP rank's share of the sequences (a
 * seeded random assignment, not perfect balance), the busiest expert-parallel rank's share of the routed
 * tokens, and MLA's decode attention in its absorbed form.
 */

const dsr1 = model('dsr1');
const h200 = accelerator('h200');
const perf = (par: { tp: number; ep: number; dpAttn: boolean }) =>
  new PerfModel({
    model: dsr1,
    accelerator: h200,
    precision: 'fp8',
    kvPrecision: 'fp8',
    par: { ...par, pp: 1 },
  });
const dep8 = perf({ tp: 8, ep: 8, dpAttn: true });
const tp8 = perf({ tp: 8, ep: 1, dpAttn: false });

describe('DP-attention load imbalance', () => {
  it('is 1 without DP-attention, and a lone sequence puts all its work on one of the 8 ranks', () => {
    expect(tp8.dpImbalance(1)).toBe(1);
    expect(tp8.dpImbalance(5000)).toBe(1);
    expect(dep8.dpImbalance(1)).toBe(8);
  });

  it('shrinks as the ranks fill, stays above perfect balance, and is the same every time (seeded)', () => {
    const f = [8, 64, 512, 1024, 4096, 16384].map((s) => dep8.dpImbalance(s));
    for (let i = 1; i < f.length; i++) expect(f[i]).toBeLessThan(f[i - 1]!);
    for (const v of f) expect(v).toBeGreaterThan(1);
    expect(perf({ tp: 8, ep: 8, dpAttn: true }).dpImbalance(64)).toBe(f[1]);
    // Above the simulated range: mean + E[max of 8 normals] · sd over the mean (E[max] = 1.4236 for 8).
    expect(expectedMaxOfNormals(8)).toBeCloseTo(1.4236, 3);
    expect(expectedMaxOfNormals(2)).toBeCloseTo(1 / Math.sqrt(Math.PI), 4);
    expect(dep8.dpImbalance(16384)).toBeCloseTo(1 + 1.4236 * Math.sqrt(7 / 8 / 2048), 4);
    // The seeded simulation and the estimate meet where one hands over to the other.
    expect(Math.abs(dep8.dpImbalance(1024) / dep8.dpImbalance(1025) - 1)).toBeLessThan(0.02);
  });

  it('charges the busiest rank: one sequence on DEP8 reads its whole KV cache on one rank', () => {
    const one = dep8.breakdown([{ newTokens: 1, context: 4096 }]);
    const eight = dep8.breakdown(Array.from({ length: 8 }, () => ({ newTokens: 1, context: 4096 })));
    // Eight sequences spread over eight ranks read no more per rank than one sequence on one rank, up to the
    // routed experts their tokens touch, which grow with the tokens.
    expect(one.memoryMs).toBeGreaterThan(0);
    expect(eight.memoryMs / one.memoryMs).toBeLessThan(dep8.dpImbalance(8) * 1.6);
  });
});

describe("DP-attention: a prefill chunk runs on its request's rank", () => {
  const decodes = Array.from({ length: 128 }, () => ({ newTokens: 1, context: 2048 }));
  const chunks = (n: number, tokens: number) =>
    Array.from({ length: n }, () => ({ newTokens: tokens, context: 0 }));

  it("puts a lone chunk's tokens on one rank, spreads several over the ranks", () => {
    // One chunk on 8 ranks: the busiest holds all of it, 7/8 above the mean.
    expect(dep8.prefillExcess(1024, 1)).toBeCloseTo(1024 - 128, 9);
    // Eight chunks: the busiest rank of a seeded random assignment holds more than one.
    const spread = dep8.prefillExcess(1024, 8);
    expect(spread).toBeGreaterThan(0);
    expect(spread).toBeLessThan(dep8.prefillExcess(1024, 1));
  });

  it('adds nothing while prompts wait: every rank then has prompts of its own', () => {
    const step = [...decodes, ...chunks(8, 1024)];
    expect(dep8.breakdown(step, 0, 3).computeMs).toBeLessThan(dep8.breakdown(step, 0, 0).computeMs);
    // Queued or not is all the same without DP-attention.
    expect(tp8.breakdown(step, 0, 3)).toEqual(tp8.breakdown(step, 0, 0));
  });

  it("charges the busiest rank's extra tokens: its non-expert GEMMs, prefill attention and dispatch", () => {
    const alone = dep8.breakdown([...decodes, ...chunks(1, 1024)]);
    const even = dep8.breakdown([...decodes, ...chunks(8, 128)]);
    // The same prompt tokens (fewer attention pairs when cut into 8) cost more as one chunk on one rank.
    expect(alone.computeMs).toBeGreaterThan(even.computeMs);
    expect(alone.commMs).toBeGreaterThan(even.commMs);
    // Exactly: with a prompt left waiting there is no excess (the work is spread), so the difference is the
    // 896 excess tokens' non-expert GEMMs and their dispatch. A lone chunk is the step's only sequence, so the
    // busiest-by-sequences share already puts all its attention on one rank: none is added.
    const a = dsr1.attention;
    const moe = dsr1.moe;
    if (a.kind !== 'MLA' || !moe) throw new Error('DeepSeek-R1 is MoE with MLA');
    const lone = dep8.breakdown(chunks(1, 1024));
    const capped = dep8.breakdown(chunks(1, 1024), 0, 1);
    const excess = 1024 - 128;
    const routedActive = (weightSplit(dsr1).routedB * 1e9 * moe.activeExperts) / moe.experts;
    const gemmRate = (h200.denseTflops.fp8 ?? 0) * 1e12 * GEMM_EFFICIENCY.fp8;
    const gemm = (2 * (dsr1.activeParamsB * 1e9 - routedActive) * excess) / gemmRate;
    expect(lone.computeMs - capped.computeMs).toBeCloseTo(gemm * 1000, 9);
    // Beside 128 decodes the chunk's rank holds few of the sequences: its attention beyond that share is added.
    const attnRate = h200.denseTflops.bf16 * 1e12 * ATTENTION_EFFICIENCY;
    const perPair =
      (2 * (a.kvLoraRank / 4 + a.ropeHeadDim) + 2 * (a.kvLoraRank / 4)) * a.heads * dsr1.kvLayers;
    const attn = (perPair * 1024 * (1025 / 2)) / attnRate;
    const spread = dep8.breakdown([...decodes, ...chunks(1, 1024)], 0, 1);
    const added = ((8 - dep8.dpImbalance(129)) / 8) * attn + gemm;
    expect(alone.computeMs - spread.computeMs).toBeCloseTo(added * 1000, 9);
    const link = h200.scaleUp.bandwidthGBs * 1e9 * LINK_EFFICIENCY;
    const dispatch = (excess * moe.activeExperts * dsr1.hiddenSize * 3 * (7 / 8)) / link;
    expect(lone.commMs - capped.commMs).toBeCloseTo(dispatch * 1000 * dsr1.layers, 9);
  });

  it('not on TensorRT-LLM, whose attention-DP balancer gives every rank a context at once', () => {
    const trt = new PerfModel({
      model: dsr1,
      accelerator: h200,
      precision: 'fp8',
      kvPrecision: 'fp8',
      par: { tp: 8, ep: 8, pp: 1, dpAttn: true },
      family: 'trt',
    });
    const other = new PerfModel({ ...trt.setup, family: 'sglang' });
    const step = [...decodes, ...chunks(1, 1024)];
    expect(trt.breakdown(step).computeMs).toBeLessThan(other.breakdown(step).computeMs);
    // With no prefill in the step the families differ only in the all-reduce latency, which DEP8 has none of.
    expect(trt.breakdown(decodes).computeMs).toBe(other.breakdown(decodes).computeMs);
  });

  it('leaves a step without prefill chunks alone', () => {
    // Decodes spread as before (the sequence imbalance above); no chunk, no excess, queued or not.
    expect(dep8.breakdown(decodes, 0, 0)).toEqual(dep8.breakdown(decodes, 0, 5));
  });
});

describe('expert-parallel load imbalance', () => {
  it('is 1 without EP, above 1 with it, shrinking with the tokens and capped for a single token', () => {
    expect(tp8.expertImbalance(4096)).toBe(1);
    const f = [1, 64, 4096, 65536].map((t) => dep8.expertImbalance(t));
    for (let i = 1; i < f.length; i++) expect(f[i]).toBeLessThan(f[i - 1]!);
    expect(f[3]).toBeGreaterThan(1);
    // A token picks 8 of 256 experts, 32 per rank: at most all 8 land on one rank, 8× the mean of 1.
    expect(f[0]).toBeLessThanOrEqual(8);
  });
});

describe("the busiest expert-parallel rank's expert reads", () => {
  /** Seeded: tokens each pick topK distinct experts; the mean over trials of the busiest rank's touched share. */
  function simulated(tokens: number, ep: number, trials = 400): number {
    const rng = new Prng(tokens * 64 + ep);
    const experts = 256;
    const perRank = experts / ep;
    let sum = 0;
    const touched = new Uint8Array(experts);
    for (let t = 0; t < trials; t++) {
      touched.fill(0);
      for (let i = 0; i < tokens; i++) {
        let picked = 0;
        while (picked < 8) {
          const e = Math.floor(rng.next() * experts);
          if (touched[e] === 2) continue; // this token already picked it (2: this token's, 1: an earlier one's)
          touched[e] = 2;
          picked++;
        }
        for (let e = 0; e < experts; e++) if (touched[e] === 2) touched[e] = 1;
      }
      let max = 0;
      for (let r = 0; r < ep; r++) {
        let n = 0;
        for (let e = r * perRank; e < (r + 1) * perRank; e++) n += touched[e]!;
        if (n > max) max = n;
      }
      sum += max / perRank;
    }
    return sum / trials;
  }

  it('follows a seeded simulation of the routing within 4 % at small and large batches', () => {
    for (const [tokens, ep] of [
      [8, 8],
      [32, 8],
      [64, 8],
      [256, 8],
      [32, 4],
    ] as const) {
      const m = perf({ tp: 8, ep, dpAttn: false });
      expect(Math.abs(m.expertFraction(tokens) / simulated(tokens, ep) - 1)).toBeLessThan(0.04);
    }
  });

  it('is the plain touched fraction without EP, and all of a rank once every expert is hit', () => {
    expect(tp8.expertFraction(32)).toBeCloseTo(1 - (1 - 8 / 256) ** 32, 12);
    expect(dep8.expertFraction(100000)).toBeCloseTo(1, 6);
  });
});

describe("MLA's decode attention", () => {
  it('is the absorbed form: 2·(kvLoraRank + rope) + 2·kvLoraRank FLOPs per pair and head, at its own efficiency', () => {
    const a = dsr1.attention;
    if (a.kind !== 'MLA') throw new Error('DeepSeek-R1 is MLA');
    const seqs = 256;
    const context = 8192;
    const b = tp8.breakdown(Array.from({ length: seqs }, () => ({ newTokens: 1, context })));
    const pairs = seqs * (context + 1);
    const attn =
      ((2 * (a.kvLoraRank + a.ropeHeadDim) + 2 * a.kvLoraRank) * a.heads * dsr1.kvLayers * pairs) /
      8 /
      (h200.denseTflops.bf16 * 1e12 * MLA_DECODE_EFFICIENCY);
    const gemm =
      (2 * dsr1.activeParamsB * 1e9 * seqs) / 8 / ((h200.denseTflops.fp8 ?? 0) * 1e12 * GEMM_EFFICIENCY.fp8);
    expect(b.computeMs).toBeCloseTo((attn + gemm) * 1000, 9);
    // A prefill chunk of the same pairs runs the non-absorbed form: 128-wide heads, the attention efficiency.
    const chunk = tp8.breakdown([{ newTokens: 512, context: 0 }]);
    const prefillPairs = 512 * (513 / 2);
    const prefillAttn =
      ((2 * (a.kvLoraRank / 4 + a.ropeHeadDim) + 2 * (a.kvLoraRank / 4)) *
        a.heads *
        dsr1.kvLayers *
        prefillPairs) /
      8 /
      (h200.denseTflops.bf16 * 1e12 * ATTENTION_EFFICIENCY);
    const prefillGemm =
      (2 * dsr1.activeParamsB * 1e9 * 512) / 8 / ((h200.denseTflops.fp8 ?? 0) * 1e12 * GEMM_EFFICIENCY.fp8);
    expect(chunk.computeMs).toBeCloseTo((prefillAttn + prefillGemm) * 1000, 9);
  });
});

describe("a step's two kinds of kernels", () => {
  const decodes = (seqs: number, context: number) =>
    dep8.breakdown(Array.from({ length: seqs }, () => ({ newTokens: 1, context })));

  it('add up: attention bound by its FLOPs does not hide behind the GEMMs bound by their weight reads', () => {
    // DEP8 on H200: each rank's MLA decode over its own sequences is compute-bound, the experts memory-bound.
    const b = decodes(256, 8192);
    expect(b.attentionPhaseMs).toBeGreaterThan(0);
    expect(b.computeBoundMs).toBeCloseTo(b.attentionPhaseMs, 9);
    expect(b.memoryBoundMs).toBeCloseTo(b.gemmPhaseMs, 9);
    const core = b.gemmPhaseMs + b.attentionPhaseMs;
    expect(b.totalMs).toBeCloseTo(core + b.commMs + b.floorMs + b.eagerMs + b.draftMs + b.overheadMs, 9);
    // One max over the sums would have been shorter.
    expect(core).toBeGreaterThan(Math.max(b.computeMs, b.memoryMs) * 1.05);
  });

  it('longer contexts lengthen only the attention phase', () => {
    const short = decodes(256, 2048);
    const long = decodes(256, 8192);
    expect(long.gemmPhaseMs).toBeCloseTo(short.gemmPhaseMs, 9);
    expect(long.attentionPhaseMs).toBeGreaterThan(3 * short.attentionPhaseMs);
  });

  it('a lone decode reads more than it computes in both phases', () => {
    const b = tp8.breakdown([{ newTokens: 1, context: 1024 }]);
    expect(b.computeBoundMs).toBe(0);
    expect(b.memoryBoundMs).toBeCloseTo(b.gemmPhaseMs + b.attentionPhaseMs, 9);
  });
});

describe('FP4 MoE checkpoints', () => {
  it('run the routed experts at the FP4 rate and the rest (attention, shared experts) at FP8', () => {
    const b200 = accelerator('b200');
    const fp4 = (precision: 'fp4' | 'fp8') =>
      new PerfModel({
        model: dsr1,
        accelerator: b200,
        precision,
        kvPrecision: 'fp8',
        par: { tp: 8, ep: 1, pp: 1, dpAttn: false },
      });
    const moe = dsr1.moe!;
    const routed = (weightSplit(dsr1).routedB * 1e9 * moe.activeExperts) / moe.experts;
    const other = dsr1.activeParamsB * 1e9 - routed;
    const rate = (p: 'fp4' | 'fp8') => (b200.denseTflops[p] ?? 0) * 1e12 * GEMM_EFFICIENCY[p];
    // 4096 tokens of decode width (no attention pairs to speak of): the step's compute is its GEMMs.
    const tokens = Array.from({ length: 4096 }, () => ({ newTokens: 1, context: 0 }));
    const gemm = ((2 * 4096) / 8) * (other / rate('fp8') + routed / rate('fp4'));
    const attnPairs = 4096 * 1;
    const a = dsr1.attention;
    if (a.kind !== 'MLA') throw new Error('DeepSeek-R1 is MLA');
    const attn =
      ((2 * (a.kvLoraRank + a.ropeHeadDim) + 2 * a.kvLoraRank) * a.heads * dsr1.kvLayers * attnPairs) /
      8 /
      (b200.denseTflops.bf16 * 1e12 * MLA_DECODE_EFFICIENCY);
    expect(fp4('fp4').breakdown(tokens).computeMs).toBeCloseTo((gemm + attn) * 1000, 9);
    // Slower than if every GEMM ran at FP4, faster than FP8 weights throughout.
    expect(fp4('fp4').breakdown(tokens).computeMs).toBeLessThan(fp4('fp8').breakdown(tokens).computeMs);
    expect(gemm).toBeGreaterThan(((2 * 4096) / 8) * ((other + routed) / rate('fp4')));
  });
});
