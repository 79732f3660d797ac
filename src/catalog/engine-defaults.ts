/**
 * Engines' own defaults that depend on the GPU, as their launchers set them when a recipe states no value:
 * read by the simulator (`sim predict --explain`, the SGLang chunk) and by the recipe review.
 *
 * - vLLM's API server (vllm/engine/arg_utils.py, `get_batch_defaults`): 1,024 sequences and an 8,192-token
 *   budget on GPUs of 70 GiB or more other than the A100, 256 and 2,048 elsewhere. Its CUDA graphs
 *   (vllm/config/vllm.py) are captured up to min(2 × max_num_seqs × decode tokens per sequence, 512) tokens,
 *   and never past the token budget.
 * - SGLang (server_args.py) sets `--chunked-prefill-size` and `--cuda-graph-max-bs` from the GPU's memory:
 *   2,048 / 24 (80 at tp ≥ 4) under 35 GiB, 4,096 / 32 (160) under 60 GiB, 8,192 / 256 (512) under 160 GiB
 *   (H100, H200), 16,384 / 512 above (B200, GB200, MI300X and larger).
 */

export function vllmDefaultMaxNumSeqs(memoryGiB: number, acceleratorId: string): number {
  return memoryGiB >= 70 && !/a100/i.test(acceleratorId) ? 1024 : 256;
}

/** vLLM's CUDA graph capture ceiling in tokens per engine core. */
export function vllmCudaGraphCeiling(
  maxNumSeqs: number,
  tokensPerSeq: number,
  maxNumBatchedTokens: number,
): number {
  return Math.min(maxNumSeqs * tokensPerSeq * 2, 512, maxNumBatchedTokens);
}

/** SGLang's default `--chunked-prefill-size` on a GPU of `memoryGiB` (8,192 when the GPU is not known). */
export function sglangChunkedPrefill(memoryGiB: number | undefined): number {
  if (memoryGiB === undefined) return 8192;
  if (memoryGiB < 35) return 2048;
  if (memoryGiB < 60) return 4096;
  if (memoryGiB < 160) return 8192;
  return 16384;
}

/** SGLang's default `--cuda-graph-max-bs` (requests) on a GPU of `memoryGiB` at tensor parallelism `tp`. */
export function sglangCudaGraphMaxBs(memoryGiB: number, tp: number): number {
  const wide = tp >= 4;
  if (memoryGiB < 35) return wide ? 80 : 24;
  if (memoryGiB < 60) return wide ? 160 : 32;
  if (memoryGiB < 160) return wide ? 512 : 256;
  return 512;
}
