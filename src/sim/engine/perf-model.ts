import {
  BYTES_PER_PARAM,
  kvBytesPerTokenPerRank,
  type Parallelism,
  stateBytesPerSeqPerRank,
  weightSplit,
} from '../../catalog/memory.ts';
import type { AcceleratorSpec, ModelSpec, Precision } from '../../schema/catalog.ts';
import { CountMemo } from './count-memo.ts';
import { busiestShare, expectedMaxOfNormals } from './dp-share.ts';
import type { EngineFamily } from './engine-profile.ts';
import type { SpecDecodingConfig } from './spec-decode.ts';

/**
 * Roofline step time of one engine iteration (one forward pass over a continuous batch).
 *
 *   step = max(compute, memory) + communication + layer floor + draft + overhead
 *
 * - compute: GEMM FLOPs 2 · activeParams per new token, plus attention FLOPs growing with the context
 *   (causal inside a prefill chunk; MLA decodes in its absorbed form), over the TP group, at the precision's
 *   dense TFLOP/s × an efficiency.
 * - the busiest rank sets the pace: with DP-attention, the rank holding most sequences (a seeded random
 *   assignment, not perfect balance) for attention, KV and state reads and per-sequence overhead; with EP,
 *   the rank receiving most routed tokens for the expert GEMMs and the all-to-all.
 * - memory: weight bytes read per rank (MoE: only the experts the batch's tokens route to, growing with the
 *   token count towards every expert on the rank; with EP the busiest rank sets the pace), plus the KV cache
 *   every sequence reads (sparse top-k attention reads at most topK tokens), plus hybrid models' state.
 * - communication: per layer, TP all-reduces (attention and FFN) or, with DP-attention + EP, the MoE
 *   all-to-all dispatch/combine, over the scale-up link; plus PP stage hops. Not overlapped with compute
 *   (decode-time collectives sit on the critical path).
 * - layer floor: fixed latency of the ~10–20 small kernels of a layer that no bandwidth hides (norms, RoPE,
 *   routing, permutes, launches inside CUDA graphs). This is what keeps batch-1 decode of large MoE models
 *   far below their bandwidth roofline.
 * - PP: the step walks all stages in turn (no micro-batch interleaving), so PP buys memory, not speed;
 *   the idle stages are the bubble.
 * Memory and compute are evaluated for the whole depth on one rank of each stage in turn, which is the
 * same as per stage × pp.
 */

/**
 * Achieved fraction of peak HBM bandwidth by a whole decode step's weight and KV reads, end to end. Kernel
 * microbenchmarks reach 80–90 %, but served decode also pays for small GEMVs, poorly coalesced KV pages
 * and the gaps between kernels. docs/sim-fidelity.md: at 0.88 every bandwidth-bound dense point came out
 * 21–59 % too fast (P8, P9, P10); 0.70 brings them near ±25 % while the moderate-concurrency DeepSeek-R1
 * points (P1, P3, P4b, S1–S3, S7, S9) stay in band (calibration history there).
 */
export const MEM_BW_EFFICIENCY = 0.7;
/**
 * Per-accelerator multiplier on MEM_BW_EFFICIENCY, by `AcceleratorSpec.id`; absent ids use 1. MI300X's
 * served decode reaches a lower share of its 5.3 TB/s peak than the other parts: DeepSeek-R1 under SGLang
 * on 8×MI300X (docs/sim-fidelity.md P5a–c) is still 30–47 % too fast at 0.70 (experiment E9 there). 0.85
 * left P5a, P5c and O1e (405B on vLLM at 16 users) 26–28 % too fast; 0.80 is the least that brings the
 * calibration half's MI300X points in band (calibration history step 4). MI325X and MI355X have no such
 * evidence (P4, S8 fit without it).
 */
export const MEM_BW_ACCELERATOR_FACTOR: Readonly<Record<string, number>> = { mi300x: 0.8 };
/** Achieved fraction of dense peak by prefill GEMMs end to end (MFU of vLLM/SGLang prefill: ~40–60%). */
export const GEMM_EFFICIENCY: Readonly<Record<Precision, number>> = { bf16: 0.6, fp8: 0.5, fp4: 0.4 };
/** FlashAttention-2/3 forward reaches 50–75% of bf16 peak on long sequences; MLA and short chunks less. */
export const ATTENTION_EFFICIENCY = 0.45;
/**
 * MLA decode in its absorbed form (FlashMLA and the engines' MLA decode kernels) is a dense matrix product over
 * the latent: DeepSeek's FlashMLA reports up to 660 TFLOP/s compute-bound on an H800 SXM5 (989 TFLOP/s bf16
 * dense), about two thirds of peak; 0.6 leaves room for the paged, mixed-length batches of a served step.
 */
export const MLA_DECODE_EFFICIENCY = 0.6;
/** NCCL / custom all-reduce bus bandwidth as a fraction of the unidirectional link (nccl-tests: 70–80%). */
export const LINK_EFFICIENCY = 0.7;
/**
 * One small all-reduce within a node (one-shot custom all-reduce / NCCL LL protocol), µs, launch and sync
 * included. 12 µs left the TP4/TP8 dense decode points too fast; docs/sim-fidelity.md P9 (Llama-70B TP4,
 * H100/H200) and P10 (Llama-70B TP8, MI300X) fit at 20–25 µs. B200 with TensorRT-LLM's fused one-shot
 * all-reduce is faster: TRT_ALLREDUCE_LATENCY_US.
 */
export const ALLREDUCE_LATENCY_US = 20;
/**
 * The same all-reduce in TensorRT-LLM, µs: its one-shot kernel is fused with the residual add and RMSNorm that
 * follow it (AllReduceFusionOp) and launched with programmatic dependent launch, so most of the launch and
 * sync cost overlaps the neighbouring kernels. Fitted on the calibration half of docs/sim-fidelity.md
 * (Calibration history, step 3): the TensorRT-LLM points at low and moderate batch (P2a, S4a, S5a, N1e, N1g)
 * were 23–30 % too slow at 20 µs. The calibration half gains down to 5 µs (24 → 28 of 43); below that only
 * S5a moves (−24 → −22 % at 3 µs), and the value would no longer be the cost of a cross-GPU sync.
 */
export const TRT_ALLREDUCE_LATENCY_US = 5;

/** The small all-reduce latency of an engine family's kernels, µs. */
export function allReduceLatencyUs(family: EngineFamily): number {
  return family === 'trt' ? TRT_ALLREDUCE_LATENCY_US : ALLREDUCE_LATENCY_US;
}
/** One MoE all-to-all (DeepEP low-latency dispatch or combine): ~20–40 µs. */
export const ALLTOALL_LATENCY_US = 25;
/** One pipeline-stage hop (send/recv of activations). */
export const PP_HOP_LATENCY_US = 20;
/** Fixed per-step cost: scheduler, input preparation, CUDA-graph replay, sampling (async scheduling hides most). */
export const STEP_OVERHEAD_MS = 0.3;
/**
 * Per running sequence per step, µs: input tensors, sampling, detokenization, output processing, and the
 * per-sequence parts of the attention kernels that the roofline misses. Charged per attention-DP rank
 * (each rank handles seqs / dp of them in parallel). docs/sim-fidelity.md: 4 µs on the total left the batch
 * slope too flat once the MoE floor was lowered (P2b, P3a, P6 too fast; experiment E1), and charging the
 * total made P7 (DEP8, 7,168 sequences) −34 % (E4); 20 µs per rank is the middle of the 15–25 µs that E4/E8
 * found.
 */
export const PER_SEQ_OVERHEAD_US = 20;
/**
 * Per-layer kernel floors, µs. attention/denseFfn: small beside the weight reads of dense decode (Llama-3.1-8B
 * on one H100: 0.6 of ~7.9 ms per step; docs/sim-fidelity.md P8a measured 128 tok/s/user at batch 8). mla/moe: DeepSeek-R1 at batch 1–4 on late-2025 engines; the MoE floor was 140 µs (fitted to
 * ~40–70 tok/s/user on 8×H200), which made every low-concurrency DeepSeek-R1 point 10–34 % too slow in
 * docs/sim-fidelity.md (P1a, P2a, P4a, P11a/b, S4, S5, S8: 72–111 tok/s/user measured). 95 µs is the middle
 * of the 90–100 µs that fits them (experiments E1, E8). The MoE floor applies to MoE layers only; a MoE
 * model's leading dense layers (DENSE_LEADING_LAYERS) take the dense-FFN floor.
 */
export const LAYER_FLOOR_US = { attention: 10, mla: 40, denseFfn: 8, moe: 95 } as const;
/**
 * Leading dense-FFN layers of MoE models (`first_k_dense_replace` in the Hugging Face config), by catalog
 * model id. The catalog (src/catalog/models.ts) does not carry this count, so it is listed here for the
 * models whose value is public; other MoE models are treated as MoE in every layer (their floor errs slow by
 * at most a layer or two).
 */
export const DENSE_LEADING_LAYERS: Readonly<Record<string, number>> = {
  // config.json: first_k_dense_replace = 3 (61 layers: 3 dense + 58 MoE).
  'deepseek-ai/DeepSeek-R1-0528': 3,
  // Kimi K2 architecture: first_k_dense_replace = 1 (catalog source note: "61 layers (1 dense)").
  'moonshotai/Kimi-K2.6': 1,
};
/** Activations travel in bf16; MoE dispatch in fp8 (1 B), combine in bf16 (2 B). */
const ACT_BYTES = 2;
const DISPATCH_COMBINE_BYTES = 3;
/** MTP draft: one extra transformer layer plus the shared embedding/LM head, in layer equivalents. */
export const MTP_DRAFT_LAYER_EQUIV = 1.5;
/** A separate draft model's forward per draft token, as a fraction of the target's (e.g. EAGLE / 1B drafts). */
export const DRAFT_MODEL_COST_FRACTION = 0.1;
/** Launch/sampling cost of each draft forward. */
export const DRAFT_FORWARD_OVERHEAD_MS = 0.05;

export interface PerfSetup {
  model: ModelSpec;
  accelerator: AcceleratorSpec;
  /** Weight precision (and GEMM rate). */
  precision: Precision;
  kvPrecision: Precision;
  par: Parallelism;
  spec?: SpecDecodingConfig | null;
  /** The engine family running the model (engine-profile.ts); 'other' when not known. */
  family?: EngineFamily;
}

/** One sequence's work in a step: tokens fed now, and tokens already in its KV cache. */
export interface BatchEntry {
  newTokens: number;
  context: number;
}

/** A batch's sums over its entries (see PerfModel.breakdown). */
export interface BatchTotals {
  tokens: number;
  pairs: number;
  /** Of `pairs`, those of prefill chunks (entries feeding more tokens than a decode step's width). */
  prefillPairs: number;
  kvTokens: number;
  seqs: number;
}

export interface StepBreakdown {
  computeMs: number;
  memoryMs: number;
  commMs: number;
  floorMs: number;
  draftMs: number;
  overheadMs: number;
  totalMs: number;
}

function gemmTflops(acc: AcceleratorSpec, p: Precision): { tflops: number; eff: number } {
  if (p === 'fp4' && acc.denseTflops.fp4 !== null)
    return { tflops: acc.denseTflops.fp4, eff: GEMM_EFFICIENCY.fp4 };
  // No FP4 tensor cores (H100/H200/MI300X): FP4 weights are dequantized into FP8 GEMMs.
  if ((p === 'fp4' || p === 'fp8') && acc.denseTflops.fp8 !== null)
    return { tflops: acc.denseTflops.fp8, eff: GEMM_EFFICIENCY.fp8 };
  // No FP8 tensor format (A100, MI250X): quantized weights are computed in BF16 (weight-only kernels).
  return { tflops: acc.denseTflops.bf16, eff: GEMM_EFFICIENCY.bf16 };
}

export class PerfModel {
  readonly gpus: number;
  private readonly tp: number;
  private readonly pp: number;
  private readonly ep: number;
  private readonly dpA: number;
  private readonly attnTp: number;
  private readonly layers: number;
  private readonly hidden: number;
  private readonly activeParams: number;
  private readonly denseBytesRank: number;
  private readonly routedBytesRank: number;
  private readonly experts: number;
  private readonly topExperts: number;
  /** Attention FLOPs per (query token, attended token), all KV layers: in a prefill chunk, and decoding. */
  private readonly attnFlopsPerPair: number;
  private readonly attnFlopsPerDecodePair: number;
  private readonly decodeRate: number;
  /** Tokens a decode step feeds a sequence (1 + draft tokens); an entry feeding more is a prefill chunk. */
  private readonly decodeWidth: number;
  /** Routed-expert parameters one token runs through (its top-k experts). */
  private readonly routedActiveParams: number;
  private readonly kvBytesPerTokenRank: number;
  private readonly stateBytesRank: number;
  private readonly topK: number;
  private readonly gemmRate: number;
  private readonly attnRate: number;
  private readonly bw: number;
  private readonly link: number;
  private readonly floorMs: number;
  private readonly allReduceUs: number;
  private readonly spec: SpecDecodingConfig | null;

  constructor(readonly setup: PerfSetup) {
    const { model: m, accelerator: acc, par } = setup;
    this.tp = par.tp;
    this.pp = par.pp;
    this.ep = Math.max(1, par.ep);
    this.dpA = par.dpAttn ? par.tp : 1;
    this.attnTp = par.tp / this.dpA;
    this.gpus = par.tp * par.pp;
    this.layers = m.layers;
    this.hidden = m.hiddenSize;
    this.activeParams = m.activeParamsB * 1e9;
    // Weights as the catalog's memory model holds them (memory.ts): routed experts over max(tp, ep) ranks
    // (EP whole experts or TP slices), the rest over tp, or replicated with DP-attention. FP4 MoE
    // checkpoints keep the non-expert part at fp8.
    const split = weightSplit(m);
    const routedBpp = BYTES_PER_PARAM[setup.precision];
    const otherBpp = setup.precision === 'fp4' && m.moe ? BYTES_PER_PARAM.fp8 : routedBpp;
    this.denseBytesRank = (split.otherB * 1e9 * otherBpp) / this.attnTp;
    this.routedBytesRank = (split.routedB * 1e9 * routedBpp) / Math.max(this.tp, this.ep);
    this.experts = m.moe?.experts ?? 0;
    this.topExperts = m.moe?.activeExperts ?? 0;
    const a = m.attention;
    // QK^T and AV, 2 FLOPs per multiply-add. MLA prefill runs the non-absorbed form with 128-wide nope/value
    // heads (kvLoraRank / 4 for DeepSeek-V3's 512) plus the RoPE part.
    const perHead =
      a.kind === 'MLA' ? 2 * (a.kvLoraRank / 4 + a.ropeHeadDim) + 2 * (a.kvLoraRank / 4) : 4 * a.headDim;
    this.attnFlopsPerPair = perHead * a.heads * m.kvLayers;
    // Decode runs MLA absorbed: every query head scores the whole latent plus its RoPE part and returns a
    // latent-wide output (2·(kvLoraRank + rope) + 2·kvLoraRank per pair and head; 3.4× the prefill form).
    const perHeadDecode = a.kind === 'MLA' ? 2 * (a.kvLoraRank + a.ropeHeadDim) + 2 * a.kvLoraRank : perHead;
    this.attnFlopsPerDecodePair = perHeadDecode * a.heads * m.kvLayers;
    this.decodeWidth = 1 + (setup.spec?.draftTokens ?? 0);
    this.routedActiveParams = m.moe ? (split.routedB * 1e9 * m.moe.activeExperts) / m.moe.experts : 0;
    // KV per token on one rank over the whole depth (the catalog's per-rank split with pp = 1: GQA heads over
    // tp, MLA latent replicated); with DP-attention a rank holds (and reads) only 1/dpA of the sequences.
    const depth = { ...par, pp: 1 };
    this.kvBytesPerTokenRank = kvBytesPerTokenPerRank(m, setup.kvPrecision, depth) / this.dpA;
    this.stateBytesRank = stateBytesPerSeqPerRank(m, depth) / this.dpA;
    this.topK = m.sparseAttentionTopK ?? Number.POSITIVE_INFINITY;
    const g = gemmTflops(acc, setup.precision);
    this.gemmRate = g.tflops * 1e12 * g.eff;
    this.attnRate = acc.denseTflops.bf16 * 1e12 * ATTENTION_EFFICIENCY;
    this.decodeRate =
      acc.denseTflops.bf16 * 1e12 * (a.kind === 'MLA' ? MLA_DECODE_EFFICIENCY : ATTENTION_EFFICIENCY);
    this.bw = acc.memoryBandwidthTBs * 1e12 * MEM_BW_EFFICIENCY * (MEM_BW_ACCELERATOR_FACTOR[acc.id] ?? 1);
    this.link = acc.scaleUp.bandwidthGBs * 1e9 * LINK_EFFICIENCY;
    const denseLayers = m.moe ? Math.min(m.layers, DENSE_LEADING_LAYERS[m.id] ?? 0) : m.layers;
    this.allReduceUs = allReduceLatencyUs(setup.family ?? 'other');
    const attnFloor = a.kind === 'MLA' ? LAYER_FLOOR_US.mla : LAYER_FLOOR_US.attention;
    const ffnFloorUs = denseLayers * LAYER_FLOOR_US.denseFfn + (m.layers - denseLayers) * LAYER_FLOOR_US.moe;
    this.floorMs = (m.layers * attnFloor + ffnFloorUs) / 1000;
    this.spec = setup.spec ?? null;
  }

  /** Step time in ms for the batch; `draftSeqs` sequences (decoding with spec decoding) also draft. */
  stepTimeMs(entries: readonly BatchEntry[], draftSeqs = 0): number {
    return this.breakdown(entries, draftSeqs).totalMs;
  }

  breakdown(entries: readonly BatchEntry[], draftSeqs = 0): StepBreakdown {
    let tokens = 0;
    let pairs = 0;
    let prefillPairs = 0;
    let kvTokens = 0;
    const topK = this.topK;
    for (const e of entries) {
      const n = e.newTokens;
      tokens += n;
      // Query i (0-based) of the chunk attends to context + i + 1 tokens, capped at topK.
      const full = e.context + (n + 1) / 2;
      const p = n * Math.min(full, topK);
      pairs += p;
      if (n > this.decodeWidth) prefillPairs += p;
      kvTokens += Math.min(e.context + n, topK * n);
    }
    return this.breakdownTotals({ tokens, pairs, prefillPairs, kvTokens, seqs: entries.length }, draftSeqs);
  }

  /** Past tokens one query reads (sparse attention's top-k), +Infinity for dense attention. */
  get attentionTopK(): number {
    return this.topK;
  }

  /** Step time from a batch's totals (what the fast engine keeps instead of the entries); no allocation. */
  stepTimeTotals(totals: BatchTotals, draftSeqs = 0): number {
    return this.compute(totals, draftSeqs);
  }

  /**
   * The breakdown of a batch given by its totals: new tokens, (query, attended token) pairs, KV tokens read
   * and sequences — the sums `breakdown` takes over the entries (integers, so any order gives the same).
   */
  breakdownTotals(totals: BatchTotals, draftSeqs = 0): StepBreakdown {
    this.compute(totals, draftSeqs);
    return { ...this.parts };
  }

  /** The last computed step's parts (compute() fills it, breakdownTotals() copies it). */
  private readonly parts: StepBreakdown = {
    computeMs: 0,
    memoryMs: 0,
    commMs: 0,
    floorMs: 0,
    draftMs: 0,
    overheadMs: 0,
    totalMs: 0,
  };

  private compute(totals: BatchTotals, draftSeqs: number): number {
    const { tokens, pairs, prefillPairs, kvTokens, seqs } = totals;
    const out = this.parts;
    if (seqs === 0) {
      out.computeMs =
        out.memoryMs =
        out.commMs =
        out.floorMs =
        out.draftMs =
        out.overheadMs =
        out.totalMs =
          0;
      return 0;
    }
    // The busiest rank sets the step: of the DP-attention ranks (its sequences' attention, KV and state), and
    // of the expert-parallel ranks (the routed-expert GEMMs of the tokens sent to it).
    let dp = this.bySeqs.at(seqs, 0);
    if (Number.isNaN(dp)) dp = this.bySeqs.put(seqs, 0, this.dpImbalance(seqs));
    let ex = this.byTokens.at(tokens, 0);
    if (Number.isNaN(ex)) ex = this.byTokens.put(tokens, 0, this.expertImbalance(tokens));
    const gemmParams = this.activeParams + this.routedActiveParams * (ex - 1);
    const attnS =
      (this.attnFlopsPerPair * prefillPairs) / this.attnRate +
      (this.attnFlopsPerDecodePair * (pairs - prefillPairs)) / this.decodeRate;
    const computeS = (2 * gemmParams * tokens) / this.tp / this.gemmRate + (attnS * dp) / this.tp;
    let fraction = this.byTokens.at(tokens, 1);
    if (Number.isNaN(fraction)) fraction = this.byTokens.put(tokens, 1, this.expertFraction(tokens));
    const weightBytes = this.denseBytesRank + this.routedBytesRank * fraction;
    const memBytes = weightBytes + (kvTokens * this.kvBytesPerTokenRank + seqs * this.stateBytesRank) * dp;
    const memoryS = memBytes / this.bw;
    let commMs = this.byTokens.at(tokens, 2);
    if (Number.isNaN(commMs)) commMs = this.byTokens.put(tokens, 2, this.commMs(tokens, ex));
    const coreMs = Math.max(computeS, memoryS) * 1000 + commMs + this.floorMs;
    let draftMs = 0;
    if (this.spec && draftSeqs > 0) {
      const k = this.spec.draftTokens;
      const perToken =
        this.spec.method === 'mtp' ? MTP_DRAFT_LAYER_EQUIV / this.layers : DRAFT_MODEL_COST_FRACTION;
      // Drafting runs over the decoding sequences only; scale the core cost by their share of the batch.
      draftMs = k * (perToken * coreMs * (draftSeqs / seqs) + DRAFT_FORWARD_OVERHEAD_MS);
    }
    // With DP-attention every rank runs its own share of the sequences in parallel.
    const overheadMs = STEP_OVERHEAD_MS + (Math.ceil((seqs / this.dpA) * dp) * PER_SEQ_OVERHEAD_US) / 1000;
    out.computeMs = computeS * 1000;
    out.memoryMs = memoryS * 1000;
    out.commMs = commMs;
    out.floorMs = this.floorMs;
    out.draftMs = draftMs;
    out.overheadMs = overheadMs;
    out.totalMs = coreMs + draftMs + overheadMs;
    return out.totalMs;
  }

  /** Terms of a step by its sequence count (DP imbalance) and by its token count (expert imbalance,
   *  expert read fraction, communication ms): see CountMemo. */
  private readonly bySeqs = new CountMemo(1);
  // Up to 4096 tokens (decode batches, small prefills): keeping every prefill size too made each worker of
  // a point allocate its own 400 KB, and the collector cost more than the memo saved (bench:predict).
  private readonly byTokens = new CountMemo(3, 4096);

  /**
   * Fraction of the rank's routed-expert bytes a step reads. T tokens each pick k of E experts:
   * E[distinct experts] = E·(1 − (1 − k/E)^T). With EP the rank holds E/ep whole experts and the busiest
   * rank sets the step time (Gaussian approximation of the maximum); with TP every rank reads a slice of
   * every active expert, so it is balanced.
   */
  expertFraction(tokens: number): number {
    if (this.experts === 0 || tokens === 0) return 0;
    const f = 1 - (1 - this.topExperts / this.experts) ** tokens;
    if (this.ep <= 1) return f;
    const perRank = this.experts / this.ep;
    const mean = f * perRank;
    const busiest = Math.min(perRank, mean + Math.sqrt(2 * mean * Math.log(this.ep)));
    return busiest / perRank;
  }

  private allReduceMs(bytes: number, n: number): number {
    if (n <= 1) return 0;
    return this.allReduceUs / 1000 + ((2 * (n - 1)) / n) * (bytes / this.link) * 1000;
  }

  /**
   * The busiest DP-attention rank's share of the sequences over the mean share (1 without DP-attention).
   * Engines hand new requests to ranks in turn while others finish at random, so a rank's count drifts like a
   * random assignment's: up to DP_SIMULATED_SEQS sequences (dp-share.ts), the mean over DP_TRIALS seeded random
   * assignments of the largest count (one sequence on 8 ranks: 8, all its work on one rank); above, the
   * normal estimate of the maximum, mean + E[max of `ranks` standard normals] · sd (the multinomial's
   * sd = sqrt(mean · (1 − 1/ranks))). Shared by every model (a cache).
   */
  dpImbalance(seqs: number): number {
    return this.dpA <= 1 || seqs <= 0 ? 1 : busiestShare(seqs, this.dpA);
  }

  /**
   * The busiest expert-parallel rank's routed-expert tokens over the mean (1 without EP): tokens · k picks over
   * `ep` ranks, the normal estimate of the largest count (as dpImbalance's), at most what one rank can take (min(k, E/ep) of a
   * token's picks). Skewed expert popularity, which EPLB rebalances, is not modelled.
   */
  expertImbalance(tokens: number): number {
    if (this.experts === 0 || this.ep <= 1 || tokens <= 0) return 1;
    const picks = tokens * this.topExperts;
    const mean = picks / this.ep;
    const cap = tokens * Math.min(this.topExperts, this.experts / this.ep);
    const sd = Math.sqrt(mean * (1 - 1 / this.ep));
    return Math.min(cap, mean + expectedMaxOfNormals(this.ep) * sd) / mean;
  }

  private commMs(tokens: number, expertImbalance = 1): number {
    const actBytes = tokens * this.hidden * ACT_BYTES;
    let perLayer = 0;
    if (this.attnTp > 1) perLayer += this.allReduceMs(actBytes / this.dpA, this.attnTp);
    if (this.experts > 0 && this.dpA > 1 && this.ep > 1) {
      const sendBytes =
        (tokens / this.tp) *
        this.topExperts *
        this.hidden *
        DISPATCH_COMBINE_BYTES *
        ((this.ep - 1) / this.ep) *
        expertImbalance;
      perLayer += (2 * ALLTOALL_LATENCY_US) / 1000 + (sendBytes / this.link) * 1000;
    } else {
      perLayer += this.allReduceMs(actBytes, this.tp);
    }
    const hops = (this.pp - 1) * (PP_HOP_LATENCY_US / 1000 + (actBytes / this.link) * 1000);
    return perLayer * this.layers + hops;
  }
}
