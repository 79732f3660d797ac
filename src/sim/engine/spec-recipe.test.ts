import { describe, expect, it } from 'vitest';
import { dsr1H200Row, rowWorker } from '../../../test/rows.ts';
import type { SimSetup } from './config.ts';
import { explainPoint, formatExplain } from './explain.ts';
import { predictRows, setupOfRow } from './rows.ts';
import { acceptanceProbability, expectedAcceptance } from './spec-decode.ts';
import { DEFAULT_AL, SpecRecipeError, specOfRow } from './spec-recipe.ts';

type Row = Record<string, unknown>;
const mtp = (over: Row = {}): Row => ({ ...dsr1H200Row(), 'spec-decoding': 'mtp', ...over });
const shape = (r: Row, conc?: number, opts = {}) => specOfRow(r, 'mtp', opts, conc, 'row 0');
const disagg = (prefill: Row, decode: Row): Row => ({
  ...mtp({ framework: 'dynamo-trt', runner: 'b200' }),
  prefill: rowWorker(1, 8, prefill),
  decode: rowWorker(1, 8, decode),
  disagg: true,
});

describe("speculative decoding's shape from the row and its recipe", () => {
  it("takes the single-node scripts' draft lengths: DeepSeek-R1 on TensorRT-LLM drafts 1 with DP-attention, 3 without", () => {
    const dp = shape(mtp({ framework: 'trt', 'dp-attn': true, ep: 8 }), 64);
    expect([dp.draftTokens, dp.acceptanceLength]).toEqual([1, 1.875]);
    expect(dp.draftSource).toMatch(/MTP=1 with DP-attention/);
    const tp = shape(mtp({ framework: 'trt' }), 64);
    expect([tp.draftTokens, tp.acceptanceLength]).toEqual([3, DEFAULT_AL]);
  });

  it("leaves a draft-model row at the default: the scripts' rules are for MTP", () => {
    const r = mtp({ framework: 'trt', 'dp-attn': true, ep: 8, 'spec-decoding': 'draft_model' });
    expect(specOfRow(r, 'draft_model', {}, 64, 'row 0')).toMatchObject({
      draftTokens: 3,
      draftSource: 'default',
    });
  });

  it('drafts 2 for DeepSeek-R1 on SGLang on NVIDIA GPUs and 3 on AMD ones', () => {
    expect(shape(mtp({ runner: 'b200' }), 8).draftTokens).toBe(2);
    expect(shape(mtp({ runner: 'b200' }), 8).acceptanceLength).toBe(2.34);
    expect(shape(mtp({ runner: 'mi355x' }), 8).draftTokens).toBe(3);
  });

  it("follows DeepSeek-V4's TensorRT-LLM rule on ISL and users, with the golden AL at that length", () => {
    const v4 = (isl: number) => mtp({ 'model-prefix': 'dsv4', framework: 'trt', runner: 'b200', isl });
    expect(shape(v4(8192), 128)).toMatchObject({ draftTokens: 2, acceptanceLength: 2.27 });
    expect(shape(v4(8192), 64)).toMatchObject({ draftTokens: 3, acceptanceLength: 2.49 });
    expect(shape(v4(1024), 512)).toMatchObject({ draftTokens: 3, acceptanceLength: 2.49 });
    expect(shape(mtp({ 'model-prefix': 'dsv4', framework: 'vllm', runner: 'b200' }), 4).draftTokens).toBe(2);
  });

  it("reads what a disaggregated row states: DECODE_MTP_SIZE, a recipe file's mtpN, a forced acceptance length", () => {
    const sized = disagg(
      { 'additional-settings': ['PREFILL_NODES=1'] },
      {
        'additional-settings': ['DECODE_NODES=1', 'DECODE_MTP_SIZE=2'],
      },
    );
    expect(shape(sized, 64)).toMatchObject({ draftTokens: 2, draftSource: 'the row: DECODE_MTP_SIZE=2' });
    const named = disagg(
      {
        'additional-settings': [
          'CONFIG_FILE=recipes/trtllm/b200-fp4/8k1k/mtp/ctx1_gen1_dep8_batch8_eplb0_mtp1.yaml',
        ],
      },
      {},
    );
    expect(shape(named, 64)).toMatchObject({ draftTokens: 1, acceptanceLength: 1.875 });
    // A forced AL is the golden one of the recipe's draft length: the draft length follows from it.
    const forced = disagg(
      {
        'additional-settings': [
          'SYNTHETIC_ACCEPTANCE=true',
          'SYNTHETIC_ACCEPTANCE_LENGTH=1.79',
          'CONFIG_FILE=a/disagg-b200-3p1d-dep8-dep8-mtp.yaml',
        ],
      },
      {},
    );
    expect(shape({ ...forced, 'model-prefix': 'dsv4' }, 64)).toMatchObject({
      draftTokens: 1,
      acceptanceLength: 1.79,
    });
    // Not a golden value: the draft length stays the default, the forced AL is kept.
    expect(
      shape(
        {
          ...forced,
          prefill: rowWorker(1, 8, { 'additional-settings': ['SYNTHETIC_ACCEPTANCE_LENGTH=2.2'] }),
        },
        64,
      ),
    ).toMatchObject({ draftTokens: 3, acceptanceLength: 2.2 });
  });

  it('refuses a forced acceptance length the draft length cannot reach, naming the row and the fix', () => {
    const bad = disagg(
      { 'additional-settings': ['DECODE_MTP_SIZE=1', 'SYNTHETIC_ACCEPTANCE_LENGTH=2.5'] },
      {},
    );
    expect(() => shape(bad, 8)).toThrow(SpecRecipeError);
    expect(() => shape(bad, 8)).toThrow(
      /row 0: SYNTHETIC_ACCEPTANCE_LENGTH=2.5 is impossible with 1 draft token .*--draft-tokens/,
    );
    const nan = disagg({ 'additional-settings': ['SYNTHETIC_ACCEPTANCE_LENGTH=fast'] }, {});
    expect(() => shape(nan, 8)).toThrow(/SYNTHETIC_ACCEPTANCE_LENGTH=fast is not an acceptance length/);
    const out = predictRows([{ ...bad, conc: [8] }]);
    expect(out[0]).toMatchObject({ status: 'error' });
  });

  it('refuses a stated draft length out of range, and reads no draft length from an mtp0 recipe name', () => {
    for (const bad of ['DECODE_MTP_SIZE=0', 'DECODE_MTP_SIZE=99', 'DECODE_MTP_SIZE=two']) {
      expect(() => shape(disagg({}, { 'additional-settings': [bad] }), 8)).toThrow(
        new RegExp(`row 0: ${bad} is not a draft length \\(an integer from 1 to 16\\)`),
      );
    }
    const stp = disagg(
      { 'additional-settings': ['CONFIG_FILE=recipes/x/ctx1_gen4_tep8_batch1_eplb0_mtp0.yaml'] },
      {},
    );
    expect(shape(stp, 8)).toMatchObject({ draftTokens: 3, draftSource: 'default' });
    const [huge] = predictRows([{ ...mtp(), conc: [4] }], { draftTokens: 1_000_000 });
    expect(huge).toMatchObject({
      status: 'error',
      reason: expect.stringMatching(/draft tokens must be an integer from 1 to 16, got 1000000/),
    });
  });

  it('lets --draft-tokens and --acceptance-length win, the AL following the chosen draft length', () => {
    const dp = mtp({ framework: 'trt', 'dp-attn': true, ep: 8 });
    expect(shape(dp, 64, { draftTokens: 3 })).toMatchObject({ draftTokens: 3, acceptanceLength: DEFAULT_AL });
    expect(shape(dp, 64, { acceptanceLength: 1.5 })).toMatchObject({ draftTokens: 1, acceptanceLength: 1.5 });
    const v4 = mtp({ 'model-prefix': 'dsv4', framework: 'sglang', runner: 'b300' });
    expect(shape(v4, 4, { draftTokens: 1 })).toMatchObject({ acceptanceLength: 1.79 });
  });

  it("falls back to the chain model with AL 2.5's per-draft acceptance for a model with no table", () => {
    const p = acceptanceProbability(3, DEFAULT_AL);
    const other = mtp({ 'model-prefix': 'somemodel', framework: 'sglang', runner: 'mi355x' });
    const one = shape(other, 4, { draftTokens: 1 });
    expect(one.acceptanceLength).toBeCloseTo(expectedAcceptance(p, 1), 3);
    expect(one.alSource).toMatch(/chain model at 1 draft,/);
  });

  it('is what the prediction runs and what --explain prints', () => {
    const dp = { ...mtp({ framework: 'trt', 'dp-attn': true, ep: 8 }), conc: [64] };
    const setup = setupOfRow(dp, {}, 'row 0', 64) as SimSetup;
    expect(setup.spec).toEqual({ method: 'mtp', draftTokens: 1, acceptanceLength: 1.875 });
    const text = formatExplain(explainPoint(dp, 64)).join('\n');
    expect(text).toMatch(
      /speculative decoding: mtp, 1 draft token per step \(dsr1_\*_trt_mtp\.sh: MTP=1 with DP-attention\); acceptance length 1\.875/,
    );
    expect(text).toMatch(/decode: \d+ seq × 2 tokens/);
    // One draft against three: each verification step is cheaper, and fewer tokens come out of it.
    const [one] = predictRows([dp]);
    const [three] = predictRows([dp], { draftTokens: 3 });
    if (one?.status !== 'ok' || three?.status !== 'ok') throw new Error('not predicted');
    expect(one.prediction.interactivity).not.toBeCloseTo(three.prediction.interactivity, 0);
  });
});
