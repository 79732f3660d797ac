import type { CheckSeverity } from '../schema/check-finding.ts';

/**
 * The rules of `infx check` and the assumptions its memory arithmetic rests on. The memory model itself
 * (weights per rank, KV bytes per token, the engine reserve) is the catalog's (src/catalog/memory.ts), shared
 * with the simulated engine; what is added here is what only a launch-time check needs.
 *
 * Severities: an error means the point cannot run as configured (the engine dies at start, or the config
 * cannot even be evaluated); a warning means it runs but measures something other than what it says (a batch
 * smaller than its concurrency, an image that may change under it); a note states a requirement this check
 * cannot see (a recipe setting).
 */

export interface RuleInfo {
  id: string;
  severity: CheckSeverity | 'error|warning' | 'error|warning|note';
  about: string;
}

export const RULES: readonly RuleInfo[] = [
  {
    id: 'memory.weights',
    severity: 'error|warning',
    about:
      'weights per rank (plus MTP draft, engine reserve and DSA indexer buffer, as the engine counts them) leave no memory for KV; a warning when the shortfall is within ESTIMATE_MARGIN',
  },
  {
    id: 'memory.kv-context',
    severity: 'error|warning',
    about:
      'the KV left on a rank cannot hold one sequence of the max-model-len the point implies (isl+osl+256; agentic: the model’s native context), so the engine refuses to start; a warning when an fp8 KV cache would cure it or the shortfall is within ESTIMATE_MARGIN',
  },
  {
    id: 'memory.kv-running-set',
    severity: 'warning',
    about:
      'even with an fp8 KV cache (plus the DRAM tier where the row offloads) KV cannot hold the running set: conc × (isl+osl) tokens, or for agentic points 2 × conc sequences of 32k tokens; the engine queues or preempts',
  },
  {
    id: 'agentic.max-num-seqs',
    severity: 'error|warning|note',
    about:
      'agentic points need max-num-seqs ≥ 2 × conc (subagent fan-out): error below conc, warning below 2 × conc where a worker setting states it; otherwise one note per config',
  },
  {
    id: 'image.unpinned',
    severity: 'error',
    about: 'no tag, or a moving channel tag (latest, nightly, main, …)',
  },
  {
    id: 'image.dated-tag',
    severity: 'warning',
    about: 'a channel tag pinned only by a date (nightly_202607231538): add the @sha256 digest',
  },
  {
    id: 'image.unversioned-tag',
    severity: 'warning',
    about: 'a tag naming no version, commit or date (kimi-k3): add the @sha256 digest',
  },
  { id: 'catalog.unknown-model', severity: 'error', about: 'the model is not in src/catalog/models.ts' },
  {
    id: 'catalog.unknown-hardware',
    severity: 'error',
    about: 'the runner (or worker hardware) names no accelerator in src/catalog/accelerators.ts',
  },
  { id: 'catalog.unknown-precision', severity: 'error', about: 'the precision is not bf16, fp8 or fp4' },
  {
    id: 'topology.tp-heads',
    severity: 'error',
    about:
      'tp does not divide the model’s attention heads (without dp-attn, where every rank runs whole heads)',
  },
  {
    id: 'topology.exceeds-node',
    severity: 'error',
    about:
      'a single-node point needs more GPUs (tp × pp × pcp) than a node of its runner has (runners.yaml gpus-per-node, else 8, or 4 on NVL72-class systems)',
  },
  {
    id: 'topology.ep-exceeds-gpus',
    severity: 'error',
    about:
      'ep is wider than the GPUs (tp × pp × pcp) of the point or worker; multi-node dp-attn (DEP) workers are exempt, their DP ranks are not in the counts',
  },
  {
    id: 'context.max-model-len',
    severity: 'error',
    about: 'max-model-len (isl + osl + 256) is beyond the model’s context (catalog maxContext)',
  },
  {
    id: 'framework.no-recipe',
    severity: 'error',
    about:
      'no engine recipe launches the framework: none built in (src/engines/frameworks.ts) and no recipes/<framework>.sh (INFX_RECIPES_DIR)',
  },
  {
    id: 'matrix.expand',
    severity: 'error',
    about:
      'the config cannot be expanded into points (for example a DRAM budget without runner hardware facts)',
  },
];

/** vLLM's default gpu-memory-utilization (SGLang's mem-fraction-static and TensorRT-LLM's free fraction are close). */
export const DEFAULT_GPU_MEMORY_UTILIZATION = 0.9;

/**
 * What the utilization fraction bounds differs by engine, so the budget does too (framework → family):
 * - vllm (vllm, dynamo-vllm, llmd-vllm, atom, tilert and anything unknown): gpu-memory-utilization bounds
 *   everything: weights + reserve + buffers + KV ≤ memory × u.
 * - sglang (sglang, sglang-disagg, dynamo-sglang): mem-fraction-static bounds the static pool, weights + KV ≤
 *   memory × u; activations, graphs and buffers live in the other (1 − u), and only what does not fit there
 *   is taken from the KV pool.
 * - trtllm (trt, dynamo-trt): the KV cache gets free_gpu_memory_fraction u of what is left after weights,
 *   reserve and buffers: KV = (memory − weights − reserve − buffers) × u.
 */
export type EngineFamily = 'vllm' | 'sglang' | 'trtllm';

export function engineFamily(framework: string): EngineFamily {
  const f = framework.toLowerCase();
  if (f.includes('sglang')) return 'sglang';
  if (f.includes('trt')) return 'trtllm';
  return 'vllm';
}

/**
 * AgentX replays trajectory trees: one lane can have its root and subagents in flight at once, and servers
 * are sized with max-num-seqs = 2 × CONC (client-metrics-spec §2.6).
 */
export const AGENTIC_FANOUT = 2;

/**
 * Below this many KV tokens per in-flight agentic sequence the engine thrashes: the system prompt and tool
 * definitions of a Claude Code trace alone are 20-30k tokens. An estimate, used only for a warning.
 */
export const AGENTIC_MIN_TOKENS_PER_SEQUENCE = 32_768;

/**
 * DSA-style sparse attention (an MLA model with a top-k indexer: DeepSeek-V3.2/V4, GLM-5) allocates indexer
 * logits of max-num-batched-tokens × max-model-len elements at start. A reviewer of the reference project
 * put it at 32 GiB for --max-num-batched-tokens 16384 and a 1M context (16384 × 2^20 × 2 B). Recipes are not
 * visible here, so we charge the engines' default batch, 8192 × max-model-len × 2 bytes per rank (16 GiB at
 * 1M tokens; a recipe at 16384 needs twice that). Models with sparse attention but no MLA indexer
 * (MiniMax-M3) are not charged.
 */
export const INDEXER_BATCHED_TOKENS = 8192;
export const INDEXER_BYTES_PER_ELEMENT = 2;

/**
 * The memory model is an estimate (weights within ~5%, the reserve a middle value, KV layouts simplified),
 * so a start failure is an error only when the point is short by more than this fraction of device memory
 * even with an fp8 KV cache; a smaller shortfall, or one an fp8 KV cache would cure, is a warning.
 */
export const ESTIMATE_MARGIN = 0.03;

/**
 * MTP speculative decoding loads a draft module the catalog's weights exclude: we charge one more decoder
 * layer of weights (the checkpoint's weights per rank / layers) and one more KV layer (KV per token ×
 * (kvLayers + 1) / kvLayers). DeepSeek's MTP module is one such layer; the reference configs record MTP
 * pushing DeepSeek-V4-Pro TP4 on MI355X into a negative KV budget.
 */
export const MTP_DRAFT_LAYERS = 1;
