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
import {
  ACT_BYTES,
  ALLTOALL_LATENCY_US,
  ATTENTION_EFFICIENCY,
  allReduceLatencyUs,
  DENSE_LEADING_LAYERS,
  DISPATCH_COMBINE_BYTES,
  DRAFT_FORWARD_OVERHEAD_MS,
  DRAFT_MODEL_COST_FRACTION,
  EAGER_LAYER_US,
  GEMM_EFFICIENCY,
  LAYER_FLOOR_US,
  LINK_EFFICIENCY,
  MEM_BW_ACCELERATOR_FACTOR,
  MEM_BW_EFFICIENCY,
  MLA_DECODE_EFFICIENCY,
  MTP_DRAFT_LAYER_EQUIV,
  PER_SEQ_OVERHEAD_US,
  PP_HOP_LATENCY_US,
  runsMixedStepsEagerly,
  STEP_OVERHEAD_MS,
} from './perf-constants.ts';
import type { SpecDecodingConfig } from './spec-decode.ts';

/**
 * Roofline step time of one engine iteration (one forward pass over a continuous batch).
 *
 *   step = max(GEMM compute, weight reads) + max(attention compute, KV reads) + communication + layer floor
 *          + draft + overhead
 *
 * The two maxima are the step's two kinds of kernels, which run one after the other in every layer: the
 * GEMMs (projections, experts), bound by FLOPs or by the weights they stream, and attention, bound by its
 * FLOPs or by the KV cache and state it reads. One max over the sums would let a compute-bound attention
 * hide behind the weight reads of the GEMMs, which no kernel schedule does.
 *
 * - compute: GEMM FLOPs 2 · activeParams per new token, plus attention FLOPs growing with the context
 *   (causal inside a prefill chunk; MLA decodes in its absorbed form), over the TP group, at the precision's
 *   dense TFLOP/s × an efficiency (FP4 MoE checkpoints: FP4 for the routed experts, FP8 for the rest).
 * - the busiest rank sets the pace: with DP-attention, the rank holding most sequences (a seeded random
 *   assignment, not perfect balance) for attention, KV and state reads and per-sequence overhead, and, when
 *   no prompt is left waiting, the rank holding most of the step's prefill chunks for their non-expert GEMMs,
 *   attention and dispatch; with EP, the rank receiving most routed tokens for the expert GEMMs and the
 *   all-to-all.
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
  /** Mixed steps replay piecewise CUDA graphs (SimSetup.piecewiseCudaGraphs): no eager floor. */
  piecewiseCudaGraphs?: boolean;
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
  /** Of `tokens`, those of prefill chunks, and how many chunks (with DP-attention each lands on one rank). */
  prefillTokens: number;
  prefillChunks: number;
  /**
   * Requests still waiting after the step's admissions. With DP-attention a queue means every rank has
   * prompts of its own to prefill (each rank schedules from its share of the arrivals), so the step's
   * prefill work is spread; an empty one, that the chunks of this step are all there is.
   */
  queued: number;
  kvTokens: number;
  seqs: number;
}

export interface StepBreakdown {
  /** FLOPs at their rates and bytes at the bandwidth, each summed over the step's GEMMs and attention. */
  computeMs: number;
  memoryMs: number;
  /** The step's GEMMs (max of their FLOPs and the weights) and its attention (max of FLOPs and KV reads). */
  gemmPhaseMs: number;
  attentionPhaseMs: number;
  /** Of the two phases, the time compute binds and the time memory binds (they sum to both phases). */
  computeBoundMs: number;
  memoryBoundMs: number;
  commMs: number;
  floorMs: number;
  /** What running the step without CUDA graphs adds over the rest (eagerMixedStepFloorMs), else 0. */
  eagerMs: number;
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
  /**
   * The rate of the GEMMs outside the routed experts. FP4 MoE checkpoints quantize the routed experts only
   * (the weights' memory split, catalog/memory.ts, keeps the rest at FP8), so those GEMMs run at the FP8 rate;
   * otherwise gemmRate.
   */
  private readonly otherGemmRate: number;
  private readonly attnRate: number;
  private readonly bw: number;
  private readonly link: number;
  private readonly floorMs: number;
  private readonly allReduceUs: number;
  private readonly spec: SpecDecodingConfig | null;
  /**
   * Whether a step's lone prefill chunks land on single DP-attention ranks (prefillExcess). Not without
   * DP-attention, and not on TensorRT-LLM: its attention-DP balancer (`attention_dp_config.enable_balance`,
   * which the reference's TensorRT-LLM scripts set with DP-attention) holds context requests until every
   * rank has one, so its prefills run on all ranks at once and no rank carries another's.
   */
  readonly placesPrefillOnRanks: boolean;
  /**
   * The least a step carrying a prompt takes, ms (0 where mixed steps replay CUDA graphs): see
   * EAGER_LAYER_US.
   */
  readonly eagerMixedStepFloorMs: number;

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
    const og = otherBpp === routedBpp ? g : gemmTflops(acc, 'fp8');
    this.otherGemmRate = og.tflops * 1e12 * og.eff;
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
    this.placesPrefillOnRanks = this.dpA > 1 && setup.family !== 'trt';
    this.eagerMixedStepFloorMs =
      !setup.piecewiseCudaGraphs && runsMixedStepsEagerly(setup.family ?? 'other')
        ? (m.layers * EAGER_LAYER_US) / 1000
        : 0;
  }

  /** Step time in ms for the batch; `draftSeqs` sequences (decoding with spec decoding) also draft. */
  stepTimeMs(entries: readonly BatchEntry[], draftSeqs = 0, queued = 0): number {
    return this.breakdown(entries, draftSeqs, queued).totalMs;
  }

  /** `queued`: requests left waiting after this step's admissions (BatchTotals.queued). */
  breakdown(entries: readonly BatchEntry[], draftSeqs = 0, queued = 0): StepBreakdown {
    let tokens = 0;
    let pairs = 0;
    let prefillPairs = 0;
    let prefillTokens = 0;
    let prefillChunks = 0;
    let kvTokens = 0;
    const topK = this.topK;
    for (const e of entries) {
      const n = e.newTokens;
      tokens += n;
      // Query i (0-based) of the chunk attends to context + i + 1 tokens, capped at topK.
      const full = e.context + (n + 1) / 2;
      const p = n * Math.min(full, topK);
      pairs += p;
      if (n > this.decodeWidth) {
        prefillPairs += p;
        prefillTokens += n;
        prefillChunks++;
      }
      kvTokens += Math.min(e.context + n, topK * n);
    }
    return this.breakdownTotals(
      { tokens, pairs, prefillPairs, prefillTokens, prefillChunks, queued, kvTokens, seqs: entries.length },
      draftSeqs,
    );
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
    gemmPhaseMs: 0,
    attentionPhaseMs: 0,
    computeBoundMs: 0,
    memoryBoundMs: 0,
    commMs: 0,
    floorMs: 0,
    eagerMs: 0,
    draftMs: 0,
    overheadMs: 0,
    totalMs: 0,
  };

  private compute(totals: BatchTotals, draftSeqs: number): number {
    const { tokens, pairs, prefillPairs, prefillTokens, prefillChunks, queued, kvTokens, seqs } = totals;
    const out = this.parts;
    if (seqs === 0) {
      out.computeMs =
        out.memoryMs =
        out.gemmPhaseMs =
        out.attentionPhaseMs =
        out.computeBoundMs =
        out.memoryBoundMs =
        out.commMs =
        out.floorMs =
        out.eagerMs =
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
    // Routed experts at the busiest EP rank's share (ex) and their own rate; the rest at theirs.
    const otherParams = this.activeParams - this.routedActiveParams;
    const gemmS =
      ((2 * tokens) / this.tp) *
      (otherParams / this.otherGemmRate + (this.routedActiveParams * ex) / this.gemmRate);
    const attnS =
      (this.attnFlopsPerPair * prefillPairs) / this.attnRate +
      (this.attnFlopsPerDecodePair * (pairs - prefillPairs)) / this.decodeRate;
    let gemmComputeS = gemmS;
    let attnComputeS = (attnS * dp) / this.tp;
    // With DP-attention a prefill chunk runs on one attention rank, and every rank waits for the busiest at the
    // next all-to-all: the busiest rank's prefill tokens above the mean add their non-expert GEMMs and their
    // dispatch (the terms above spread them over every rank), and its chunks' attention beyond the busiest-by-
    // sequences share (dp) it already carries.
    const excess =
      this.placesPrefillOnRanks && prefillChunks > 0 && queued === 0
        ? this.prefillExcess(prefillTokens, prefillChunks)
        : 0;
    if (excess > 0) {
      const share = this.dpImbalance(prefillChunks);
      gemmComputeS += (2 * otherParams * excess) / this.otherGemmRate / this.attnTp;
      attnComputeS +=
        ((this.attnFlopsPerPair * prefillPairs) / this.attnRate) * (Math.max(0, share - dp) / this.tp);
    }
    let fraction = this.byTokens.at(tokens, 1);
    if (Number.isNaN(fraction)) fraction = this.byTokens.put(tokens, 1, this.expertFraction(tokens));
    const weightS = (this.denseBytesRank + this.routedBytesRank * fraction) / this.bw;
    const kvS = ((kvTokens * this.kvBytesPerTokenRank + seqs * this.stateBytesRank) * dp) / this.bw;
    const gemmPhaseS = Math.max(gemmComputeS, weightS);
    const attnPhaseS = Math.max(attnComputeS, kvS);
    let commMs = this.byTokens.at(tokens, 2);
    if (Number.isNaN(commMs)) commMs = this.byTokens.put(tokens, 2, this.commMs(tokens, ex));
    if (excess > 0) commMs += this.dispatchMs(excess / this.attnTp);
    let coreMs = (gemmPhaseS + attnPhaseS) * 1000 + commMs + this.floorMs;
    // A step that carries a prompt runs eagerly where the engine replays CUDA graphs for decode-only steps
    // alone; its kernels' launches, not the GPU, then set its length unless the prompt's work is larger.
    const eagerMs = prefillChunks > 0 ? Math.max(0, this.eagerMixedStepFloorMs - coreMs) : 0;
    coreMs += eagerMs;
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
    out.computeMs = (gemmComputeS + attnComputeS) * 1000;
    out.memoryMs = (weightS + kvS) * 1000;
    out.gemmPhaseMs = gemmPhaseS * 1000;
    out.attentionPhaseMs = attnPhaseS * 1000;
    out.computeBoundMs =
      ((gemmComputeS >= weightS ? gemmPhaseS : 0) + (attnComputeS >= kvS ? attnPhaseS : 0)) * 1000;
    out.memoryBoundMs = (gemmPhaseS + attnPhaseS) * 1000 - out.computeBoundMs;
    out.commMs = commMs;
    out.floorMs = this.floorMs;
    out.eagerMs = eagerMs;
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
    // A rank's touched experts: each of its perRank is touched with chance f, a binomial count.
    const sd = Math.sqrt(perRank * f * (1 - f));
    const busiest = Math.min(perRank, mean + expectedMaxOfNormals(this.ep) * sd);
    return busiest / perRank;
  }

  /**
   * The busiest DP-attention rank's prefill tokens above the mean, for a step's `tokens` in `chunks` chunks
   * with no prompt left waiting: the chunks fall on ranks as a seeded random assignment would (busiestShare;
   * one chunk: all of it on one rank). A lone long prompt then costs what the engines spend on it: its rank
   * prefills it in chunks of its share of the budget, over several steps, while the others wait.
   */
  prefillExcess(tokens: number, chunks: number): number {
    const mean = tokens / this.dpA;
    // The chunks' busiest rank is the sequences' one (dpImbalance): chunks are requests too.
    return Math.max(0, mean * this.dpImbalance(chunks) - mean);
  }

  /** The bytes one rank dispatches and combines per layer for `tokens` of its own (MoE all-to-all). */
  private dispatchBytes(tokens: number): number {
    return tokens * this.topExperts * this.hidden * DISPATCH_COMBINE_BYTES * ((this.ep - 1) / this.ep);
  }

  /** MoE dispatch and combine of `tokens` more tokens from one rank, every layer (no latency: same launch). */
  private dispatchMs(tokens: number): number {
    if (this.experts === 0 || this.ep <= 1) return 0;
    return (this.dispatchBytes(tokens) / this.link) * 1000 * this.layers;
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
      const sendBytes = this.dispatchBytes(tokens / this.tp) * expertImbalance;
      perLayer += (2 * ALLTOALL_LATENCY_US) / 1000 + (sendBytes / this.link) * 1000;
    } else {
      perLayer += this.allReduceMs(actBytes, this.tp);
    }
    const hops = (this.pp - 1) * (PP_HOP_LATENCY_US / 1000 + (actBytes / this.link) * 1000);
    return perLayer * this.layers + hops;
  }
}
