import type { ModelSpec } from '../schema/catalog.ts';
import { CURRENT_MODELS } from './models-current.ts';

/**
 * Model architectures. Each entry is the language backbone (vision towers and MTP/draft heads excluded) of the
 * canonical, unquantized Hugging Face checkpoint; quantized checkpoints of the same model are aliases, since
 * their precision is a property of the benchmark point (`precision`), not of the architecture.
 *
 * Field conventions:
 * - `totalParamsB` / `activeParamsB`: the model card's headline counts, billions. memory.ts splits them into
 *   routed-expert and other weights from the MoE shape; see `weightSplit` there.
 * - `kvLayers`: layers holding a per-token KV cache that grows with context. For DeepSeek-V4's compressed
 *   attention it is the number of full-layer equivalents (see the note on that entry).
 * - `stateBytesPerSeq`: fixed per-sequence state at bf16 (linear-attention recurrent state plus conv state,
 *   sliding-window KV), before any parallel split.
 * - `sparseAttentionTopK`: past tokens one query reads (DSA / MSA / CSA top-k), null for dense attention.
 * - A field that was derived, not read from a config.json or model card, is named in `estimated`, and the
 *   sources' notes say how it was derived.
 *
 * Aliases cover every `model-prefix` and `model` of the reference master configs; index.ts also strips
 * organisation prefixes and quantization suffixes, so a new "-NVFP4-v3" checkpoint resolves without an edit.
 */

const hf = (repo: string, note?: string) =>
  note === undefined
    ? { url: `https://huggingface.co/${repo}/blob/main/config.json` }
    : { url: `https://huggingface.co/${repo}/blob/main/config.json`, note };

/** DeepSeek-V4-Flash, also the backbone of V4.1-Flash below. */
const DEEPSEEK_V4_FLASH: ModelSpec = {
  id: 'deepseek-ai/DeepSeek-V4-Flash',
  aliases: ['dsv4flash', 'deepseek-v4-flash'],
  totalParamsB: 284,
  activeParamsB: 13,
  layers: 43,
  hiddenSize: 4096,
  attention: { kind: 'MLA', heads: 64, kvLoraRank: 448, ropeHeadDim: 64 },
  // Layers 0-1 are sliding-window only; then 21 CSA (ratio 4) and 20 HCA (ratio 128) layers:
  // 21/4 + 20/128 = 5.4 full-layer equivalents, plus indexer keys, rounded up to 7.
  kvLayers: 7,
  stateBytesPerSeq: 43 * 128 * 512 * 2,
  sparseAttentionTopK: 2048,
  moe: { experts: 256, activeExperts: 6, sharedExperts: 1 },
  maxContext: 1048576,
  sources: [
    hf(
      'deepseek-ai/DeepSeek-V4-Flash',
      '43 layers, hidden 4096, 64 heads, head_dim 512, 256 routed experts, index_topk 512, sliding_window 128',
    ),
    {
      url: 'https://huggingface.co/deepseek-ai/DeepSeek-V4-Flash',
      note: '284B total / 13B active, 1M context',
    },
  ],
  estimated: [
    'attention.kvLoraRank',
    'kvLayers',
    'stateBytesPerSeq',
    'sparseAttentionTopK',
    'moe.activeExperts',
  ],
};

export const MODELS: readonly ModelSpec[] = [
  {
    id: 'deepseek-ai/DeepSeek-R1-0528',
    aliases: [
      'dsr1',
      'deepseek-r1',
      'deepseek-r1-fp4',
      'deepseek-ai/DeepSeek-R1',
      'nvidia/DeepSeek-R1-0528-NVFP4-v2',
      'nvidia/DeepSeek-R1-0528-FP4-V2',
      'nvidia/DeepSeek-R1-FP4',
      'amd/DeepSeek-R1-0528-MXFP4',
      'amd/DeepSeek-R1-0528-MXFP4-Preview',
      'amd/DeepSeek-R1-0528-MXFP4-v2',
    ],
    totalParamsB: 671,
    activeParamsB: 37,
    layers: 61,
    hiddenSize: 7168,
    attention: { kind: 'MLA', heads: 128, kvLoraRank: 512, ropeHeadDim: 64 },
    kvLayers: 61,
    stateBytesPerSeq: 0,
    sparseAttentionTopK: null,
    moe: { experts: 256, activeExperts: 8, sharedExperts: 1 },
    maxContext: 163840,
    sources: [
      hf('deepseek-ai/DeepSeek-R1-0528', '61 layers, hidden 7168, 128 heads, kv_lora_rank 512, qk_rope 64'),
      {
        url: 'https://huggingface.co/deepseek-ai/DeepSeek-R1-0528',
        note: '671B total / 37B active (the 14B MTP module in the checkpoint is not counted)',
      },
    ],
    estimated: [],
  },
  {
    id: 'deepseek-ai/DeepSeek-V4-Pro',
    aliases: ['dsv4', 'deepseek-v4-pro'],
    totalParamsB: 1600,
    activeParamsB: 49,
    layers: 61,
    hiddenSize: 7168,
    // V4 caches one shared 512-wide KV row per position (head_dim 512 including the 64 RoPE channels),
    // expressed here as 448 + 64 so that kvLoraRank + ropeHeadDim = 512.
    attention: { kind: 'MLA', heads: 128, kvLoraRank: 448, ropeHeadDim: 64 },
    // compress_ratios: layers 0-1 and 31 odd layers keep one row per 128 tokens (HCA), 30 layers one row per 4
    // tokens (CSA) plus a 128-dim indexer key per row: 30/4 + 31/128 = 7.74 full-layer equivalents, plus the
    // indexer keys (~1 more) = 9. The 128-token sliding window every layer keeps is in stateBytesPerSeq.
    kvLayers: 9,
    stateBytesPerSeq: 61 * 128 * 512 * 2,
    // CSA layers read index_topk = 1024 compressed rows of 4 tokens each.
    sparseAttentionTopK: 4096,
    moe: { experts: 384, activeExperts: 6, sharedExperts: 1 },
    maxContext: 1048576,
    sources: [
      hf(
        'deepseek-ai/DeepSeek-V4-Pro',
        '61 layers, hidden 7168, 128 heads, 1 KV head, head_dim 512, qk_rope 64, 384 routed experts top-6 + 1 ' +
          'shared, moe_intermediate 3072, sliding_window 128, index_topk 1024, compress_ratios 128,128,(4,128)…',
      ),
      {
        url: 'https://huggingface.co/deepseek-ai/DeepSeek-V4-Pro',
        note: '1.6T total / 49B active, 1M context; FP4 routed experts + FP8 other weights (about 806 GiB)',
      },
    ],
    estimated: ['attention.kvLoraRank', 'kvLayers', 'stateBytesPerSeq', 'sparseAttentionTopK'],
  },
  DEEPSEEK_V4_FLASH,
  {
    ...DEEPSEEK_V4_FLASH,
    id: 'deepseek-ai/DeepSeek-V4.1-Flash',
    aliases: ['dsv41flash', 'deepseek-v4.1-flash'],
    // 47.2 GiB per rank at TP=4 and 94.4 at TP=2 when GPU-resident (user thread 003): 188.8 GiB in all.
    engramTablesGiB: 188.8,
    sources: [
      {
        url: 'https://github.com/vllm-project/vllm/pull/57491',
        note: 'V4-Flash backbone plus Engram tables: 47.2 GiB per rank at TP4, 94.4 GiB at TP2 when GPU-resident, host-resident with --engram-config {"cpu_offload":true} (user thread 003)',
      },
      ...DEEPSEEK_V4_FLASH.sources,
    ],
    estimated: ['engramTablesGiB', ...DEEPSEEK_V4_FLASH.estimated],
  },
  {
    id: 'Qwen/Qwen3.5-397B-A17B',
    aliases: [
      'qwen3.5',
      'qwen3.5-397b',
      'Qwen/Qwen3.5-397B-A17B-FP8',
      'nvidia/Qwen3.5-397B-A17B-NVFP4',
      'nvidia/Qwen3.5-397B-A17B-NVFP4-V2',
      'amd/Qwen3.5-397B-A17B-MXFP4',
    ],
    totalParamsB: 397,
    activeParamsB: 17,
    layers: 60,
    hiddenSize: 4096,
    attention: { kind: 'GQA', heads: 32, kvHeads: 2, headDim: 256 },
    // full_attention_interval 4: 15 full-attention layers, 45 Gated DeltaNet layers.
    kvLayers: 15,
    // Per GDN layer: 64 value heads x 128 x 128 recurrent state + conv state 3 x (2*16*128 + 64*128),
    // 45 layers, bf16.
    stateBytesPerSeq: 45 * (64 * 128 * 128 + 3 * (2 * 16 * 128 + 64 * 128)) * 2,
    sparseAttentionTopK: null,
    moe: { experts: 512, activeExperts: 10, sharedExperts: 1 },
    maxContext: 262144,
    sources: [
      hf(
        'Qwen/Qwen3.5-397B-A17B',
        '60 layers (3 Gated DeltaNet : 1 full attention), hidden 4096, 32 heads, 2 KV heads, head_dim 256, ' +
          '512 experts top-10 + shared expert, max_position_embeddings 262144',
      ),
      {
        url: 'https://huggingface.co/Qwen/Qwen3.5-397B-A17B',
        note: 'linear_num_value_heads taken as 64 (16 key heads, 128-dim) by analogy with Qwen3-Next; not confirmed',
      },
    ],
    estimated: ['stateBytesPerSeq'],
  },
  {
    id: 'zai-org/GLM-5.1',
    aliases: ['glm5.1', 'zai-org/GLM-5.1-FP8'],
    totalParamsB: 744,
    activeParamsB: 40,
    layers: 78,
    hiddenSize: 6144,
    attention: { kind: 'MLA', heads: 64, kvLoraRank: 512, ropeHeadDim: 64 },
    kvLayers: 78,
    stateBytesPerSeq: 0,
    sparseAttentionTopK: 2048,
    moe: { experts: 256, activeExperts: 8, sharedExperts: 1 },
    maxContext: 202752,
    sources: [
      hf('zai-org/GLM-5.1', 'glm_moe_dsa: same architecture as GLM-5'),
      {
        url: 'https://huggingface.co/docs/transformers/model_doc/glm_moe_dsa',
        note: 'GLM-5: 744B total / 40B active, DSA, ~200K context',
      },
      {
        url: 'https://docs.nvidia.com/nemo/megatron-bridge/nightly/models/glm/glm5.html',
        note: '78 layers (3 dense), 256 routed experts top-8 + 1 shared, MLA + DSA indexer',
      },
    ],
    estimated: ['maxContext'],
  },
  {
    id: 'zai-org/GLM-5.2',
    aliases: ['glm5.2', 'zai-org/GLM-5.2-FP8', 'nvidia/GLM-5.2-NVFP4', 'amd/GLM-5.2-MXFP4'],
    totalParamsB: 744,
    activeParamsB: 40,
    layers: 78,
    hiddenSize: 6144,
    attention: { kind: 'MLA', heads: 64, kvLoraRank: 512, ropeHeadDim: 64 },
    kvLayers: 78,
    stateBytesPerSeq: 0,
    sparseAttentionTopK: 2048,
    moe: { experts: 256, activeExperts: 8, sharedExperts: 1 },
    maxContext: 202752,
    sources: [
      hf('zai-org/GLM-5.2', 'glm_moe_dsa with IndexShare DSA (shared layers reuse the previous top-k)'),
      {
        url: 'https://docs.nvidia.com/nemo/megatron-bridge/0.6.0/models/glm/glm5.html',
        note: 'GLM-5.2 shares the GLM-5 shape: 78 layers, 256 experts top-8 + 1 shared, MLA + DSA',
      },
      {
        url: 'https://huggingface.co/nvidia/GLM-5.2-NVFP4',
        note: 'NVFP4 checkpoint ~433 GB (reference config comment); parameter counts assumed equal to GLM-5',
      },
    ],
    estimated: ['totalParamsB', 'activeParamsB', 'maxContext'],
  },
  {
    id: 'MiniMaxAI/MiniMax-M3',
    aliases: ['minimaxm3', 'MiniMaxAI/MiniMax-M3-MXFP8', 'nvidia/MiniMax-M3-NVFP4', 'amd/MiniMax-M3-MXFP4'],
    totalParamsB: 428,
    activeParamsB: 23,
    layers: 60,
    hiddenSize: 6144,
    attention: { kind: 'GQA', heads: 64, kvHeads: 4, headDim: 128 },
    kvLayers: 60,
    stateBytesPerSeq: 0,
    // MiniMax Sparse Attention selects key blocks; "per-token compute 1/20 at 1M context" puts the tokens read
    // per query near 2^16.
    sparseAttentionTopK: 65536,
    moe: { experts: 128, activeExperts: 4, sharedExperts: 1 },
    maxContext: 1048576,
    sources: [
      hf(
        'MiniMaxAI/MiniMax-M3',
        'model card: ~428B total / ~23B active, 1M context, MiniMax Sparse Attention',
      ),
      {
        url: 'https://github.com/ml-explore/mlx-lm/pull/1398',
        note: '60 layers (first 3 dense), 128 experts top-4 + 1 shared, GQA 64 heads / 4 KV heads, head_dim 128',
      },
      {
        url: 'https://docs.sglang.io/cookbook/autoregressive/MiniMax/MiniMax-M3.md',
        note: 'hidden size derived: 57 MoE layers x 128 experts x 3 x 6144 x 3072 = 413B routed of 428B total',
      },
    ],
    estimated: ['hiddenSize', 'sparseAttentionTopK'],
  },
  {
    id: 'moonshotai/Kimi-K3',
    aliases: ['kimik3', 'kimi-k3'],
    totalParamsB: 2780,
    activeParamsB: 104,
    layers: 93,
    hiddenSize: 7168,
    // 24 gated no-RoPE MLA layers (every 4th plus the last). Engines still allocate the 64-wide rope slot of the
    // DeepSeek MLA cache layout (512 + 64).
    attention: { kind: 'MLA', heads: 96, kvLoraRank: 512, ropeHeadDim: 64 },
    kvLayers: 24,
    // 69 KDA layers: 96 heads x 128 x 128 recurrent state + conv state 3 x 3 x (96 x 128), bf16.
    stateBytesPerSeq: 69 * (96 * 128 * 128 + 3 * 3 * 96 * 128) * 2,
    sparseAttentionTopK: null,
    moe: { experts: 896, activeExperts: 16, sharedExperts: 2 },
    maxContext: 1048576,
    sources: [
      hf(
        'moonshotai/Kimi-K3',
        '93 layers = 69 KDA + 24 gated MLA, hidden 7168, 96 heads, latent MoE (3584 wide), 896 experts top-16 ' +
          '+ 2 shared, MXFP4 routed experts',
      ),
      {
        url: 'https://raw.githubusercontent.com/FareedKhan-dev/kimi-k3-in-c/main/docs/ARCHITECTURE.md',
        note: '2.78T total / ~104B active, read from config.json; routed experts 1.45 TB, dense trunk 109 GB',
      },
    ],
    estimated: ['attention.ropeHeadDim', 'stateBytesPerSeq'],
  },
  {
    id: 'moonshotai/Kimi-K2.6',
    aliases: ['kimik2.6', 'kimi-k2.6', 'nvidia/Kimi-K2.6-NVFP4'],
    totalParamsB: 1040,
    activeParamsB: 32,
    layers: 61,
    hiddenSize: 7168,
    attention: { kind: 'MLA', heads: 64, kvLoraRank: 512, ropeHeadDim: 64 },
    kvLayers: 61,
    stateBytesPerSeq: 0,
    sparseAttentionTopK: null,
    moe: { experts: 384, activeExperts: 8, sharedExperts: 1 },
    maxContext: 262144,
    sources: [
      hf(
        'moonshotai/Kimi-K2.6',
        'Kimi K2 architecture: 61 layers (1 dense), MLA 64 heads, 384 experts top-8',
      ),
      {
        url: 'https://haimaker.ai/models/moonshotai/kimi-k2.6',
        note: 'model card table: 1T total / 32B active, 256K context, 7168 hidden, 1 shared expert',
      },
    ],
    estimated: [],
  },
  {
    id: 'meta-llama/Llama-3.1-8B-Instruct',
    aliases: [
      'llama3.1-8b',
      'llama-3.1-8b',
      'meta-llama/Llama-3.1-8B',
      'meta-llama/Meta-Llama-3.1-8B-Instruct',
    ],
    totalParamsB: 8.03,
    activeParamsB: 8.03,
    layers: 32,
    hiddenSize: 4096,
    attention: { kind: 'GQA', heads: 32, kvHeads: 8, headDim: 128 },
    kvLayers: 32,
    stateBytesPerSeq: 0,
    sparseAttentionTopK: null,
    moe: null,
    maxContext: 131072,
    sources: [hf('meta-llama/Llama-3.1-8B-Instruct', '32 layers, 32 heads, 8 KV heads, 131072 positions')],
    estimated: [],
  },
  {
    id: 'meta-llama/Llama-3.3-70B-Instruct',
    aliases: [
      'llama3.3-70b',
      'llama-3.3-70b',
      'nvidia/Llama-3.3-70B-Instruct-FP8',
      'nvidia/Llama-3.3-70B-Instruct-FP4',
    ],
    totalParamsB: 70.6,
    activeParamsB: 70.6,
    layers: 80,
    hiddenSize: 8192,
    attention: { kind: 'GQA', heads: 64, kvHeads: 8, headDim: 128 },
    kvLayers: 80,
    stateBytesPerSeq: 0,
    sparseAttentionTopK: null,
    moe: null,
    maxContext: 131072,
    sources: [hf('meta-llama/Llama-3.3-70B-Instruct', '80 layers, 64 heads, 8 KV heads, 131072 positions')],
    estimated: [],
  },
  {
    id: 'Qwen/Qwen3-32B',
    aliases: ['qwen3-32b', 'Qwen/Qwen3-32B-FP8'],
    totalParamsB: 32.8,
    activeParamsB: 32.8,
    layers: 64,
    hiddenSize: 5120,
    attention: { kind: 'GQA', heads: 64, kvHeads: 8, headDim: 128 },
    kvLayers: 64,
    stateBytesPerSeq: 0,
    sparseAttentionTopK: null,
    moe: null,
    maxContext: 40960,
    sources: [
      hf('Qwen/Qwen3-32B', '64 layers, 64 heads, 8 KV heads, head_dim 128; 40960 native (131072 YaRN)'),
    ],
    estimated: [],
  },
  {
    id: 'openai/gpt-oss-120b',
    aliases: ['gptoss120b', 'gpt-oss-120b', 'gptoss'],
    totalParamsB: 116.8,
    activeParamsB: 5.1,
    layers: 36,
    hiddenSize: 2880,
    attention: { kind: 'GQA', heads: 64, kvHeads: 8, headDim: 64 },
    // Alternating 128-token sliding-window and full attention: 18 full layers; the window of the other 18 is
    // fixed state (18 x 128 tokens x 2 x 8 x 64 x 2 B).
    kvLayers: 18,
    stateBytesPerSeq: 18 * 128 * 2 * 8 * 64 * 2,
    sparseAttentionTopK: null,
    moe: { experts: 128, activeExperts: 4, sharedExperts: 0 },
    maxContext: 131072,
    sources: [
      hf(
        'openai/gpt-oss-120b',
        '36 layers, 64 heads, 8 KV heads, head_dim 64, 128 experts top-4, window 128',
      ),
      { url: 'https://huggingface.co/openai/gpt-oss-120b', note: '117B total / 5.1B active, MXFP4 experts' },
    ],
    estimated: [],
  },
  // Qwen3 MoE, Llama 4, DeepSeek-V3.x, Kimi K2, GLM-4.5, MiniMax-M2, gpt-oss-20b: see models-current.ts.
  ...CURRENT_MODELS,
];
