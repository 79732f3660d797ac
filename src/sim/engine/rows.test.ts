import { describe, expect, it } from 'vitest';
import { dsr1H200Row } from '../../../test/rows.ts';
import { formatOutcome, predictRows, setupOfRow, withTrtScriptBudget } from './rows.ts';

const row = dsr1H200Row();

const multiNode = {
  ...row,
  conc: [8, 16],
  prefill: { 'num-worker': 1, tp: 8, ep: 8, 'dp-attn': false, pp: 1, 'dcp-size': 1, 'pcp-size': 1 },
  decode: { 'num-worker': 1, tp: 8, ep: 8, 'dp-attn': true, pp: 1, 'dcp-size': 1, 'pcp-size': 1 },
  disagg: true,
};

describe('predictRows', () => {
  it('predicts single-node and disaggregated rows, one point per concurrency', () => {
    const out = predictRows([row, { ...row, conc: [1, 8], 'spec-decoding': 'mtp' }, multiNode]);
    expect(out.map((o) => [o.status, o.conc])).toEqual([
      ['ok', 4],
      ['ok', 1],
      ['ok', 8],
      ['ok', 8],
      ['ok', 16],
    ]);
    const first = out[0]!;
    if (first.status !== 'ok') throw new Error('expected a prediction');
    expect(first.prediction.gpus).toBe(8);
    expect(first.prediction.interactivity).toBeGreaterThan(0);
    expect(out[1]!.status === 'ok' && out[1]!.acceptanceLength).toBe(2.34); // SGLang's DeepSeek-R1 scripts on NVIDIA draft 2 (spec-recipe.ts)
    expect(formatOutcome(first)).toMatch(/^dsr1_1k1k h200-dgxc fp8 sglang tp8 conc=4: \d+ tok\/s\/GPU/);
    // Every figure is the simulated engine's, and the line says so.
    expect(formatOutcome(first)).toMatch(/; simulated\)$/);
    const pd = out[3]!;
    expect(pd.status === 'ok' && pd.prediction.gpus).toBe(16);
    expect(formatOutcome(pd)).toMatch(/1P tp8 ep8 \/ 1D tp8 ep8 dp-attn conc=8: \d+ tok\/s\/GPU/);
    const agentic = predictRows({ ...row, 'scenario-type': 'agentic-coding' });
    expect(agentic[0]!.status).toBe('unsupported');
  });

  it("lets a disaggregated point's one decode worker run all its users, as a single engine does", () => {
    // 1,024 users on one decode worker: the engines' 256-sequence default would queue three quarters of them.
    const [p256, p1024] = predictRows({ ...multiNode, conc: [256, 1024] });
    if (p256?.status !== 'ok' || p1024?.status !== 'ok') throw new Error('expected predictions');
    expect(p1024.prediction.throughputPerGpu).toBeGreaterThan(2 * p256.prediction.throughputPerGpu);
  });

  it('turns unknown models and hardware into error outcomes carrying the catalog message', () => {
    const out = predictRows([
      { ...row, model: 'acme/Nope-1T', 'model-prefix': 'nope' },
      { ...row, runner: 'tpu-v9' },
    ]);
    expect(out.map((o) => o.status)).toEqual(['error', 'error']);
    expect(out[0]!.status === 'error' && out[0]!.reason).toMatch(/unknown model 'acme\/Nope-1T'.*models\.ts/);
    expect(out[1]!.status === 'error' && out[1]!.reason).toMatch(/unknown accelerator 'tpu-v9'/);
  });
});

describe('caveats', () => {
  it('say where TensorRT-LLM with DP-attention predicts a TTFT too low (its balancer, per rank), on the line too', () => {
    const dp = { ...row, framework: 'trt', tp: 8, ep: 8, 'dp-attn': true, conc: [64] };
    const [trt, vllm, tp] = predictRows([dp, { ...dp, framework: 'vllm' }, { ...dp, 'dp-attn': false }]);
    if (trt?.status !== 'ok' || vllm?.status !== 'ok' || tp?.status !== 'ok')
      throw new Error('expected predictions');
    expect(trt.caveats).toHaveLength(1);
    expect(trt.caveats[0]).toMatch(/^TTFT low by up to about 3x: TensorRT-LLM's attention-DP balancer/);
    expect(formatOutcome(trt)).toContain('; caveat: TTFT low by up to about 3x: ');
    expect(formatOutcome(trt)).toMatch(/; simulated\)$/);
    expect(vllm.caveats).toEqual([]);
    expect(tp.caveats).toEqual([]);
    expect(formatOutcome(tp)).not.toContain('caveat');
  });
});

describe("TensorRT-LLM's recipes with DP-attention", () => {
  it("run the attention-DP balancer on a single engine, and with MTP the scripts' token budget", () => {
    const dp = { ...row, framework: 'trt', tp: 8, ep: 8, 'dp-attn': true, isl: 1024, conc: [256] };
    const single = setupOfRow(dp);
    if ('prefill' in single || 'replicas' in single) throw new Error('expected one engine');
    expect(single.dpBalanceTimeoutSteps).toBe(60);
    expect(setupOfRow({ ...dp, 'dp-attn': false })).not.toHaveProperty('dpBalanceTimeoutSteps');
    expect(setupOfRow({ ...dp, framework: 'vllm' })).not.toHaveProperty('dpBalanceTimeoutSteps');
    const pd = setupOfRow({ ...multiNode, framework: 'dynamo-trt' });
    if (!('prefill' in pd)) throw new Error('expected a disaggregated setup');
    expect(pd.decode.setup).not.toHaveProperty('dpBalanceTimeoutSteps');
    // Without MTP the DeepSeek-R1 scripts keep at least 8,192 a rank; with one draft token:
    // ⌈(2 · 256 / 8 + 1024 + 64) / 64⌉ · 64 = 1152 a rank.
    expect(withTrtScriptBudget(single, dp, 256).maxNumBatchedTokens).toBe(8192 * 8);
    const mtpRow = { ...dp, 'spec-decoding': 'mtp' };
    const mtp = setupOfRow(mtpRow, { draftTokens: 1, acceptanceLength: 1.875 });
    if ('prefill' in mtp || 'replicas' in mtp) throw new Error('expected one engine');
    expect(withTrtScriptBudget(mtp, mtpRow, 256).maxNumBatchedTokens).toBe(1152 * 8);
    // Other engines keep their framework's budget.
    const vllm = setupOfRow({ ...dp, framework: 'vllm' });
    if ('prefill' in vllm || 'replicas' in vllm) throw new Error('expected one engine');
    expect(withTrtScriptBudget(vllm, { ...dp, framework: 'vllm' }, 256)).toBe(vllm);
  });
});
