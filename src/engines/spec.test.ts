import { describe, expect, it } from 'vitest';
import { agenticRow, fixedRow } from '../../test/rows.ts';
import { RecipeError } from './frameworks.ts';
import { acceptedDraftTokens, specPlan } from './spec.ts';

const agentic = (prefix: string, over = {}) =>
  agenticRow(8, 16, { 'model-prefix': prefix, 'spec-decoding': 'mtp', ...over });

describe('specPlan: the acceptance policy', () => {
  it('pins agentic throughput rows to the golden AL of the draft length', () => {
    expect(specPlan(agentic('dsv4'))).toMatchObject({
      method: 'mtp',
      draftTokens: 3,
      acceptance: 'synthetic',
      acceptanceLength: 2.49,
      warnings: [],
    });
    expect(specPlan(agentic('glm5.2'), { draftTokens: 5 }).acceptanceLength).toBe(3.61);
    expect(specPlan(agentic('dsv4'), { thinking: false }).acceptanceLength).toBe(2.97);
  });

  it("uses the model's drafting method and draft head", () => {
    expect(specPlan(agentic('minimaxm3'))).toMatchObject({
      method: 'eagle3',
      goldenMethod: 'EAGLE3-GQA',
      draftModel: 'Inferact/MiniMax-M3-EAGLE3-GQA',
      acceptanceLength: 2.78,
    });
    expect(specPlan(agentic('kimik3'), { draftModel: '/models/draft' })).toMatchObject({
      method: 'dspark',
      draftModel: '/models/draft',
      acceptanceLength: 2.87,
    });
  });

  it('leaves fixed-seq-len rows on real acceptance, as the reference', () => {
    expect(specPlan(fixedRow({ 'model-prefix': 'dsv4', 'spec-decoding': 'mtp' }))).toMatchObject({
      method: 'mtp',
      acceptance: 'real',
      acceptanceLength: null,
    });
  });

  it('always verifies eval-only rows for real', () => {
    expect(specPlan(agentic('dsv4', { 'eval-only': true })).acceptance).toBe('real');
    const pinned = specPlan(agentic('dsv4', { 'eval-only': true }), { acceptance: 2.2 });
    expect(pinned.acceptance).toBe('real');
    expect(pinned.warnings[0]).toMatch(/eval-only/);
  });

  it('falls back to real acceptance, saying so, where no golden AL is known', () => {
    const plan = specPlan(agentic('dsr1'));
    expect(plan.acceptance).toBe('real');
    expect(plan.warnings[0]).toMatch(
      /no golden acceptance length for model prefix 'dsr1'.*acceptance is real/,
    );
    expect(specPlan(agentic('dsv4'), { draftTokens: 9 }).warnings[0]).toMatch(/9 draft tokens/);
  });

  it('pins any row to a given length, within [1, N+1]', () => {
    expect(specPlan(fixedRow({ 'spec-decoding': 'mtp' }), { acceptance: 2.2 })).toMatchObject({
      acceptance: 'synthetic',
      acceptanceLength: 2.2,
    });
    expect(() => specPlan(fixedRow({ 'spec-decoding': 'mtp' }), { acceptance: 4.5 })).toThrow(RecipeError);
    expect(specPlan(agentic('dsv4'), { acceptance: 'real' }).acceptance).toBe('real');
  });

  it('has nothing to pin without speculative decoding', () => {
    expect(specPlan(agenticRow(8, 4), { acceptance: 2 })).toMatchObject({
      method: 'none',
      acceptance: 'real',
    });
  });

  it('gives TensorRT-LLM AL − 1 without float noise', () => {
    expect(acceptedDraftTokens(2.78)).toBe(1.78);
    expect(acceptedDraftTokens(2.49)).toBe(1.49);
    expect(acceptedDraftTokens(3.39)).toBe(2.39);
  });
});
