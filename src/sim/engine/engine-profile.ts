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
 *   after the weights are loaded. The value itself stays the simulator's default (0.9) unless set.
 *
 * Frameworks not listed (ATOM, TileRT, …) take the vLLM-style default, and say so.
 */

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
