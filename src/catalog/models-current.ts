import type { ModelSpec } from '../schema/catalog.ts';

/**
 * The open models most benchmarked in 2025-26 that the reference master configs do not name: Qwen3 MoE,
 * Llama 4, DeepSeek-V3.x, Kimi K2, GLM-4.5, MiniMax-M2 and gpt-oss-20b. Same conventions as models.ts (see its
 * header); models.ts appends this list to MODELS. Each entry's first source names the config.json fields its
 * numbers come from, and says which of them were read from a mirror or a sibling checkpoint of the same
 * architecture rather than from the canonical repository's own file.
 */

const hf = (repo: string, note: string) => ({
  url: `https://huggingface.co/${repo}/blob/main/config.json`,
  note,
});
const card = (repo: string, note: string) => ({ url: `https://huggingface.co/${repo}`, note });

const QWEN3_235B: ModelSpec = {
  id: 'Qwen/Qwen3-235B-A22B',
  aliases: [
    'qwen3-235b',
    'Qwen/Qwen3-235B-A22B-FP8',
    'Qwen/Qwen3-235B-A22B-Base',
    'nvidia/Qwen3-235B-A22B-FP8',
    'nvidia/Qwen3-235B-A22B-FP4',
  ],
  totalParamsB: 235,
  activeParamsB: 22,
  layers: 94,
  hiddenSize: 4096,
  attention: { kind: 'GQA', heads: 64, kvHeads: 4, headDim: 128 },
  kvLayers: 94,
  stateBytesPerSeq: 0,
  sparseAttentionTopK: null,
  moe: { experts: 128, activeExperts: 8, sharedExperts: 0 },
  maxContext: 40960,
  sources: [
    hf(
      'Qwen/Qwen3-235B-A22B',
      'num_hidden_layers 94, hidden_size 4096, num_attention_heads 64, num_key_value_heads 4, head_dim 128, ' +
        'num_experts 128, num_experts_per_tok 8, moe_intermediate_size 1536, max_position_embeddings 40960 ' +
        '(confirmed from the MindSpeed-RL and MaxText model configs mirroring it)',
    ),
    card(
      'Qwen/Qwen3-235B-A22B-FP8',
      '235B total / 22B active, no shared expert; 32,768 tokens native, 131,072 with YaRN',
    ),
  ],
  estimated: [],
};

const QWEN3_30B: ModelSpec = {
  id: 'Qwen/Qwen3-30B-A3B',
  aliases: ['qwen3-30b', 'Qwen/Qwen3-30B-A3B-FP8', 'Qwen/Qwen3-30B-A3B-Base'],
  totalParamsB: 30.5,
  activeParamsB: 3.3,
  layers: 48,
  hiddenSize: 2048,
  attention: { kind: 'GQA', heads: 32, kvHeads: 4, headDim: 128 },
  kvLayers: 48,
  stateBytesPerSeq: 0,
  sparseAttentionTopK: null,
  moe: { experts: 128, activeExperts: 8, sharedExperts: 0 },
  maxContext: 40960,
  sources: [
    hf(
      'Qwen/Qwen3-30B-A3B',
      'num_hidden_layers 48, hidden_size 2048, 32 heads, 4 KV heads, head_dim 128, 128 experts top-8, ' +
        'moe_intermediate_size 768, max_position_embeddings 40960 (confirmed from the MindSpeed-RL and slime ' +
        'model configs mirroring it)',
    ),
    card('Qwen/Qwen3-30B-A3B', '30.5B total / 3.3B active, no shared experts; 32,768 native, 131,072 YaRN'),
  ],
  estimated: [],
};

/** Llama 4: iRoPE, i.e. chunked local attention (8,192-token chunks) on 3 of every 4 layers. */
const LLAMA4_ATTENTION_NOTE =
  'attention_chunk_size 8192 on the 36 RoPE layers, global NoPE attention on every 4th (12 layers). The schema ' +
  'has no chunked attention, so kvLayers counts all 48 layers: exact for sequences up to 8,192 tokens (every ' +
  'fixed-seq-len shape to 8k1k within 12%) and what engines allocate without a hybrid KV allocator (SGLang ' +
  'unless --hybrid-kvcache-ratio is set; vLLM with VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0, ' +
  'vllm-project/vllm#21761). It over-counts longer contexts under a hybrid allocator, where the 36 local ' +
  'layers keep at most one chunk; a sliding-window-style stateBytesPerSeq of 36 x 8192 tokens would instead ' +
  'over-count every shorter sequence 4-8x.';

const LLAMA4_SCOUT: ModelSpec = {
  id: 'meta-llama/Llama-4-Scout-17B-16E',
  aliases: [
    'llama4-scout',
    'llama-4-scout',
    'meta-llama/Llama-4-Scout-17B-16E-Instruct',
    'meta-llama/Llama-4-Scout-17B-16E-Original',
    'nvidia/Llama-4-Scout-17B-16E-Instruct-FP8',
    'nvidia/Llama-4-Scout-17B-16E-Instruct-FP4',
    'RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic',
  ],
  totalParamsB: 109,
  activeParamsB: 17,
  layers: 48,
  hiddenSize: 5120,
  attention: { kind: 'GQA', heads: 40, kvHeads: 8, headDim: 128 },
  kvLayers: 48,
  stateBytesPerSeq: 0,
  sparseAttentionTopK: null,
  moe: { experts: 16, activeExperts: 1, sharedExperts: 1 },
  maxContext: 10485760,
  sources: [
    hf(
      'meta-llama/Llama-4-Scout-17B-16E',
      'text_config: num_hidden_layers 48, hidden_size 5120, 40 heads, 8 KV heads, head_dim 128, ' +
        'num_local_experts 16, num_experts_per_tok 1, interleave_moe_layer_step 1 (MoE with a shared expert ' +
        'every layer), intermediate_size 8192 (confirmed from a reimplementation of the config; the gated repo ' +
        'itself was not read). 10M context from the model card, not confirmed against max_position_embeddings',
    ),
    card('meta-llama/Llama-4-Scout-17B-16E', '~109B total / 17B active, 10M context'),
    { url: 'https://huggingface.co/blog/llama4-release', note: LLAMA4_ATTENTION_NOTE },
  ],
  // 10,485,760 = 10 x 2^20, the "10M" of the model card.
  estimated: ['kvLayers', 'maxContext'],
};

const LLAMA4_MAVERICK: ModelSpec = {
  ...LLAMA4_SCOUT,
  id: 'meta-llama/Llama-4-Maverick-17B-128E',
  aliases: [
    'llama4-maverick',
    'llama-4-maverick',
    'meta-llama/Llama-4-Maverick-17B-128E-Instruct',
    'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8',
    'meta-llama/Llama-4-Maverick-17B-128E-Original',
    'nvidia/Llama-4-Maverick-17B-128E-Instruct-FP8',
    'nvidia/Llama-4-Maverick-17B-128E-Instruct-FP4',
    'RedHatAI/Llama-4-Maverick-17B-128E-Instruct-FP8',
  ],
  totalParamsB: 400,
  activeParamsB: 17,
  moe: { experts: 128, activeExperts: 1, sharedExperts: 1 },
  maxContext: 1048576,
  sources: [
    hf(
      'meta-llama/Llama-4-Maverick-17B-128E',
      'text_config: 48 layers, hidden 5120, 40 heads, 8 KV heads, head_dim 128, num_local_experts 128 top-1 ' +
        'plus a shared expert, interleave_moe_layer_step 2 (24 MoE and 24 dense layers), context 1,048,576 ' +
        '(confirmed from the GGUF metadata of a conversion; the gated repo itself was not read)',
    ),
    card(
      'meta-llama/Llama-4-Maverick-17B-128E',
      '~400B total / 17B active, 1M context; 24 x 128 x 3 x 5120 x 8192 = 386.5B routed parameters',
    ),
    { url: 'https://huggingface.co/blog/llama4-release', note: LLAMA4_ATTENTION_NOTE },
  ],
  estimated: ['kvLayers'],
};

const DEEPSEEK_V3: ModelSpec = {
  id: 'deepseek-ai/DeepSeek-V3',
  aliases: [
    'dsv3',
    'deepseek-v3',
    'deepseek-ai/DeepSeek-V3-0324',
    'deepseek-ai/DeepSeek-V3-Base',
    'nvidia/DeepSeek-V3-0324-FP4',
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
    hf(
      'deepseek-ai/DeepSeek-V3',
      'DeepseekV3ForCausalLM, the architecture DeepSeek-R1 was trained on: 61 layers (3 dense), hidden 7168, ' +
        '128 heads, kv_lora_rank 512, qk_rope_head_dim 64, 256 routed experts top-8 + 1 shared, ' +
        'max_position_embeddings 163840 (confirmed from the R1-0528 config of the same architecture)',
    ),
    card('deepseek-ai/DeepSeek-V3', '671B total / 37B active (MTP module excluded), 128K context'),
  ],
  estimated: [],
};

const DEEPSEEK_V31: ModelSpec = {
  ...DEEPSEEK_V3,
  id: 'deepseek-ai/DeepSeek-V3.1',
  aliases: [
    'dsv3.1',
    'dsv31',
    'deepseek-v3.1',
    'deepseek-ai/DeepSeek-V3.1-Base',
    'deepseek-ai/DeepSeek-V3.1-Terminus',
  ],
  sources: [
    card(
      'deepseek-ai/DeepSeek-V3.1',
      'post-trained from the V3 base checkpoint (same architecture), 671B total / 37B active, 128K context ' +
        'after a two-phase 32K/128K extension; weights and activations in UE8M0-scaled FP8',
    ),
    ...DEEPSEEK_V3.sources,
  ],
};

const DEEPSEEK_V32: ModelSpec = {
  ...DEEPSEEK_V3,
  id: 'deepseek-ai/DeepSeek-V3.2-Exp',
  aliases: [
    'dsv3.2',
    'dsv32',
    'deepseek-v3.2-exp',
    'deepseek-ai/DeepSeek-V3.2-Exp-Base',
    'deepseek-ai/DeepSeek-V3.2',
    'deepseek-ai/DeepSeek-V3.2-Speciale',
  ],
  // DSA: the lightning indexer picks index_topk past tokens per query on every layer.
  sparseAttentionTopK: 2048,
  sources: [
    hf(
      'deepseek-ai/DeepSeek-V3.2-Exp',
      'DeepseekV32ForCausalLM: the V3.1 shape plus DeepSeek Sparse Attention, index_topk 2048, ' +
        'index_n_heads 64, index_head_dim 128, max_position_embeddings 163840 (confirmed from the NeMo ' +
        'AutoModel and MAX DeepseekV32Config defaults). The indexer keeps a 128-dim key per token per layer ' +
        '(~22% on top of the 576-element MLA row) that the schema cannot express: not counted, as for GLM-5.x',
    ),
    card(
      'deepseek-ai/DeepSeek-V3.2-Exp',
      'continued training of V3.1-Terminus with DSA; DeepSeek-V3.2 and V3.2-Speciale keep this architecture',
    ),
  ],
};

const KIMI_K2: ModelSpec = {
  id: 'moonshotai/Kimi-K2-Instruct',
  aliases: ['kimik2', 'kimi-k2', 'moonshotai/Kimi-K2-Base', 'moonshotai/Kimi-K2-Instruct-0711'],
  totalParamsB: 1026.5,
  activeParamsB: 32,
  layers: 61,
  hiddenSize: 7168,
  attention: { kind: 'MLA', heads: 64, kvLoraRank: 512, ropeHeadDim: 64 },
  kvLayers: 61,
  stateBytesPerSeq: 0,
  sparseAttentionTopK: null,
  moe: { experts: 384, activeExperts: 8, sharedExperts: 1 },
  maxContext: 131072,
  sources: [
    hf(
      'moonshotai/Kimi-K2-Instruct',
      'DeepseekV3 architecture: 61 layers (first_k_dense_replace 1), hidden 7168, 64 heads, 384 routed experts ' +
        'top-8 + 1 shared, moe_intermediate_size 2048 (confirmed from the Megatron-Bridge KimiK2Provider), ' +
        'kv_lora_rank 512, qk_rope_head_dim 64 (confirmed from a port quoting this config), ' +
        'max_position_embeddings 131072 (SGLang reports max_model_len 131072)',
    ),
    card(
      'moonshotai/Kimi-K2-Instruct-0905',
      'model card: 1T total / 32B activated, MLA, 128K context for K2-Instruct (0711). totalParamsB is the ' +
        "checkpoint's 1,026.5B count (haimaker listing), which 60 x 384 x 3 x 7168 x 2048 = 1,014.8B routed " +
        'parameters plus ~11.6B attention, embeddings and shared experts reproduces',
    ),
  ],
  estimated: [],
};

const KIMI_K2_0905: ModelSpec = {
  ...KIMI_K2,
  id: 'moonshotai/Kimi-K2-Instruct-0905',
  aliases: ['kimik2-0905', 'kimi-k2-0905', 'moonshotai/Kimi-K2-Thinking', 'kimik2-thinking'],
  maxContext: 262144,
  sources: [
    card(
      'moonshotai/Kimi-K2-Instruct-0905',
      'same architecture, context extended from 128K to 256K (262,144); K2-Thinking shares the shape and the ' +
        '256K context (its INT4 routed experts are a property of the point, precision fp4)',
    ),
    ...KIMI_K2.sources,
  ],
};

const GLM_45: ModelSpec = {
  id: 'zai-org/GLM-4.5',
  aliases: ['glm4.5', 'glm-4.5', 'zai-org/GLM-4.5-FP8', 'zai-org/GLM-4.5-Base'],
  totalParamsB: 355,
  activeParamsB: 32,
  layers: 92,
  hiddenSize: 5120,
  attention: { kind: 'GQA', heads: 96, kvHeads: 8, headDim: 128 },
  kvLayers: 92,
  stateBytesPerSeq: 0,
  sparseAttentionTopK: null,
  moe: { experts: 160, activeExperts: 8, sharedExperts: 1 },
  maxContext: 131072,
  sources: [
    hf(
      'zai-org/GLM-4.5',
      'Glm4MoeForCausalLM: num_hidden_layers 92 (first_k_dense_replace 3; the num_nextn_predict_layers 1 MTP ' +
        'layer excluded), hidden 5120, 96 heads, 8 KV heads, head_dim 128, n_routed_experts 160 top-8, ' +
        'n_shared_experts 1, moe_intermediate_size 1536, max_position_embeddings 131072 (confirmed from ' +
        'derived checkpoints of the same shape: GLM-4.6/4.7 differ only in 202752 positions)',
    ),
    {
      url: 'https://huggingface.co/docs/transformers/en/model_doc/glm4_moe',
      note: 'GLM-4.5: 355B total / 32B active; GLM-4.5-Air: 106B total / 12B active; 128K context',
    },
  ],
  estimated: [],
};

const GLM_45_AIR: ModelSpec = {
  ...GLM_45,
  id: 'zai-org/GLM-4.5-Air',
  aliases: ['glm4.5-air', 'glm-4.5-air', 'zai-org/GLM-4.5-Air-FP8', 'zai-org/GLM-4.5-Air-Base'],
  totalParamsB: 106,
  activeParamsB: 12,
  layers: 46,
  hiddenSize: 4096,
  kvLayers: 46,
  moe: { experts: 128, activeExperts: 8, sharedExperts: 1 },
  sources: [
    hf(
      'zai-org/GLM-4.5-Air',
      '46 layers (first_k_dense_replace 1), hidden 4096, 96 heads, 8 KV heads, head_dim 128, 128 routed ' +
        'experts top-8 + 1 shared, moe_intermediate_size 1408, max_position_embeddings 131072 (confirmed from ' +
        'the config of INTELLECT-3, a GLM-4.5-Air-Base fine-tune)',
    ),
    GLM_45.sources[1]!,
  ],
};

const MINIMAX_M2: ModelSpec = {
  id: 'MiniMaxAI/MiniMax-M2',
  aliases: ['minimaxm2', 'minimax-m2', 'MiniMaxAI/MiniMax-M2.1', 'minimaxm2.1'],
  totalParamsB: 230,
  activeParamsB: 10,
  layers: 62,
  hiddenSize: 3072,
  attention: { kind: 'GQA', heads: 48, kvHeads: 8, headDim: 128 },
  kvLayers: 62,
  stateBytesPerSeq: 0,
  sparseAttentionTopK: null,
  moe: { experts: 256, activeExperts: 8, sharedExperts: 0 },
  maxContext: 196608,
  sources: [
    hf(
      'MiniMaxAI/MiniMax-M2',
      'MiniMaxM2ForCausalLM: num_hidden_layers 62, hidden 3072, 48 heads, 8 KV heads, head_dim 128, ' +
        'num_local_experts 256 top-8, shared_intermediate_size 0, full attention on every layer ' +
        '(attn_type_list all 1), max_position_embeddings 196608 (confirmed from the M2 configuration defaults ' +
        'and the M2.1 config, same architecture; the 3 MTP modules are excluded)',
    ),
    card('MiniMaxAI/MiniMax-M2', 'model card: 230B total / 10B active'),
  ],
  estimated: [],
};

const GPT_OSS_20B: ModelSpec = {
  id: 'openai/gpt-oss-20b',
  aliases: ['gptoss20b', 'gpt-oss-20b'],
  totalParamsB: 20.9,
  activeParamsB: 3.6,
  layers: 24,
  hiddenSize: 2880,
  attention: { kind: 'GQA', heads: 64, kvHeads: 8, headDim: 64 },
  // layer_types alternate sliding_attention (128-token window) and full_attention: 12 full layers; the
  // window of the other 12 is fixed state (12 x 128 tokens x 2 x 8 x 64 x 2 B), as for gpt-oss-120b.
  kvLayers: 12,
  stateBytesPerSeq: 12 * 128 * 2 * 8 * 64 * 2,
  sparseAttentionTopK: null,
  moe: { experts: 32, activeExperts: 4, sharedExperts: 0 },
  maxContext: 131072,
  sources: [
    hf(
      'openai/gpt-oss-20b',
      'num_hidden_layers 24, hidden_size 2880, 64 heads, 8 KV heads, head_dim 64, num_local_experts 32, ' +
        'num_experts_per_tok 4, sliding_window 128 on alternate layer_types, max_position_embeddings 131072 ' +
        '(confirmed from configs of fine-tunes with the same shape and the slime-ascend model script)',
    ),
    card('openai/gpt-oss-20b', '21B total (20.9B) / 3.6B active, MXFP4 experts, 128K context'),
  ],
  estimated: [],
};

/** Qwen3 2507 updates: same shapes, 262,144-token native context. */
const qwen2507 = (base: ModelSpec, id: string, aliases: string[], confirmed: boolean): ModelSpec => ({
  ...base,
  id,
  aliases,
  maxContext: 262144,
  sources: [
    card(
      id,
      confirmed
        ? 'the 2507 Instruct/Thinking update of the same architecture: 262,144 tokens native context'
        : 'the 2507 update of the same architecture; 262,144 tokens native context taken from the ' +
            'Qwen3-235B-A22B 2507 models, not confirmed for this one',
    ),
    ...base.sources,
  ],
  estimated: confirmed ? base.estimated : [...base.estimated, 'maxContext'],
});

export const CURRENT_MODELS: readonly ModelSpec[] = [
  QWEN3_235B,
  qwen2507(
    QWEN3_235B,
    'Qwen/Qwen3-235B-A22B-Instruct-2507',
    [
      'qwen3-235b-2507',
      'Qwen/Qwen3-235B-A22B-Instruct-2507-FP8',
      'Qwen/Qwen3-235B-A22B-Thinking-2507',
      'Qwen/Qwen3-235B-A22B-Thinking-2507-FP8',
    ],
    true,
  ),
  QWEN3_30B,
  qwen2507(
    QWEN3_30B,
    'Qwen/Qwen3-30B-A3B-Instruct-2507',
    [
      'qwen3-30b-2507',
      'Qwen/Qwen3-30B-A3B-Instruct-2507-FP8',
      'Qwen/Qwen3-30B-A3B-Thinking-2507',
      'Qwen/Qwen3-30B-A3B-Thinking-2507-FP8',
    ],
    false,
  ),
  LLAMA4_SCOUT,
  LLAMA4_MAVERICK,
  DEEPSEEK_V3,
  DEEPSEEK_V31,
  DEEPSEEK_V32,
  KIMI_K2,
  KIMI_K2_0905,
  GLM_45,
  GLM_45_AIR,
  MINIMAX_M2,
  GPT_OSS_20B,
];
