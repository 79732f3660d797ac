import { describe, expect, it } from 'vitest';
import { dsr1H200Row } from '../../../test/rows.ts';
import type { MatrixRow } from '../../schema/matrix-row.ts';
import { setupFromRow } from '../serve/setup-from.ts';
import type { SimSetup } from './config.ts';
import { resolveSim } from './config.ts';
import { explainPoint, formatExplain } from './explain.ts';
import { predictRows, setupOfRow, singleEngineAt } from './rows.ts';
import {
  trtAdpTimeoutIters,
  trtCudaGraphBatch,
  trtKvMemoryFraction,
  trtPiecewiseCudaGraphs,
  trtScriptBudget,
} from './trt-recipe.ts';

type Row = Record<string, unknown>;
const b200 = (over: Row = {}): Row => ({
  ...dsr1H200Row(),
  model: 'nvidia/DeepSeek-R1-0528-FP4-V2',
  framework: 'trt',
  runner: 'b200',
  precision: 'fp4',
  isl: 1024,
  osl: 1024,
  tp: 8,
  ep: 8,
  ...over,
});

describe("piecewise CUDA graphs where the reference's TensorRT-LLM scripts turn them on", () => {
  it('follows the DeepSeek-R1 B200 scripts per precision, MTP, DP-attention, lengths and users', () => {
    expect(trtPiecewiseCudaGraphs(b200(), 64)).toMatch(/dsr1_fp4_b200_trt\.sh/);
    expect(trtPiecewiseCudaGraphs(b200({ ep: 1 }), 64)).toBeNull();
    expect(trtPiecewiseCudaGraphs(b200({ isl: 8192 }), 64)).toBeNull();
    const mtp = b200({ 'spec-decoding': 'mtp' });
    expect(trtPiecewiseCudaGraphs(mtp, 32)).not.toBeNull();
    expect(trtPiecewiseCudaGraphs(mtp, 256)).toBeNull();
    expect(trtPiecewiseCudaGraphs({ ...mtp, 'dp-attn': true }, 128)).toBeNull();
    expect(trtPiecewiseCudaGraphs({ ...mtp, 'dp-attn': false }, 128)).not.toBeNull();
    const fp8 = b200({ model: 'deepseek-ai/DeepSeek-R1-0528', precision: 'fp8' });
    expect(trtPiecewiseCudaGraphs(fp8, 32)).toBeNull();
    expect(trtPiecewiseCudaGraphs({ ...fp8, isl: 8192 }, 64)).not.toBeNull();
    const fp8mtp = { ...fp8, 'spec-decoding': 'mtp' };
    expect(trtPiecewiseCudaGraphs(fp8mtp, 4)).toBeNull();
    expect(trtPiecewiseCudaGraphs(fp8mtp, 8)).not.toBeNull();
    expect(trtPiecewiseCudaGraphs({ ...fp8mtp, 'dp-attn': true }, 64)).toBeNull();
  });

  it('never on H200, other models, other engines or disaggregated rows', () => {
    expect(trtPiecewiseCudaGraphs(b200({ runner: 'h200', precision: 'fp8' }), 64)).toBeNull();
    expect(trtPiecewiseCudaGraphs(b200({ 'model-prefix': 'dsv4' }), 64)).toBeNull();
    expect(trtPiecewiseCudaGraphs(b200({ framework: 'sglang' }), 64)).toBeNull();
    expect(trtPiecewiseCudaGraphs({ ...b200(), prefill: {}, decode: {} }, 64)).toBeNull();
  });

  it('drops the eager floor of a step that carries a prompt, and the options can say otherwise', () => {
    const row = b200();
    const base = setupOfRow(row, {}, 'row 0', 64) as SimSetup;
    const on = singleEngineAt(base, row, 64, {});
    const off = singleEngineAt(base, row, 64, { piecewiseCudaGraphs: false });
    expect(on.piecewiseCudaGraphs).toBe(true);
    expect(off.piecewiseCudaGraphs).toBeUndefined();
    expect(resolveSim(on).perf.eagerMixedStepFloorMs).toBe(0);
    expect(resolveSim(off).perf.eagerMixedStepFloorMs).toBe(61);
    // Prompts among decodes cost less, so users see tokens sooner and faster.
    const [pw] = predictRows([{ ...row, conc: [64] }]);
    const [eager] = predictRows([{ ...row, conc: [64] }], { piecewiseCudaGraphs: false });
    if (pw?.status !== 'ok' || eager?.status !== 'ok') throw new Error('not predicted');
    expect(pw.prediction.interactivity).toBeGreaterThan(eager.prediction.interactivity);
  });

  it("takes a measurement's own token budget per DP rank from the options", () => {
    const dp = b200({ 'dp-attn': true, isl: 8192 });
    const base = setupOfRow(dp, {}, 'row 0', 64) as SimSetup;
    expect(singleEngineAt(base, dp, 64, { maxNumTokensPerRank: 1152 }).maxNumBatchedTokens).toBe(8 * 1152);
    const tp = setupOfRow(b200(), {}, 'row 0', 64) as SimSetup;
    expect(singleEngineAt(tp, b200(), 64, { maxNumTokensPerRank: 1152 }).maxNumBatchedTokens).toBe(1152);
    const text = formatExplain(explainPoint(dp, 64, { maxNumTokensPerRank: 1152 })).join('\n');
    expect(text).toMatch(
      /token budget: 9216 per step \(set by the options: max_num_tokens 1152 per DP rank\)/,
    );
  });

  it('is what `sim serve --point` (and a simulated sweep) runs for one point, as predict does', () => {
    const point = { ...b200({ 'spec-decoding': 'mtp', 'dp-attn': true }), conc: 64 } as unknown as MatrixRow;
    const served = setupFromRow(point) as SimSetup;
    expect(served.piecewiseCudaGraphs).toBe(true);
    expect(served.spec).toMatchObject({ draftTokens: 1 });
    // The MTP scripts' budget: ⌈((1 + 1) · 64 / 8 + 1024 + 64) / 64⌉ · 64 = 1152 per rank.
    expect(served.maxNumBatchedTokens).toBe(8 * 1152);
  });

  it('is what --explain says', () => {
    const text = formatExplain(explainPoint(b200(), 64)).join('\n');
    expect(text).toMatch(
      /CUDA graphs: decode batches up to 64 requests per rank \(trt: piecewise CUDA graphs, so steps that carry a prompt replay graphs too \(dsr1_fp4_b200_trt\.sh: 1k\/1k at TP8 EP8\); the reference's dsr1_fp4_b200_trt\.sh: cuda_graph_config\.max_batch_size conc\)/,
    );
    expect(text).not.toMatch(/runs a step that carries a prompt without CUDA graphs/);
    const eager = formatExplain(explainPoint(b200({ ep: 1 }), 64)).join('\n');
    expect(eager).toMatch(/runs a step that carries a prompt without CUDA graphs/);
  });
});

describe("the KV memory fraction of the reference's TensorRT-LLM scripts", () => {
  const h200 = (over: Row = {}): Row =>
    b200({ model: 'deepseek-ai/DeepSeek-R1-0528', runner: 'h200', precision: 'fp8', ...over });
  const fraction = (r: Row, conc = 64) => trtKvMemoryFraction(r, conc)?.fraction ?? null;

  it('follows each script by model, GPU, precision, MTP, DP-attention, layout and users', () => {
    expect(fraction(h200())).toBe(0.75);
    expect(fraction(h200({ 'spec-decoding': 'mtp', 'dp-attn': true }))).toBe(0.75);
    expect(fraction(b200())).toBe(0.8);
    const fp8 = b200({ model: 'deepseek-ai/DeepSeek-R1-0528', precision: 'fp8' });
    expect(fraction(fp8)).toBe(0.8);
    expect(fraction({ ...fp8, tp: 4, isl: 8192 })).toBe(0.75);
    expect(fraction({ ...fp8, 'spec-decoding': 'mtp', 'dp-attn': true })).toBe(0.7);
    expect(fraction({ ...fp8, 'spec-decoding': 'mtp' })).toBe(0.8);
    const dsv4 = b200({ 'model-prefix': 'dsv4', runner: 'b300' });
    expect(fraction(dsv4)).toBe(0.9);
    expect(fraction({ ...dsv4, 'dp-attn': true })).toBe(0.7);
    expect(fraction({ ...dsv4, 'dp-attn': true, 'spec-decoding': 'mtp' })).toBe(0.6);
    const qwen = b200({ 'model-prefix': 'qwen3.5', 'spec-decoding': 'mtp', isl: 8192, tp: 2, ep: 2 });
    expect(fraction(qwen)).toBe(0.6);
    expect(fraction({ ...qwen, tp: 4, ep: 1 })).toBe(0.8);
    expect(fraction({ ...qwen, 'dp-attn': true, tp: 8, ep: 8 }, 512)).toBe(0.9);
    expect(fraction({ ...qwen, 'dp-attn': true, tp: 8, ep: 8 }, 1024)).toBe(0.8);
    expect(trtKvMemoryFraction(h200(), 64)?.reason).toBe('dsr1_fp8_h200_trt.sh: 0.75');
  });

  it('leaves other engines, other models and disaggregated workers at the default', () => {
    expect(fraction(h200({ framework: 'vllm' }))).toBeNull();
    expect(fraction(b200({ 'model-prefix': 'kimik2.5' }))).toBeNull();
    expect(fraction({ ...h200(), prefill: {}, decode: {} })).toBeNull();
  });

  it('sizes the KV pool, unless the options give a fraction, and --explain says whose it is', () => {
    const row = h200({ isl: 8192 });
    const base = setupOfRow(row, {}, 'row 0', 64) as SimSetup;
    const script = singleEngineAt(base, row, 64, {});
    const given = singleEngineAt(base, row, 64, { gpuMemoryUtilization: 0.9 });
    expect(script.gpuMemoryUtilization).toBe(0.75);
    expect(given.gpuMemoryUtilization).toBeUndefined();
    // A share of what the weights and the reserve leave: the pools are in the fractions' ratio.
    const pool = (s: SimSetup) => resolveSim(s).plan.kvBytesPerRank;
    expect(pool(script) / pool({ ...given, gpuMemoryUtilization: 0.9 })).toBeCloseTo(0.75 / 0.9, 6);
    const text = formatExplain(explainPoint(row, 64)).join('\n');
    expect(text).toMatch(
      /\(0\.75 of the memory free after weights: .*the reference's dsr1_fp8_h200_trt\.sh: 0\.75\)/,
    );
    const flag = formatExplain(explainPoint(row, 64, { gpuMemoryUtilization: 0.85 })).join('\n');
    expect(flag).toMatch(/\(0\.85 of the memory free after weights: .*; --gpu-memory-utilization\)/);
  });
});

describe("the token budget and balancer timeout of the reference's TensorRT-LLM scripts", () => {
  const row = (over: Row = {}): Row => b200({ isl: 8192, osl: 1024, ...over });
  const budget = (r: Row, conc: number, drafts = 0) => trtScriptBudget(r, conc, drafts)?.perRank ?? null;

  it('takes max_num_tokens per script: DeepSeek-R1, DeepSeek-V4 and Qwen3.5, with and without MTP', () => {
    // DeepSeek-R1: ⌈(conc + ISL + 64) / 64⌉ · 64, at least 8192; with MTP ⌈((k + 1) · batch + ISL + 64) / 64⌉ · 64.
    expect(budget(row(), 4)).toBe(8320);
    expect(budget(row({ isl: 1024 }), 256)).toBe(8192);
    const mtp = row({ 'spec-decoding': 'mtp' });
    expect(budget(mtp, 32, 3)).toBe(Math.ceil((4 * 32 + 8192 + 64) / 64) * 64);
    expect(budget({ ...mtp, 'dp-attn': true }, 256, 1)).toBe(Math.ceil((2 * 32 + 8192 + 64) / 64) * 64);
    // DeepSeek-V4: ISL + 256, with MTP + (k + 1) · max(conc, 16), at least 8192.
    const dsv4 = row({ 'model-prefix': 'dsv4' });
    expect(budget(dsv4, 64)).toBe(8448);
    expect(budget({ ...dsv4, 'spec-decoding': 'mtp' }, 256, 2)).toBe(8192 + 3 * 256 + 256);
    expect(budget({ ...dsv4, isl: 1024, 'spec-decoding': 'mtp' }, 4, 3)).toBe(8192);
    // Qwen3.5: 32768 at 8k/1k, 16384 at 1k/1k.
    const qwen = row({ 'model-prefix': 'qwen3.5' });
    expect(budget(qwen, 64)).toBe(32768);
    expect(budget({ ...qwen, isl: 1024 }, 64)).toBe(16384);
    expect(budget(row({ framework: 'vllm' }), 64)).toBeNull();
    expect(budget(row({ 'model-prefix': 'kimik2.5' }), 64)).toBeNull();
  });

  it('is per DP rank in the engine, and --explain names the script', () => {
    const dp = row({ 'model-prefix': 'qwen3.5', 'dp-attn': true });
    const base = setupOfRow(dp, {}, 'row 0', 256) as SimSetup;
    expect(singleEngineAt(base, dp, 256, {}).maxNumBatchedTokens).toBe(8 * 32768);
    const text = formatExplain(explainPoint(dp, 256)).join('\n');
    expect(text).toMatch(
      /token budget: 262144 per step \(trt: the reference's qwen3\.5_fp4_b200_trt\.sh: max_num_tokens 32768 at 8k\/1k per DP rank \(× 8\)\)/,
    );
    expect(text).toMatch(
      /at most 500 steps \(attention_dp_config enable_balance, timeout_iters 500: the reference's qwen3\.5 scripts\)/,
    );
  });

  it("runs the balancer with each script's timeout, TensorRT-LLM's default where none is known", () => {
    const timeout = (r: Row) => (setupOfRow(r, {}, 'row 0', 64) as SimSetup).dpBalanceTimeoutSteps;
    expect(timeout(row({ 'dp-attn': true }))).toBe(60);
    expect(timeout(row({ 'dp-attn': true, 'model-prefix': 'qwen3.5' }))).toBe(500);
    expect(timeout(row({ 'dp-attn': true, 'model-prefix': 'dsv4' }))).toBe(50);
    expect(trtAdpTimeoutIters({ 'model-prefix': 'glm5' })).toEqual({
      steps: 50,
      reason: "TensorRT-LLM's default",
    });
  });
});

describe("the CUDA graph batch limit of the reference's TensorRT-LLM scripts", () => {
  const batch = (r: Row, conc: number) => trtCudaGraphBatch(r, conc)?.batch ?? null;

  it('per model, GPU, precision, MTP and DP-attention', () => {
    expect(batch(b200({ runner: 'h200', precision: 'fp8' }), 256)).toBe(128);
    expect(batch(b200(), 64)).toBe(64);
    expect(batch(b200({ 'dp-attn': true }), 256)).toBe(64);
    expect(batch(b200({ 'dp-attn': true }), 2)).toBe(2);
    const fp8 = b200({ model: 'deepseek-ai/DeepSeek-R1-0528', precision: 'fp8' });
    expect(batch({ ...fp8, 'dp-attn': true, 'spec-decoding': 'mtp' }, 256)).toBe(32);
    expect(batch({ ...fp8, 'dp-attn': true }, 256)).toBe(256);
    expect(batch(b200({ 'model-prefix': 'dsv4' }), 4)).toBe(16);
    expect(batch(b200({ 'model-prefix': 'dsv4', runner: 'b300' }), 2048)).toBe(1024);
    const qwen = b200({ 'model-prefix': 'qwen3.5' });
    expect(batch({ ...qwen, 'dp-attn': true }, 1024)).toBe(128);
    expect(batch({ ...qwen, tp: 2, ep: 2 }, 32)).toBe(32);
    expect(batch({ ...qwen, tp: 2, ep: 2 }, 8)).toBe(256);
    expect(batch({ ...qwen, 'spec-decoding': 'mtp', 'dp-attn': true }, 1024)).toBe(128);
    expect(batch(b200({ framework: 'vllm' }), 64)).toBeNull();
    expect(batch({ ...b200(), prefill: {}, decode: {} }, 64)).toBeNull();
  });
});
