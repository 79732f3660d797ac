import { sglangChunkedPrefill } from '../../catalog/engine-defaults.ts';
import type { Precision } from '../../schema/catalog.ts';
import { RECIPE_BY_FRAMEWORK } from '../../schema/recipes.ts';

/**
 * What a matrix row's framework does with memory at saturation, as far as the simulator models it: the
 * KV-cache dtype it picks for a weight precision, and what its memory fraction is a fraction of. One table,
 * read by setupOfRow (predict, `sim serve --point`) and shown by `sim predict --explain`.
 *
 * - KV dtype. vLLM's and SGLang's `--kv-cache-dtype auto` keep the KV cache in the model's activation dtype
 *   (BF16) unless the checkpoint declares an FP8 KV scheme: FP4 (ModelOpt/MXFP4) checkpoints served by these
 *   recipes do, FP8 ones mostly do not, and AMD publishes separate `-FP8-KV` checkpoints for the ones that
 *   do. TensorRT-LLM's DeepSeek recipes set `kv_cache_config.dtype: fp8` (docs/sim-fidelity.md, source TB),
 *   so TensorRT-LLM rows (trt, dynamo-trt) run an FP8 KV cache for FP8 and FP4 weights.
 * - Memory fraction. vLLM's `--gpu-memory-utilization` and SGLang's `--mem-fraction-static` are shares of
 *   the whole GPU (weights inside); TensorRT-LLM's `free_gpu_memory_fraction` is a share of what is free
 *   after the weights are loaded. The value itself is the simulator's default (0.9) unless set, or, on a
 *   single-node TensorRT-LLM row, what the reference's script sets (trt-recipe.ts).
 *
 * Frameworks not listed (ATOM, TileRT, …) take the vLLM-style default, and say so.
 */

/** A worker's token budget per step and what it holds, from the framework's scheduler. */
export interface SchedulerProfile {
  /** Tokens per step for the whole worker (every DP rank together). */
  maxNumBatchedTokens: number;
  /** Whether decodes take from that budget (EngineOptions.decodesInBudget). */
  decodesInBudget: boolean;
  reason: string;
}

/** The frameworks' default per-step token budget (vLLM V1 online serving, trtllm-serve, SGLang's chunk). */
export const DEFAULT_BATCHED_TOKENS = 8192;

/**
 * The scheduler budget of a worker of `family` with `dpRanks` attention-DP ranks (1 without DP attention):
 * - vLLM: `--max-num-batched-tokens` holds every scheduled token, decodes included, per engine core; with
 *   data-parallel attention every DP rank is an engine core with its own scheduler, so the worker's budget is
 *   the rank's times the ranks.
 * - TensorRT-LLM: `max_num_tokens` holds every token of an iteration; under attention DP each rank
 *   schedules its own batch, per rank as vLLM.
 * - SGLang: `--chunked-prefill-size` bounds prefill chunks only (a decode batch runs every running request),
 *   and is the whole worker's: with DP attention SGLang divides it among the ranks. Its default depends on
 *   the GPU's memory (catalog/engine-defaults.ts).
 */
export function schedulerProfile(
  family: EngineFamily,
  dpRanks: number,
  framework: string,
  memoryGiB?: number,
): SchedulerProfile {
  const name = framework || 'no framework';
  const ranks = Math.max(1, dpRanks);
  if (family === 'sglang') {
    const chunk = sglangChunkedPrefill(memoryGiB);
    const gpu = memoryGiB === undefined ? '' : ` (its default on a GPU of ${memoryGiB} GiB)`;
    return {
      maxNumBatchedTokens: chunk,
      decodesInBudget: false,
      reason: `${name}: --chunked-prefill-size ${chunk}${gpu} bounds prefill chunks of the whole worker${ranks > 1 ? ` (divided among ${ranks} DP ranks)` : ''}; every running decode runs each step`,
    };
  }
  const knob = family === 'trt' ? 'max_num_tokens' : '--max-num-batched-tokens';
  const who = family === 'other' ? `${name}: not modelled; as vLLM, ` : `${name}: `;
  return {
    maxNumBatchedTokens: DEFAULT_BATCHED_TOKENS * ranks,
    decodesInBudget: true,
    reason: `${who}${knob} ${DEFAULT_BATCHED_TOKENS} holds every scheduled token, decodes included${ranks > 1 ? `, per DP rank (× ${ranks})` : ''}`,
  };
}

export type EngineFamily = 'vllm' | 'sglang' | 'trt' | 'other';
export type KvCacheDtype = 'auto' | Precision;

export interface FrameworkProfile {
  family: EngineFamily;
  kvPrecision: Precision;
  /** Why that KV dtype: flag, checkpoint, framework rule. */
  kvReason: string;
  memoryFractionOf: 'total' | 'free';
  memoryReason: string;
}

/** A framework's engine family: the recipe that launches it (schema/recipes.ts), else 'other'. */
export function engineFamily(framework: string): EngineFamily {
  return (RECIPE_BY_FRAMEWORK[framework] as EngineFamily | undefined) ?? 'other';
}

/** The KV dtype and memory semantics of a row's engine; `override` is `--kv-cache-dtype`. */
export function frameworkProfile(
  framework: string,
  precision: Precision,
  checkpoint: string,
  override: KvCacheDtype = 'auto',
): FrameworkProfile {
  const family = engineFamily(framework);
  const name = framework || 'no framework';
  const memoryFractionOf = family === 'trt' ? 'free' : 'total';
  const memoryReason =
    family === 'trt'
      ? `${name}: free_gpu_memory_fraction, a share of the memory left after weights and reserve`
      : family === 'other'
        ? `${name}: not modelled; as vLLM, a share of the whole GPU (weights inside)`
        : `${name}: ${family === 'vllm' ? '--gpu-memory-utilization' : '--mem-fraction-static'}, a share of the whole GPU (weights inside)`;
  const base = { family, memoryFractionOf, memoryReason } as const;
  if (override !== 'auto') return { ...base, kvPrecision: override, kvReason: '--kv-cache-dtype' };
  if (/fp8-kv/i.test(checkpoint) && precision !== 'bf16') {
    return { ...base, kvPrecision: 'fp8', kvReason: `checkpoint ${checkpoint} carries FP8 KV scales` };
  }
  if (family === 'trt' && precision !== 'bf16') {
    return {
      ...base,
      kvPrecision: 'fp8',
      kvReason: `${name}: kv_cache_config.dtype fp8 (TensorRT-LLM recipes)`,
    };
  }
  if (precision === 'fp4') {
    return {
      ...base,
      kvPrecision: 'fp8',
      kvReason: `${name}: kv-cache-dtype auto, FP4 checkpoints declare FP8 KV`,
    };
  }
  return { ...base, kvPrecision: 'bf16', kvReason: `${name}: kv-cache-dtype auto, the activation dtype` };
}
