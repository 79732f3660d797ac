import type { AcceleratorSpec, ModelSpec, Precision } from '../schema/catalog.ts';

/**
 * The one memory model shared by the simulated engine (src/sim) and the feasibility check (src/check).
 * It answers: how many bytes of weights does each rank hold, how many bytes of KV does one token cost on a
 * rank, and so how many tokens of KV fit. Every assumption is stated where it is made; the numbers are
 * calibrated against facts in the reference master configs (see the test file for the cases):
 *
 * - DeepSeek-V4-Pro FP4 on MI355X: "806G/4 = 201G/GPU" of weights at TP4 (we compute ~848 GiB / 212 GiB);
 * - Kimi-K3 MXFP4: "the 1.56 TB MXFP4 checkpoint is ~195 GB/GPU" at TP8 (we compute ~1.59 TB);
 * - GLM-5.2 NVFP4: "~433 GB checkpoint" (we compute ~426 GB); MiniMax-M3 NVFP4 "~250 GB" (we compute ~245 GB).
 *
 * Units: bytes everywhere; "GiB" is 2^30 bytes, "GB" 10^9.
 */

export const GIB = 2 ** 30;

export interface Parallelism {
  /** Tensor-parallel ranks (for dp-attn points: the attention data-parallel ranks as well). */
  tp: number;
  /** Pipeline stages; each holds 1/pp of the layers. */
  pp: number;
  /** Expert-parallel group size (1: experts are tensor-sharded over tp instead). */
  ep: number;
  /** Data-parallel attention: every rank runs attention for its own sequences with the full weights. */
  dpAttn: boolean;
}

/**
 * Weight bytes per parameter.
 * - bf16: 2.
 * - fp8: 1. Block scales (one fp32 per 128x128 block, or per channel) add < 0.03% and are ignored.
 * - fp4: 0.5 for the 4-bit values plus block scales: NVFP4 stores one FP8 (E4M3) scale per 16 values
 *   (+1/16 B), MXFP4 one E8M0 scale per 32 (+1/32 B). We charge the NVFP4 figure, 0.5625, for both: the
 *   larger of the two, so the feasibility check errs towards "does not fit" (MXFP4 checkpoints are ~5% smaller).
 * The same table prices KV-cache elements (fp8 KV scales are per tensor or per head: ignored).
 */
export const BYTES_PER_PARAM: Record<Precision, number> = { bf16: 2, fp8: 1, fp4: 0.5 + 1 / 16 };

/**
 * Activations, CUDA/HIP graphs, communication buffers, allocator slack, sampler state: memory inside the
 * gpu-memory-utilization budget that is neither weights nor KV. Engines measure it with a profiling run; it
 * grows with max-num-batched-tokens and the MoE workspace. 8 GiB is a middle value: vLLM profiles 1-3 GiB for
 * an 8B dense model at 8k batched tokens, while the reference configs record ~13 GiB for MiniMax-M3 on B200 at
 * TP2 (0.9 x 180 GiB budget - ~116 GiB weights - 31.7 GiB KV pool, EAGLE draft included). Pass `reserveGiB`
 * to override it per point.
 */
export const DEFAULT_RESERVE_GIB = 8;

/**
 * Splits a model's parameters into routed-expert parameters and the rest (attention, embeddings, dense
 * layers, shared experts, norms), in billions.
 *
 * From the MoE shape: active = other + routed * k / E (each token uses k of the E routed experts of a layer,
 * and all of the rest), and total = other + routed, so routed = (total - active) * E / (E - k).
 * This reproduces the routed count computed from config.json within 2% for DeepSeek-R1 (654.5B vs 653.0B),
 * DeepSeek-V4-Pro (1,576B vs 1,547B), Qwen3.5-397B (387.6B vs 386.5B) and Kimi-K3 (2,725B vs 2,723B).
 * Dense models (moe null) have no routed parameters.
 */
export function weightSplit(m: ModelSpec): { routedB: number; otherB: number } {
  if (m.moe === null || m.moe.activeExperts >= m.moe.experts) return { routedB: 0, otherB: m.totalParamsB };
  const { experts, activeExperts } = m.moe;
  const routed = ((m.totalParamsB - m.activeParamsB) * experts) / (experts - activeExperts);
  const routedB = Math.min(Math.max(routed, 0), m.totalParamsB);
  return { routedB, otherB: m.totalParamsB - routedB };
}

/**
 * Bytes per parameter of the two parts at a checkpoint precision. FP4 checkpoints of MoE models quantize the
 * routed experts only; attention, embeddings, dense layers and shared experts stay at fp8 (DeepSeek-V4's
 * native FP4+FP8 layout) or bf16 (NVIDIA ModelOpt NVFP4, Kimi-K3 MXFP4). We charge fp8 for them: those parts
 * are 1-7% of a large MoE, so the choice moves the total by at most ~4%. A dense model at fp4 is charged fp4
 * throughout (every linear layer is quantized; embeddings are a small error).
 */
export function weightBytesPerParam(m: ModelSpec, precision: Precision): { routed: number; other: number } {
  const routed = BYTES_PER_PARAM[precision];
  const other = precision === 'fp4' && m.moe !== null ? BYTES_PER_PARAM.fp8 : BYTES_PER_PARAM[precision];
  return { routed, other };
}

/** Bytes of the whole checkpoint at `precision` (language backbone; vision tower and MTP heads excluded). */
export function weightBytes(m: ModelSpec, precision: Precision): number {
  const { routedB, otherB } = weightSplit(m);
  const b = weightBytesPerParam(m, precision);
  return (routedB * b.routed + otherB * b.other) * 1e9;
}

function checkParallelism(par: Parallelism): void {
  for (const key of ['tp', 'pp', 'ep'] as const) {
    const v = par[key];
    if (!Number.isInteger(v) || v < 1)
      throw new RangeError(`parallelism ${key} must be an integer >= 1, got ${v}`);
  }
}

/**
 * Weight bytes one rank holds.
 * - Pipeline: a rank holds 1/pp of the layers (embeddings and lm_head, on the first and last stage, are
 *   spread evenly for simplicity).
 * - Routed experts: split over the EP group, and each expert tensor-sharded over the ranks left in the TP
 *   group (SGLang's moe_tp = tp / ep; vLLM without --enable-expert-parallel shards every expert over tp).
 *   Either way a rank holds routed / max(tp, ep): ep = 1 does not mean "replicated".
 * - Everything else: tensor-parallel over tp. With dp-attn every rank keeps a full copy instead. Attention is
 *   most of these weights in the MLA models that run dp-attn; the embeddings, dense layers and shared experts
 *   are replicated too in this model (engine flags such as SGLang's moe-dense-tp-size / dp-lm-head change
 *   that), so with dp-attn this is an upper bound.
 */
export function weightBytesPerRank(m: ModelSpec, precision: Precision, par: Parallelism): number {
  checkParallelism(par);
  const { routedB, otherB } = weightSplit(m);
  const b = weightBytesPerParam(m, precision);
  const routedShards = Math.max(par.tp, par.ep);
  const otherShards = par.dpAttn ? 1 : par.tp;
  return ((routedB * b.routed * 1e9) / routedShards + (otherB * b.other * 1e9) / otherShards) / par.pp;
}

/** KV elements one token adds to one layer: MLA latent + rope key, or K and V of every KV head. */
function kvElementsPerLayer(m: ModelSpec): number {
  const a = m.attention;
  return a.kind === 'MLA' ? a.kvLoraRank + a.ropeHeadDim : 2 * a.kvHeads * a.headDim;
}

/** Bytes of KV one token costs over all `kvLayers` of the model (no parallel split). */
export function kvBytesPerToken(m: ModelSpec, kvPrecision: Precision): number {
  return kvElementsPerLayer(m) * m.kvLayers * BYTES_PER_PARAM[kvPrecision];
}

/**
 * Bytes of KV one token costs on one rank.
 * - Layers: ceil(kvLayers / pp) on a stage (the largest stage bounds capacity).
 * - GQA/MHA: KV heads are split over tp, at least one per rank (ceil(kvHeads / tp): with tp > kvHeads each
 *   rank holds a replicated head, as vLLM and SGLang do).
 * - MLA: the latent has no head axis; every TP rank keeps the whole latent of every token (vLLM and SGLang).
 * - dp-attn: attention runs with TP 1 inside each data-parallel rank, so a rank holds the whole KV of its own
 *   sequences (but only those: see kvCapacityTokens).
 */
export function kvBytesPerTokenPerRank(m: ModelSpec, kvPrecision: Precision, par: Parallelism): number {
  checkParallelism(par);
  const layers = Math.ceil(m.kvLayers / par.pp);
  const a = m.attention;
  let elements: number;
  if (a.kind === 'MLA' || par.dpAttn) elements = kvElementsPerLayer(m);
  else elements = 2 * Math.ceil(a.kvHeads / par.tp) * a.headDim;
  return elements * layers * BYTES_PER_PARAM[kvPrecision];
}

/**
 * Fixed per-sequence state (linear-attention recurrent and conv state, sliding windows) on one rank: the
 * model's `stateBytesPerSeq` (bf16) split over tp like heads (not with dp-attn) and over pp like layers.
 */
export function stateBytesPerSeqPerRank(m: ModelSpec, par: Parallelism): number {
  checkParallelism(par);
  return m.stateBytesPerSeq / (par.dpAttn ? 1 : par.tp) / par.pp;
}

/** The engine's memory budget on one device: memoryGiB * 2^30 * gpu-memory-utilization. */
export function memoryBudgetBytes(acc: AcceleratorSpec, gpuMemoryUtilization: number): number {
  if (!(gpuMemoryUtilization > 0 && gpuMemoryUtilization <= 1)) {
    throw new RangeError(`gpuMemoryUtilization must be in (0, 1], got ${gpuMemoryUtilization}`);
  }
  return acc.memoryGiB * GIB * gpuMemoryUtilization;
}

export interface MemoryPlanOptions {
  /** Weight precision of the checkpoint. */
  precision: Precision;
  /** KV-cache precision (engines' --kv-cache-dtype; bf16 unless fp8 is asked for). */
  kvPrecision: Precision;
  par: Parallelism;
  /** Engine's gpu-memory-utilization (vLLM default 0.9). */
  gpuMemoryUtilization: number;
  /** Non-weight, non-KV memory per rank, GiB; default DEFAULT_RESERVE_GIB. */
  reserveGiB?: number;
  /**
   * What the utilization is a fraction of. total (default; vLLM's gpu-memory-utilization, SGLang's
   * mem-fraction-static): the budget is that share of the GPU's memory, weights and reserve inside it. free
   * (TensorRT-LLM's kv_cache_config.free_gpu_memory_fraction): the KV pool is that share of what the weights
   * and the reserve leave free.
   */
  fractionOf?: 'total' | 'free';
}

export interface MemoryPlan {
  /** memoryBudgetBytes on one rank. */
  budgetBytes: number;
  weightBytesPerRank: number;
  reserveBytes: number;
  /** budget - weights - reserve on one rank: the KV pool. Negative: the headroom missing, in bytes. */
  kvBytesPerRank: number;
  kvBytesPerTokenPerRank: number;
  /** Tokens of KV one rank can hold (negative when kvBytesPerRank is). */
  kvTokensPerRank: number;
  /** Tokens of KV the engine holds: one rank's worth under TP/PP, summed over the tp ranks with dp-attn. */
  kvTokens: number;
  /** True when at least one token of KV fits. */
  fits: boolean;
}

/**
 * The memory plan of one engine replica (tp * pp ranks of one accelerator type), assuming every rank has
 * the same budget and the largest pipeline stage bounds capacity.
 */
export function memoryPlan(acc: AcceleratorSpec, m: ModelSpec, opts: MemoryPlanOptions): MemoryPlan {
  const reserveGiB = opts.reserveGiB ?? DEFAULT_RESERVE_GIB;
  if (!(reserveGiB >= 0)) throw new RangeError(`reserveGiB must be >= 0, got ${reserveGiB}`);
  const weights = weightBytesPerRank(m, opts.precision, opts.par);
  const reserveBytes = reserveGiB * GIB;
  const total = memoryBudgetBytes(acc, 1);
  const budgetBytes =
    opts.fractionOf === 'free'
      ? weights + reserveBytes + opts.gpuMemoryUtilization * (total - weights - reserveBytes)
      : memoryBudgetBytes(acc, opts.gpuMemoryUtilization);
  const kvBytesPerRank = budgetBytes - weights - reserveBytes;
  const perToken = kvBytesPerTokenPerRank(m, opts.kvPrecision, opts.par);
  // A model without KV layers (pure linear attention) is bounded by its per-sequence state, not by tokens.
  const kvTokensPerRank =
    perToken > 0
      ? Math.trunc(kvBytesPerRank / perToken)
      : kvBytesPerRank > 0
        ? Number.POSITIVE_INFINITY
        : Number.NEGATIVE_INFINITY;
  const kvTokens = opts.par.dpAttn && kvTokensPerRank > 0 ? kvTokensPerRank * opts.par.tp : kvTokensPerRank;
  return {
    budgetBytes,
    weightBytesPerRank: weights,
    reserveBytes,
    kvBytesPerRank,
    kvBytesPerTokenPerRank: perToken,
    kvTokensPerRank,
    kvTokens,
    fits: kvTokens > 0,
  };
}

/**
 * Tokens of KV the whole engine can hold (see memoryPlan). A value <= 0 means the weights and reserve do not
 * leave room for one token: -kvCapacityTokens * (KV bytes per token per rank) is the missing headroom; call
 * memoryPlan for the byte figures to report.
 */
export function kvCapacityTokens(acc: AcceleratorSpec, m: ModelSpec, opts: MemoryPlanOptions): number {
  return memoryPlan(acc, m, opts).kvTokens;
}
