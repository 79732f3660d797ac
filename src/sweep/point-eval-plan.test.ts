import { describe, expect, it } from 'vitest';
import { fixedRow } from '../../test/rows.ts';
import { type EvalPlanDefaults, evalSpecOf, NO_EVAL_DATASET_REASON } from './point-eval-plan.ts';
import { evalModelLen } from './point-run.ts';

/** What a run-eval row's points run after their benchmark. */

const defaults: EvalPlanDefaults = {
  dataset: '/data/test.jsonl',
  fewshotDataset: null,
  fewshot: 5,
  limit: null,
  concurrency: 64,
  simAccuracy: 0.95,
  thresholds: null,
  minScore: 0.85,
};

describe('evalSpecOf', () => {
  it('gives a row without run-eval no eval', () => {
    expect(evalSpecOf(fixedRow(), defaults, 'sim')).toBeNull();
  });

  it('refuses a run-eval row when the sweep has no dataset, saying which flag', () => {
    const row = fixedRow({ 'run-eval': true });
    expect(evalSpecOf(row, null, 'sim')).toBe(NO_EVAL_DATASET_REASON);
    expect(evalSpecOf(row, { ...defaults, dataset: null }, 'sim')).toContain('--eval-dataset FILE');
  });

  it("budgets max_tokens from the reference's eval context: 16384 - 4096", () => {
    const spec = evalSpecOf(fixedRow({ 'run-eval': true }), defaults, 'sim');
    expect(spec).toMatchObject({ contextLength: 16384, maxTokens: 12288, simAccuracy: 0.95, fewshot: 5 });
  });

  it('gives a real engine no simulated accuracy', () => {
    const spec = evalSpecOf(fixedRow({ 'run-eval': true }), defaults, 'recipe');
    expect(spec).toMatchObject({ simAccuracy: null, dataset: '/data/test.jsonl' });
  });
});

describe('evals on real engines', () => {
  it('marks an eval-only row, and starts the engine at the eval context at least', () => {
    const spec = evalSpecOf(fixedRow({ 'run-eval': true, 'eval-only': true }), defaults, 'recipe');
    expect(spec).toMatchObject({ evalOnly: true, simAccuracy: null, contextLength: 16384 });
    expect(evalModelLen(fixedRow({ 'max-model-len': 576 }), 16384)).toBe(16384);
    expect(evalModelLen(fixedRow({ 'max-model-len': 40000 }), 16384)).toBe(40000);
  });
});
