import type { Precision } from '../../schema/catalog.ts';
import type { EngineFamily } from './engine-profile.ts';

/**
 * The step model's constants (perf-model.ts), each with the evidence behind its value: docs/sim-fidelity.md
 * has the experiments and the calibration history they cite.
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
 * left P5a, P5c and O1e (405B on vLLM at 16 users) 26–28 % too fast; 0.80 brought the calibration half's
 * MI300X points in band (calibration history step 4). Once P5 read an FP8 KV cache, as the reference's
 * MI300X SGLang script sets it (script-kv.ts; step 14), they were 28–31 % too fast at 0.80; 0.73 brings the
 * calibration half back to its plateau with P5c on the band's edge, 0.72 with a point to spare. MI325X and
 * MI355X have no such evidence (P4, S8 fit without it).
 */
export const MEM_BW_ACCELERATOR_FACTOR: Readonly<Record<string, number>> = { mi300x: 0.72 };
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
/**
 * The least one layer of a step takes when the step runs without CUDA graphs, µs: the CPU launching each of
 * the layer's kernels from PyTorch, which the GPU cannot outrun unless the step's own work is longer. A
 * large prompt's GEMMs hide the launches (the 8k-token DeepSeek-R1 rows fit without this floor); a 1k one
 * does not: the DP-attention MTP rows at 1k/1k and 128–256 users were 18–33 % too fast on interactivity
 * while 1k/8k, with an eighth of the prompts per output token, fit. Fitted on the calibration half of
 * docs/sim-fidelity.md (Calibration history, step 6): 800–900 µs give 49 of 65, 1000 gives 50, 1200 48.
 */
export const EAGER_LAYER_US = 1000;

/**
 * Whether an engine family runs every step that carries a prompt without CUDA graphs (EAGER_LAYER_US).
 * TensorRT-LLM's PyTorch backend replays a captured graph only for a batch with no context request
 * (`ScheduledRequests.can_run_cuda_graph`); with DP-attention the other ranks wait for that rank at the MoE
 * all-to-all. SGLang captures graphs for decode batches only and runs prompts in extend batches, eagerly
 * unless `--enable-piecewise-cuda-graph` is given. vLLM V1 captures piecewise graphs around attention, so
 * its mixed steps replay graphs too.
 */
export function runsMixedStepsEagerly(family: EngineFamily): boolean {
  return family === 'trt' || family === 'sglang';
}
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
export const ACT_BYTES = 2;
export const DISPATCH_COMBINE_BYTES = 3;
/** MTP draft: one extra transformer layer plus the shared embedding/LM head, in layer equivalents. */
export const MTP_DRAFT_LAYER_EQUIV = 1.5;
/** A separate draft model's forward per draft token, as a fraction of the target's (e.g. EAGLE / 1B drafts). */
export const DRAFT_MODEL_COST_FRACTION = 0.1;
/** Launch/sampling cost of each draft forward. */
export const DRAFT_FORWARD_OVERHEAD_MS = 0.05;
