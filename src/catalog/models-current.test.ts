import { describe, expect, it } from 'vitest';
import {
  kvBytesPerToken,
  kvBytesPerTokenPerRank,
  model,
  stateBytesPerSeqPerRank,
  weightBytes,
  weightBytesPerRank,
  weightSplit,
} from './index.ts';
import { MODELS } from './models.ts';
import { CURRENT_MODELS } from './models-current.ts';

/**
 * The current-generation entries (models-current.ts) against their config.json values, restated here by hand:
 * KV bytes per token from layers, KV heads and head dim (GQA) or the MLA latent, and the routed-expert
 * parameters from the MoE shape (MoE layers x experts x 3 x hidden x moe_intermediate_size), which the
 * headline total/active counts must reproduce through memory.ts's weightSplit.
 */

interface Expected {
  id: string;
  names: string[];
  /** KV bytes per token at bf16 over the whole model, from config.json. */
  kvBf16: number;
  /** Routed-expert parameters from config.json, billions. */
  routedB: number;
  maxContext: number;
}

const gqa = (kvLayers: number, kvHeads: number, headDim: number) => 2 * kvLayers * kvHeads * headDim * 2;
const mla = (layers: number) => (512 + 64) * layers * 2;
const routed = (moeLayers: number, experts: number, hidden: number, inter: number) =>
  (moeLayers * experts * 3 * hidden * inter) / 1e9;

const EXPECTED: Expected[] = [
  {
    id: 'Qwen/Qwen3-235B-A22B',
    names: ['qwen3-235b', 'Qwen/Qwen3-235B-A22B-FP8', 'Qwen3-235B-A22B', 'someorg/Qwen3-235B-A22B-NVFP4'],
    kvBf16: gqa(94, 4, 128),
    routedB: routed(94, 128, 4096, 1536),
    maxContext: 40960,
  },
  {
    id: 'Qwen/Qwen3-235B-A22B-Instruct-2507',
    names: [
      'qwen3-235b-2507',
      'Qwen/Qwen3-235B-A22B-Instruct-2507-FP8',
      'Qwen/Qwen3-235B-A22B-Thinking-2507',
    ],
    kvBf16: gqa(94, 4, 128),
    routedB: routed(94, 128, 4096, 1536),
    maxContext: 262144,
  },
  {
    id: 'Qwen/Qwen3-30B-A3B',
    names: ['qwen3-30b', 'Qwen/Qwen3-30B-A3B-FP8'],
    kvBf16: gqa(48, 4, 128),
    routedB: routed(48, 128, 2048, 768),
    maxContext: 40960,
  },
  {
    id: 'Qwen/Qwen3-30B-A3B-Instruct-2507',
    names: ['qwen3-30b-2507', 'Qwen/Qwen3-30B-A3B-Thinking-2507'],
    kvBf16: gqa(48, 4, 128),
    routedB: routed(48, 128, 2048, 768),
    maxContext: 262144,
  },
  {
    id: 'meta-llama/Llama-4-Scout-17B-16E',
    names: [
      'llama4-scout',
      'meta-llama/Llama-4-Scout-17B-16E-Instruct',
      'nvidia/Llama-4-Scout-17B-16E-Instruct-FP8',
      'RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic',
    ],
    // All 48 layers (chunked local attention is counted as full: see the entry's note).
    kvBf16: gqa(48, 8, 128),
    routedB: routed(48, 16, 5120, 8192),
    maxContext: 10485760,
  },
  {
    id: 'meta-llama/Llama-4-Maverick-17B-128E',
    names: ['llama4-maverick', 'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8'],
    kvBf16: gqa(48, 8, 128),
    // interleave_moe_layer_step 2: 24 MoE layers.
    routedB: routed(24, 128, 5120, 8192),
    maxContext: 1048576,
  },
  {
    id: 'deepseek-ai/DeepSeek-V3',
    names: ['dsv3', 'deepseek-ai/DeepSeek-V3-0324', 'nvidia/DeepSeek-V3-0324-FP4'],
    kvBf16: mla(61),
    // first_k_dense_replace 3: 58 MoE layers.
    routedB: routed(58, 256, 7168, 2048),
    maxContext: 163840,
  },
  {
    id: 'deepseek-ai/DeepSeek-V3.1',
    names: ['dsv3.1', 'deepseek-ai/DeepSeek-V3.1-Terminus', 'someorg/DeepSeek-V3.1-FP8'],
    kvBf16: mla(61),
    routedB: routed(58, 256, 7168, 2048),
    maxContext: 163840,
  },
  {
    id: 'deepseek-ai/DeepSeek-V3.2-Exp',
    names: ['dsv3.2', 'deepseek-ai/DeepSeek-V3.2', 'DeepSeek-V3.2-Exp'],
    kvBf16: mla(61),
    routedB: routed(58, 256, 7168, 2048),
    maxContext: 163840,
  },
  {
    id: 'moonshotai/Kimi-K2-Instruct',
    names: ['kimik2', 'kimi-k2', 'moonshotai/Kimi-K2-Base'],
    kvBf16: mla(61),
    routedB: routed(60, 384, 7168, 2048),
    maxContext: 131072,
  },
  {
    id: 'moonshotai/Kimi-K2-Instruct-0905',
    names: ['kimik2-0905', 'moonshotai/Kimi-K2-Thinking'],
    kvBf16: mla(61),
    routedB: routed(60, 384, 7168, 2048),
    maxContext: 262144,
  },
  {
    id: 'zai-org/GLM-4.5',
    names: ['glm4.5', 'zai-org/GLM-4.5-FP8'],
    kvBf16: gqa(92, 8, 128),
    routedB: routed(89, 160, 5120, 1536),
    maxContext: 131072,
  },
  {
    id: 'zai-org/GLM-4.5-Air',
    names: ['glm4.5-air', 'zai-org/GLM-4.5-Air-FP8'],
    kvBf16: gqa(46, 8, 128),
    routedB: routed(45, 128, 4096, 1408),
    maxContext: 131072,
  },
  {
    id: 'MiniMaxAI/MiniMax-M2',
    names: ['minimaxm2', 'MiniMaxAI/MiniMax-M2.1'],
    kvBf16: gqa(62, 8, 128),
    routedB: routed(62, 256, 3072, 1536),
    maxContext: 196608,
  },
  {
    id: 'openai/gpt-oss-20b',
    names: ['gptoss20b', 'gpt-oss-20b', 'openai/gpt-oss-20b'],
    // 12 of the 24 layers are full attention.
    kvBf16: gqa(12, 8, 64),
    routedB: routed(24, 32, 2880, 2880),
    maxContext: 131072,
  },
];

const par = (tp: number) => ({ tp, pp: 1, ep: 1, dpAttn: false });

describe('current-generation catalog entries', () => {
  it('are all in MODELS, each tested here', () => {
    for (const m of CURRENT_MODELS) expect(MODELS).toContain(m);
    expect(EXPECTED.map((e) => e.id).sort()).toEqual(CURRENT_MODELS.map((m) => m.id).sort());
  });

  it('claim no name an earlier entry already holds', () => {
    const earlier = MODELS.filter((m) => !CURRENT_MODELS.includes(m));
    const key = (n: string) => n.slice(n.lastIndexOf('/') + 1).toLowerCase();
    const taken = new Set(earlier.flatMap((m) => [m.id, ...m.aliases].map(key)));
    for (const m of CURRENT_MODELS)
      for (const n of [m.id, ...m.aliases]) expect(taken.has(key(n)), `${m.id}: ${n}`).toBe(false);
  });

  it.each(EXPECTED.map((e) => [e.id, e] as const))('%s: names, KV bytes, weights', (id, e) => {
    const m = model(id);
    expect(m.id).toBe(id);
    for (const name of e.names) expect(model(name).id, name).toBe(id);
    expect(m.maxContext).toBe(e.maxContext);
    expect(kvBytesPerToken(m, 'bf16')).toBe(e.kvBf16);
    expect(kvBytesPerToken(m, 'fp8')).toBe(e.kvBf16 / 2);
    // The headline counts split into routed experts within 4% of the config's expert tensors (gpt-oss's
    // active count leaves out the embedding, which puts it furthest off, 3.5%).
    const split = weightSplit(m);
    expect(Math.abs(split.routedB / e.routedB - 1), `routed ${split.routedB} vs ${e.routedB}`).toBeLessThan(
      0.04,
    );
    expect(weightBytes(m, 'fp8')).toBeCloseTo(m.totalParamsB * 1e9, -3);
    expect(weightBytes(m, 'bf16')).toBeCloseTo(m.totalParamsB * 2e9, -3);
  });

  it('splits KV per rank the way the attention kind implies', () => {
    // Qwen3-235B: 4 KV heads at TP8 leave one (replicated) head per rank: 2 x 1 x 128 x 94 layers, fp8.
    const qwen = model('qwen3-235b');
    expect(kvBytesPerTokenPerRank(qwen, 'fp8', par(8))).toBe(2 * 1 * 128 * 94);
    expect(kvBytesPerTokenPerRank(qwen, 'fp8', par(2))).toBe(2 * 2 * 128 * 94);
    expect(weightBytesPerRank(qwen, 'fp8', par(8))).toBeCloseTo(235e9 / 8, -3);
    // Llama 4 Scout: 8 KV heads over TP8, one each, all 48 layers.
    expect(kvBytesPerTokenPerRank(model('llama4-scout'), 'bf16', par(8))).toBe(2 * 1 * 128 * 48 * 2);
    // MLA: every rank keeps the whole 576-element latent row of every layer.
    for (const name of ['dsv3', 'dsv3.2', 'kimik2'])
      expect(kvBytesPerTokenPerRank(model(name), 'bf16', par(8))).toBe(576 * 61 * 2);
    expect(model('dsv3.2').sparseAttentionTopK).toBe(2048);
    expect(model('dsv3.1').sparseAttentionTopK).toBeNull();
    // gpt-oss-20b: 12 sliding layers hold a 128-token window of K and V (8 heads x 64) as fixed state.
    const oss = model('gptoss20b');
    expect(stateBytesPerSeqPerRank(oss, par(1))).toBe(12 * 128 * 2 * 8 * 64 * 2);
    expect(kvBytesPerTokenPerRank(oss, 'bf16', par(1))).toBe(2 * 8 * 64 * 12 * 2);
  });

  it('keeps the older names where they were', () => {
    expect(model('gptoss').id).toBe('openai/gpt-oss-120b');
    expect(model('deepseek-ai/DeepSeek-R1').id).toBe('deepseek-ai/DeepSeek-R1-0528');
    expect(model('kimik2.6').id).toBe('moonshotai/Kimi-K2.6');
    expect(model('Qwen/Qwen3-32B-FP8').id).toBe('Qwen/Qwen3-32B');
  });
});
