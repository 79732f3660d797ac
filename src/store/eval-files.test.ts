import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verdict } from '../../test/support/eval-verdict.ts';
import type { EvalSampleRecord } from '../schema/evals.ts';
import { questionOf, readEvalFiles } from './eval-files.ts';

const sample = (doc: number, right: boolean): EvalSampleRecord => ({
  doc_id: doc,
  prompt: [
    { role: 'user', content: 'Question: shot?\nAnswer:' },
    { role: 'assistant', content: 'shot #### 1' },
    { role: 'user', content: `Question: Q${doc}?\nAnswer:` },
  ],
  target: `#### ${doc}`,
  response: right ? `#### ${doc}` : '#### 7',
  finish_reason: 'stop',
  status: 'ok',
  attempts: 1,
  error: null,
  filtered: { 'strict-match': right ? String(doc) : '7', 'flexible-extract': right ? String(doc) : '7' },
  correct: { 'strict-match': right, 'flexible-extract': right },
});

function evalDir(runDir: string): string {
  const dir = join(runDir, 'points', 'p1', 'attempt-1', 'eval');
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('readEvalFiles', () => {
  it('keeps the question asked (the last user turn) and names each bad line by file:line', () => {
    const run = mkdtempSync(join(tmpdir(), 'infx-evalfiles-'));
    const dir = evalDir(run);
    const lines = [
      JSON.stringify(sample(0, true)),
      '{"doc_id": 1, not json',
      JSON.stringify({ ...sample(2, false), status: 'weird' }),
      JSON.stringify(sample(0, false)),
      JSON.stringify(sample(3, false)),
    ];
    writeFileSync(join(dir, 'samples_gsm8k.jsonl'), `${lines.join('\n')}\n{"doc_id": 4`);
    const got = readEvalFiles(run, [verdict()]);
    expect(got.samples.map((s) => [s.doc_id, s.question, s.strict_correct])).toEqual([
      [0, 'Question: Q0?\nAnswer:', 1],
      [3, 'Question: Q3?\nAnswer:', 0],
    ]);
    const where = (s: string) => got.issues.find((i) => i.file.endsWith(s))?.problem;
    expect(where('samples_gsm8k.jsonl:2')).toMatch(/^not JSON/);
    expect(where('samples_gsm8k.jsonl:3')).toMatch(/^not a graded sample/);
    expect(where('samples_gsm8k.jsonl:4')).toBe('doc_id 0 graded twice; the first is kept');
    expect(where('samples_gsm8k.jsonl:6')).toMatch(/cut off/);
    expect(where('results.json')).toMatch(/no eval results.json/);
    expect(where('samples_gsm8k.jsonl')).toBe("2 samples stored, but status.json's eval graded 3");
    expect(got.evals[0]?.strict_match_stderr).toBeNull();
  });

  it('takes the stderr from results.json', () => {
    const run = mkdtempSync(join(tmpdir(), 'infx-evalfiles-'));
    const dir = evalDir(run);
    const task = {
      alias: 'gsm8k',
      'exact_match,strict-match': 0.5,
      'exact_match_stderr,strict-match': 0.25,
      'exact_match,flexible-extract': 0.5,
      'exact_match_stderr,flexible-extract': 'N/A',
    };
    const results = {
      results: { gsm8k: task },
      group_subtasks: {},
      configs: {},
      versions: {},
      'n-shot': {},
      higher_is_better: {},
      'n-samples': {},
      config: {},
      date: 1,
      lm_eval_version: 'x',
      infx: {
        version: '0',
        samples: 3,
        failed: 0,
        empty: 0,
        truncated: 0,
        retries: 0,
        correct: { 'strict-match': 1, 'flexible-extract': 1 },
        fewshot_seed: 1234,
        fewshot_as_multiturn: true,
        endpoint: 'chat',
      },
    };
    writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
    const got = readEvalFiles(run, [verdict()]);
    expect(got.evals[0]).toMatchObject({ strict_match_stderr: 0.25, flexible_extract_stderr: null });
    expect(got.evals[0]?.results_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('questionOf takes a completions prompt whole', () => {
    expect(questionOf('Question: x?\nAnswer:')).toBe('Question: x?\nAnswer:');
  });
});
