import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { pyFixed } from './format.ts';
import { loadThresholds, REFERENCE_THRESHOLDS, resolveThreshold } from './thresholds.ts';
import { validateScores } from './validate.ts';

const results = (strict: number, flex: number) =>
  JSON.stringify({
    results: {
      gsm8k: {
        alias: 'gsm8k',
        'exact_match,strict-match': strict,
        'exact_match_stderr,strict-match': 0.007,
        'exact_match,flexible-extract': flex,
        'exact_match_stderr,flexible-extract': 0.007,
      },
    },
  });

function evalDir(files: Record<string, string>): string {
  const dir = tmpDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const text = (r: ReturnType<typeof validateScores>) => r.lines.map((l) => `${l.stream}: ${l.text}`);

describe('threshold precedence', () => {
  const t = REFERENCE_THRESHOLDS;
  it('models.<prefix> first, then default, then --min-score', () => {
    expect(resolveThreshold(t, 'glm5', 'gsm8k', 0.85)).toMatchObject({
      threshold: 0.94,
      rule: 'model',
      source: 'models.glm5',
    });
    expect(resolveThreshold(t, 'glm5', 'swebench_lite', 0.85)).toMatchObject({
      threshold: 0.5,
      rule: 'default',
    });
    expect(resolveThreshold(t, null, 'gsm8k', 0.85)).toMatchObject({ threshold: 0.9, rule: 'default' });
    expect(resolveThreshold(t, 'glm5', 'mmlu', 0.77)).toMatchObject({
      threshold: 0.77,
      rule: 'min-score',
      source: 'min-score',
    });
  });
  it('a new prefix falls back to its family (longest models key it starts with) unless exact lookup is asked for', () => {
    expect(resolveThreshold(t, 'dsv41flash', 'gsm8k', 0.85)).toMatchObject({
      threshold: 0.91,
      rule: 'family',
      source: 'models.dsv4',
    });
    expect(resolveThreshold(t, 'glm5.2', 'gsm8k', 0.85)).toMatchObject({
      threshold: 0.94,
      rule: 'family',
      key: 'glm5',
    });
    expect(resolveThreshold(t, 'dsv41flash', 'gsm8k', 0.85, 'exact')).toMatchObject({
      threshold: 0.9,
      rule: 'default',
    });
    // no models key is a prefix of kimik3 (kimik2.5 is not): the default
    expect(resolveThreshold(t, 'kimik3', 'gsm8k', 0.85)).toMatchObject({ threshold: 0.9, rule: 'default' });
  });
  it('reads the legacy flat form as defaults, and the example file equals the built-in thresholds', () => {
    const dir = evalDir({ 'flat.yaml': 'gsm8k: 0.8\n', 'bad.yaml': 'default:\n  gsm8k: high\n' });
    expect(loadThresholds(join(dir, 'flat.yaml'))).toEqual({ default: { gsm8k: 0.8 }, models: {} });
    expect(() => loadThresholds(join(dir, 'bad.yaml'))).toThrow(/default\.gsm8k/);
    expect(loadThresholds(join(import.meta.dirname, '../../examples/evals/thresholds.yaml'))).toEqual(
      REFERENCE_THRESHOLDS,
    );
  });
});

describe('infx eval validate, as validate_scores.py', () => {
  it('passes both GSM8K metrics with the reference log lines', () => {
    const dir = evalDir({
      'results_x.json': results(0.9227, 0.93),
      'meta_env.json': '{"infmax_model_prefix": "dsv4", "conc": 64}',
    });
    const r = validateScores({ dir, resultsGlob: 'results*.json', env: {} });
    expect(r.ok).toBe(true);
    expect(text(r)).toEqual([
      'stdout: Loaded thresholds from <built-in: the reference utils/evals/thresholds.yaml>',
      'stdout: Model prefix: dsv4 (per-model thresholds apply)',
      'stdout: PASS: gsm8k exact_match,strict-match = 0.9227 (>= 0.91 from models.dsv4)',
      'stdout: PASS: gsm8k exact_match,flexible-extract = 0.9300 (>= 0.91 from models.dsv4)',
    ]);
  });

  it('fails when either metric is below, and says which rule gave the threshold', () => {
    const dir = evalDir({ 'results.json': results(0.905, 0.95) });
    const family = validateScores({ dir, resultsGlob: 'results*.json', modelPrefix: 'dsv41flash', env: {} });
    expect(family.ok).toBe(false);
    expect(text(family)).toContain(
      'stdout: Model prefix: dsv41flash (no per-model override; family dsv4 thresholds apply)',
    );
    expect(text(family)).toContain(
      'stderr: FAIL: gsm8k exact_match,strict-match = 0.9050 (< 0.91 from models.dsv4, family of dsv41flash)',
    );
    const exact = validateScores({
      dir,
      resultsGlob: 'results*.json',
      modelPrefix: 'dsv41flash',
      lookup: 'exact',
      env: {},
    });
    expect(exact.ok).toBe(true);
    expect(text(exact)).toContain(
      'stdout: PASS: gsm8k exact_match,strict-match = 0.9050 (>= 0.9 from default)',
    );
  });

  it('takes the prefix from $MODEL_PREFIX when meta_env.json has none, and fails when nothing was checked', () => {
    const dir = evalDir({ 'results.json': JSON.stringify({ results: { gsm8k: { acc: 1 } } }) });
    const r = validateScores({ dir, resultsGlob: 'results*.json', env: { MODEL_PREFIX: 'glm5' } });
    expect(r.modelPrefix).toBe('glm5');
    expect(r.ok).toBe(false);
    expect(text(r)).toContain("stderr: WARN: no metrics matched prefix 'exact_match,'");
  });

  it('warns and uses --min-score when the thresholds file cannot be loaded', () => {
    const dir = evalDir({ 'results.json': results(0.86, 0.86), 't.yaml': '- 1\n' });
    const r = validateScores({ dir, resultsGlob: 'results*.json', thresholds: join(dir, 't.yaml'), env: {} });
    expect(text(r)[0]).toBe(
      `stderr: WARN: could not load thresholds from ${join(dir, 't.yaml')}: thresholds config must be a mapping`,
    );
    expect(r.checks.map((c) => c.source)).toEqual(['min-score', 'min-score']);
    expect(r.ok).toBe(true);
  });

  it('checks a batched manifest: conc labels, and every mismatch in the reference words', () => {
    const good = evalDir({
      'results_conc16.json': results(0.95, 0.95),
      'results_conc64_2.json': results(0.95, 0.95),
      'meta_env.json': JSON.stringify({
        eval_concs: [16, 64],
        completed_eval_concs: [16, 64],
        failed_eval_concs: [],
      }),
    });
    const r = validateScores({ dir: good, resultsGlob: 'results*.json', expectedConcs: '16 64', env: {} });
    expect(r.ok).toBe(true);
    expect(text(r)).toContain('stdout: PASS: batched eval produced every requested concurrency');
    expect(text(r)).toContain(
      'stdout: PASS: [conc=64] gsm8k exact_match,strict-match = 0.9500 (>= 0.9 from default)',
    );

    const bad = evalDir({
      'results_conc16.json': results(0.95, 0.95),
      'results.json': results(0.95, 0.95),
      'meta_env.json': JSON.stringify({
        eval_concs: [16, 64],
        completed_eval_concs: [16],
        failed_eval_concs: [64],
      }),
    });
    const b = validateScores({ dir: bad, resultsGlob: 'results*.json', env: {} });
    expect(b.ok).toBe(false);
    expect(b.manifestErrors).toEqual([
      'batched eval failed for concurrency: 64',
      'batched eval is missing completed concurrency: 64',
      'batched eval result lacks a concurrency suffix: results.json',
      'batched eval is missing result files for concurrency: 64',
    ]);
    expect(
      validateScores({ dir: bad, resultsGlob: 'results*.json', expectedConcs: '16 16', env: {} }).lines,
    ).toEqual([{ stream: 'stderr', text: 'FAIL: expected concurrencies must be unique positive integers' }]);
  });

  it('checks a single-concurrency manifest against the expected one', () => {
    const dir = evalDir({ 'results.json': results(0.95, 0.95), 'meta_env.json': '{"conc": 32}' });
    expect(
      validateScores({ dir, resultsGlob: 'results*.json', expectedConcs: '64', env: {} }).manifestErrors,
    ).toEqual(['eval metadata concurrency does not match workflow request']);
    expect(
      validateScores({ dir, resultsGlob: 'results*.json', expectedConcs: '16 64', env: {} }).manifestErrors,
    ).toEqual(['workflow requested multiple concurrencies but batched eval metadata is missing']);
    const noMeta = evalDir({ 'results_conc8.json': results(0.95, 0.95) });
    mkdirSync(join(noMeta, 'sub'));
    expect(validateScores({ dir: noMeta, resultsGlob: 'results*.json', env: {} }).manifestErrors[0]).toMatch(
      /^batched eval result files exist but .*meta_env\.json is unavailable or invalid: /,
    );
  });

  it('prints values as Python formats them (an exact tie rounds half to even)', () => {
    expect(pyFixed(0.03125, 4)).toBe('0.0312');
    expect(pyFixed(0.09375, 4)).toBe('0.0938');
    expect(pyFixed(0.92265, 4)).toBe((0.92265).toFixed(4));
    expect(pyFixed(1, 4)).toBe('1.0000');
  });
});
