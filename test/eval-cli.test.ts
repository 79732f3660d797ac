import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EvalResultsSchema, EvalSampleRecordSchema } from '../src/schema/evals.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { type EvalServer, startEvalServer, writeGsmFile } from './support/eval-server.ts';

/** `infx eval` as users run it: the bundled binary (npm run build first). */

const BIN = join(REPO_ROOT, 'bin/infx.js');
const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));
const dir = tmpDir();
const env = { ...process.env, HF_HUB_CACHE: join(dir, 'no-cache') };
const infx = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
const infxAsync = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

let server: EvalServer | null = null;
afterAll(async () => {
  await server?.close();
});

describe.skipIf(!built)(`infx eval${built ? '' : ' (not built: run npm run build)'}`, () => {
  const test = writeGsmFile(dir, 'test.jsonl', 4);
  const train = writeGsmFile(dir, 'train.jsonl', 6, 100);

  it.each([
    [
      'no --task',
      ['eval', 'score', '--responses', 'r.jsonl'],
      "required option '--task <task>' not specified",
    ],
    ['an unknown task', ['eval', 'score', '--task', 'mmlu', '--responses', 'r'], "'mmlu' is invalid"],
    [
      'a bad concurrency',
      ['eval', 'run', '--task', 'gsm8k', '--base-url', 'http://x', '--model', 'm', '--concurrency', '0'],
      'must be a positive integer',
    ],
    [
      'a bad endpoint',
      ['eval', 'run', '--task', 'gsm8k', '--base-url', 'http://x', '--model', 'm', '--endpoint', 'x'],
      "'x' is invalid",
    ],
    ['a bad min score', ['eval', 'validate', '--min-score', '2'], 'must be a number from 0 to 1'],
  ])('%s exits 2', (_name, args, message) => {
    const out = infx(args);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(message);
  });

  it('grades saved responses and prints the lm-eval keys', () => {
    const responses = join(dir, 'responses.jsonl');
    // doc 0 right, 1 wrong, 2 right only for flexible-extract (no ####), 3 truncated with the right answer
    writeFileSync(
      responses,
      [
        { doc_id: 0, response: 'So 0.\n#### 0' },
        { doc_id: 1, response: '#### 7' },
        { doc_id: 2, response: 'The answer is 2' },
        { doc_id: 3, response: '#### 3', finish_reason: 'length' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const json = infx([
      'eval',
      'score',
      '--task',
      'gsm8k',
      '--dataset',
      test,
      '--responses',
      responses,
      '--format',
      'json',
    ]);
    expect(json.status).toBe(0);
    const results = EvalResultsSchema.parse(JSON.parse(json.stdout));
    expect(results.results.gsm8k).toMatchObject({
      'exact_match,strict-match': 0.25,
      'exact_match,flexible-extract': 0.5,
    });
    expect(results.infx).toMatchObject({ truncated: 1, samples: 4 });
    const text = infx([
      'eval',
      'score',
      '--task',
      'gsm8k',
      '--dataset',
      test,
      '--responses',
      responses,
      '--grade-truncated',
    ]);
    expect(text.stdout).toContain('exact_match,strict-match      0.5000');
    expect(text.stdout).toContain('exact_match,flexible-extract  0.7500');
  });

  it('names file:line of a malformed dataset or responses line', () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"question": "Q", "answer": "#### 1"}\n{"question": 3}\n');
    const out = infx(['eval', 'score', '--task', 'gsm8k', '--dataset', bad, '--responses', bad]);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(
      `error: ${bad}:2: question: Invalid input: expected string, received number`,
    );
    const noCache = infx(['eval', 'score', '--task', 'gsm8k', '--responses', bad]);
    expect(noCache.status).toBe(1);
    expect(noCache.stderr).toContain('openai/gsm8k is not in the local Hugging Face cache');
  });

  it('runs against a scripted server, writes results.json and the samples, and validates them', async () => {
    server = await startEvalServer((d) => (d === 1 ? 'wrong' : 'right'));
    const out = join(dir, 'out');
    const run = await infxAsync([
      'eval',
      'run',
      '--task',
      'gsm8k',
      '--base-url',
      server.url,
      '--model',
      'm',
      '--dataset',
      test,
      '--fewshot-dataset',
      train,
      '--out',
      out,
    ]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/eval gsm8k: 4\/4 done/);
    expect(run.stdout).toContain('exact_match,strict-match      0.7500 ± 0.2500  (3 correct)');
    const samples = readFileSync(join(out, 'samples_gsm8k.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => EvalSampleRecordSchema.parse(JSON.parse(l)));
    expect(samples.map((s) => s.correct['strict-match'])).toEqual([true, false, true, true]);
    const validate = infx(['eval', 'validate', '--dir', out, '--model-prefix', 'dsv41flash']);
    expect(validate.status).toBe(1);
    expect(validate.stderr).toContain(
      'FAIL: gsm8k exact_match,strict-match = 0.7500 (< 0.91 from models.dsv4, family of dsv41flash)',
    );
    const pass = infx([
      'eval',
      'validate',
      '--dir',
      out,
      '--min-score',
      '0.7',
      '--thresholds',
      join(dir, 'none.yaml'),
    ]);
    expect(pass.status).toBe(0);
    expect(pass.stdout).toContain('PASS: gsm8k exact_match,strict-match = 0.7500 (>= 0.7 from min-score)');
  });
});
