import { describe, expect, it } from 'vitest';
import { sglangChunkedPrefill } from '../../catalog/engine-defaults.ts';
import { accelerator, model } from '../../catalog/index.ts';
import { DEFAULT_RESERVE_GIB, GIB, weightBytesPerRank } from '../../catalog/memory.ts';
import { resolveSim, type SimSetup } from './config.ts';
import { frameworkProfile } from './engine-profile.ts';
import { explainPoint, formatExplain } from './explain.ts';
import { ALLREDUCE_LATENCY_US, allReduceLatencyUs, TRT_ALLREDUCE_LATENCY_US } from './perf-constants.ts';
import { PerfModel } from './perf-model.ts';
import { setupOfRow } from './rows.ts';

/** KV-cache dtype and memory split per framework (issue 21, part 1), and `sim predict --explain`'s figures. */

const row = (framework: string, precision: string, over: Record<string, unknown> = {}) => ({
  model: 'deepseek-ai/DeepSeek-R1-0528',
  'model-prefix': 'dsr1',
  precision,
  framework,
  runner: 'b200',
  isl: 8192,
  osl: 1024,
  tp: 8,
  pp: 1,
  ep: 1,
  'dp-attn': false,
  'spec-decoding': 'none',
  conc: 64,
  ...over,
});

const single = (r: Record<string, unknown>, opts = {}) => setupOfRow(r, opts) as SimSetup;

describe('KV-cache dtype per framework and precision', () => {
  it('TensorRT-LLM rows keep an FP8 KV cache for FP8 and FP4 weights; vLLM and SGLang only for FP4', () => {
    // A model no reference script covers: the framework's rule alone (script-kv.ts adds the scripts').
    const unscripted = (framework: string, precision: string) =>
      row(framework, precision, { 'model-prefix': 'unscripted' });
    const cases: [string, string, string][] = [
      ['trt', 'fp8', 'fp8'],
      ['dynamo-trt', 'fp4', 'fp8'],
      ['vllm', 'fp8', 'bf16'],
      ['dynamo-vllm', 'fp4', 'fp8'],
      ['sglang', 'fp8', 'bf16'],
      ['sglang-disagg', 'fp4', 'fp8'],
      ['atom', 'fp8', 'bf16'],
      ['trt', 'bf16', 'bf16'],
    ];
    for (const [framework, precision, kv] of cases) {
      expect(single(unscripted(framework, precision)).kvPrecision, `${framework} ${precision}`).toBe(kv);
    }
  });

  it('an -FP8-KV checkpoint and --kv-cache-dtype override the framework rule', () => {
    const amd = row('vllm', 'fp8', {
      model: 'amd/Llama-3.1-70B-Instruct-FP8-KV',
      'model-prefix': 'llama70b',
    });
    expect(frameworkProfile('vllm', 'fp8', String(amd.model)).kvPrecision).toBe('fp8');
    expect(single(row('vllm', 'fp8'), { kvCacheDtype: 'fp8' }).kvPrecision).toBe('fp8');
    expect(single(row('trt', 'fp8'), { kvCacheDtype: 'bf16' }).kvPrecision).toBe('bf16');
    expect(frameworkProfile('trt', 'fp8', '', 'bf16').kvReason).toBe('--kv-cache-dtype');
  });
});

describe('token budget per framework', () => {
  const dep8 = { tp: 8, ep: 8, 'dp-attn': true };
  it('vLLM and TensorRT-LLM: decodes take from the budget, which is per DP rank under DP attention', () => {
    for (const fw of ['vllm', 'trt', 'dynamo-trt']) {
      expect(single(row(fw, 'fp8'))).toMatchObject({ maxNumBatchedTokens: 8192, decodesInBudget: true });
      expect(single(row(fw, 'fp8', dep8))).toMatchObject({
        maxNumBatchedTokens: 8 * 8192,
        decodesInBudget: true,
      });
    }
  });

  it("SGLang: the chunked-prefill budget is the whole worker's and bounds prefill only", () => {
    for (const over of [{}, dep8]) {
      expect(single(row('sglang', 'fp8', { ...over, runner: 'h200' }))).toMatchObject({
        maxNumBatchedTokens: 8192,
        decodesInBudget: false,
      });
    }
    const lines = formatExplain(explainPoint(row('sglang', 'fp8', { ...dep8, runner: 'h200' }), 64)).join(
      '\n',
    );
    expect(lines).toContain('token budget: 8192 per step for prefill chunks (decodes outside it)');
    expect(lines).toContain('divided among 8 DP ranks');
    expect(lines).toMatch(/prefill: 1 seq × \d+ tokens .*a lone request's prefill runs on one of 8 ranks/);
    // TensorRT-LLM's attention-DP balancer spreads them: no such line.
    const trt = formatExplain(explainPoint(row('trt', 'fp8', { ...dep8, runner: 'h200' }), 64)).join('\n');
    expect(trt).toContain('prefill: 1 seq');
    expect(trt).not.toContain('runs on one of');
  });

  it("SGLang: the chunk's default follows the GPU's memory, as server_args.py sets it", () => {
    expect([24, 48, 80, 96, 141, 180, 192, 288].map(sglangChunkedPrefill)).toEqual([
      2048, 4096, 8192, 8192, 8192, 16384, 16384, 16384,
    ]);
    // B200 (180 GiB) and MI355X (288 GiB) rows get 16,384; H100 and H200 8,192; vLLM keeps 8,192 on any.
    for (const [runner, fw, budget] of [
      ['b200', 'sglang', 16384],
      ['mi355x', 'sglang-disagg', 16384],
      ['h100', 'sglang', 8192],
      ['b200', 'vllm', 8192],
    ] as const)
      expect(single(row(fw, 'fp8', { runner })).maxNumBatchedTokens).toBe(budget);
    const lines = formatExplain(explainPoint(row('sglang', 'fp8', { runner: 'b200' }), 64)).join('\n');
    expect(lines).toContain('--chunked-prefill-size 16384 (its default on a GPU of 180 GiB)');
  });
});

describe('CUDA graph ceiling per framework (sim predict --explain)', () => {
  const graphs = (fw: string, over: Record<string, unknown>, conc: number) => {
    const e = explainPoint(row(fw, 'fp8', { isl: 1024, osl: 1024, runner: 'h200', ...over }), conc);
    return { memory: e.memory[0]?.cudaGraphs, decode: e.phases[1], lines: formatExplain(e).join('\n') };
  };

  it('vLLM: min(2 × max_num_seqs × decode tokens, 512) tokens; a wider decode batch is flagged, not modelled', () => {
    const plain = graphs('vllm', {}, 64);
    expect(plain.memory).toMatchObject({ ceiling: 512, unit: 'tokens' });
    expect(plain.decode?.aboveCudaGraphs).toBeUndefined();
    // MTP: 256 sequences × 4 tokens = 1,024 tokens per step, above 512.
    const mtp = graphs('vllm', { 'spec-decoding': 'mtp' }, 256);
    expect(mtp.decode?.aboveCudaGraphs).toEqual({ batch: 1024, ceiling: 512, unit: 'tokens' });
    expect(mtp.lines).toContain('above the CUDA graph ceiling (512)');
    expect(mtp.lines).toContain('its default max_num_seqs 1024 × 4 decode tokens');
  });

  it("SGLang: --cuda-graph-max-bs by GPU memory and tp, in requests per DP rank; TensorRT-LLM: its script's, else unknown", () => {
    expect(graphs('sglang', { runner: 'b200' }, 64).memory).toMatchObject({ ceiling: 512, unit: 'requests' });
    expect(
      graphs('sglang', { tp: 2, model: 'meta-llama/Llama-3.3-70B-Instruct', 'model-prefix': 'llama' }, 64)
        .memory,
    ).toMatchObject({ ceiling: 256 });
    // DEP8 at conc 4096: 512 requests per rank, at the ceiling, not above it.
    const dep = graphs('sglang', { 'dp-attn': true, ep: 8 }, 4096);
    expect(dep.decode?.aboveCudaGraphs).toBeUndefined();
    // DeepSeek-R1 on H200: the reference's script captures up to 128 requests; 256 on one engine are above.
    const trt = graphs('trt', {}, 64);
    expect(trt.memory).toMatchObject({ ceiling: 128, unit: 'requests' });
    expect(trt.lines).toContain(
      "CUDA graphs: decode batches up to 128 requests per rank (trt: the reference's dsr1_fp8_h200_trt.sh: cuda_graph_config.max_batch_size 128)",
    );
    expect(graphs('trt', {}, 256).decode?.aboveCudaGraphs).toEqual({
      batch: 256,
      ceiling: 128,
      unit: 'requests',
    });
    // A model no script covers: unknown.
    const llama = graphs('trt', { model: 'meta-llama/Llama-3.3-70B-Instruct', 'model-prefix': 'llama' }, 64);
    expect(llama.memory?.ceiling).toBeNull();
    expect(llama.lines).toContain(
      "CUDA graphs: trt: cuda_graph_config comes from the recipe's extra options",
    );
  });
});

describe('memory split per framework', () => {
  const acc = accelerator('b200');
  const m = model('deepseek-ai/DeepSeek-R1-0528');
  const weights = weightBytesPerRank(m, 'fp8', { tp: 8, pp: 1, ep: 1, dpAttn: false });
  const total = acc.memoryGiB * GIB;
  const reserve = DEFAULT_RESERVE_GIB * GIB;

  it('vLLM and SGLang: the fraction of the whole GPU, weights and reserve inside it', () => {
    for (const fw of ['vllm', 'sglang']) {
      const plan = resolveSim(single(row(fw, 'fp8'))).plan;
      expect(plan.budgetBytes).toBeCloseTo(0.9 * total, 0);
      expect(plan.kvBytesPerRank).toBeCloseTo(0.9 * total - weights - reserve, 0);
    }
  });

  it('TensorRT-LLM: the fraction of what the weights and reserve leave free, with twice the tokens per byte', () => {
    const trt = resolveSim(single(row('trt', 'fp8'))).plan;
    const vllm = resolveSim(single(row('vllm', 'fp8'))).plan;
    expect(trt.kvBytesPerRank).toBeCloseTo(0.9 * (total - weights - reserve), 0);
    expect(trt.kvBytesPerTokenPerRank * 2).toBe(vllm.kvBytesPerTokenPerRank);
    expect(trt.kvTokens).toBeGreaterThan(2 * vllm.kvTokens);
  });

  it('--explain: the split adds up to the budget, and names what binds each phase', () => {
    const e = explainPoint(row('trt', 'fp8'), 64);
    const [mem] = e.memory;
    expect(mem!.weightsGiB + mem!.reserveGiB + mem!.kvPoolGiB).toBeCloseTo(mem!.budgetGiB, 6);
    expect(mem).toMatchObject({ kvPrecision: 'fp8', fractionOf: 'free', accelerator: 'b200' });
    const [prefill, decode] = e.phases;
    expect(prefill).toMatchObject({ phase: 'prefill', newTokensPerSeq: 8192, binding: 'compute' });
    expect(decode).toMatchObject({
      phase: 'decode',
      seqs: 64,
      binding: 'memory bandwidth',
      kvLimitedSeqs: null,
    });
    // A small KV pool caps the decode batch below the users.
    const tight = explainPoint(row('vllm', 'fp8', { runner: 'h200' }), 4096);
    expect(tight.phases[1]!.kvLimitedSeqs).not.toBeNull();
    expect(tight.phases[1]!.seqs).toBe(tight.phases[1]!.kvLimitedSeqs);
  });

  it('--explain on a disaggregated row: one memory split per pool, prefill on the prefill pool', () => {
    const worker = (n: number) => ({ 'num-worker': n, tp: 8, ep: 8, 'dp-attn': true, pp: 1 });
    const e = explainPoint(row('dynamo-trt', 'fp4', { prefill: worker(2), decode: worker(1) }), 512);
    expect(e.memory.map((x) => [x.pool, x.workers, x.kvPrecision])).toEqual([
      ['prefill', 2, 'fp8'],
      ['decode', 1, 'fp8'],
    ]);
    // The caps the prediction runs with: each worker its share of the 512 users (at least 256).
    expect(e.memory.map((x) => x.maxNumSeqs)).toEqual([256, 512]);
    expect(e.phases[1]!.seqs).toBeLessThanOrEqual(512);
  });
});

describe('all-reduce latency per engine family', () => {
  const decode = {
    tokens: 8,
    pairs: 8 * 4096,
    prefillPairs: 0,
    prefillTokens: 0,
    prefillChunks: 0,
    queued: 0,
    kvTokens: 8 * 4096,
    seqs: 8,
  };
  const stepMs = (r: Record<string, unknown>) => {
    const perf = resolveSim(single(r)).perf;
    return perf.stepTimeTotals({ ...decode }, 0);
  };

  it("TensorRT-LLM's fused one-shot all-reduce is cheaper; every other family keeps the global latency", () => {
    expect(allReduceLatencyUs('trt')).toBe(TRT_ALLREDUCE_LATENCY_US);
    for (const f of ['vllm', 'sglang', 'other'] as const)
      expect(allReduceLatencyUs(f)).toBe(ALLREDUCE_LATENCY_US);
    expect(TRT_ALLREDUCE_LATENCY_US).toBeLessThan(ALLREDUCE_LATENCY_US);
  });

  it('a row carries its framework into the step time: TP8 decode saves the latency on two all-reduces per layer', () => {
    expect(single(row('trt', 'fp8')).engineFamily).toBe('trt');
    expect(single(row('dynamo-trt', 'fp8')).engineFamily).toBe('trt');
    expect(single(row('sglang', 'fp8')).engineFamily).toBe('sglang');
    // The same KV dtype for both (the step reads the KV), so only the all-reduce term differs.
    const trt = single(row('trt', 'fp8'));
    const sgl = { ...single(row('sglang', 'fp8')), kvPrecision: trt.kvPrecision };
    const m = model('deepseek-ai/DeepSeek-R1-0528');
    const saved = (2 * (ALLREDUCE_LATENCY_US - TRT_ALLREDUCE_LATENCY_US) * m.layers) / 1000;
    const diff =
      resolveSim(sgl).perf.stepTimeTotals({ ...decode }, 0) -
      resolveSim(trt).perf.stepTimeTotals({ ...decode }, 0);
    expect(diff).toBeCloseTo(saved, 6);
    expect(stepMs(row('vllm', 'fp8'))).toBeGreaterThan(stepMs(row('trt', 'fp8')));
  });

  it('a PerfModel without a family (sim serve from flags, tests) is the global one', () => {
    const base = {
      model: model('deepseek-ai/DeepSeek-R1-0528'),
      accelerator: accelerator('b200'),
      precision: 'fp8' as const,
      kvPrecision: 'fp8' as const,
      par: { tp: 8, pp: 1, ep: 1, dpAttn: false },
    };
    const none = new PerfModel(base).stepTimeTotals({ ...decode }, 0);
    expect(new PerfModel({ ...base, family: 'other' }).stepTimeTotals({ ...decode }, 0)).toBe(none);
    expect(new PerfModel({ ...base, family: 'trt' }).stepTimeTotals({ ...decode }, 0)).toBeLessThan(none);
  });
});
