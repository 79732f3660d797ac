import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { docToText } from '../src/evals/gsm8k.ts';
import { EvalResultsSchema, EvalSampleRecordSchema } from '../src/schema/evals.ts';
import { type ServerProcess, spawnServer } from './client-helpers.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { writeGsmFile } from './support/eval-server.ts';

/**
 * `infx sim serve --accuracy P --eval-dataset FILE` under `infx eval run`, both the built binary (npm run
 * build first): the simulated engine answers GSM8K prompts right with probability P per question, and the
 * score follows from its seeded rule (src/sim/serve/eval-answer.ts), worked out here on its own.
 */

const BIN = join(REPO_ROOT, 'bin/infx.js');
const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const N = 40;
const dir = tmpDir();
const env = { ...process.env, HF_HUB_CACHE: join(dir, 'no-cache') };

const infx = (args: string[]) =>
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

/** The rule: sha256("infx-sim-eval\0seed\0question"); right iff its first uint32 / 2^32 < P; a wrong
 * answer is the right number malformed (flexible-extract still finds it) iff its second uint32 % 4 is 0. */
function expected(seed: number, accuracy: number) {
  let right = 0;
  let malformed = 0;
  for (let i = 0; i < N; i++) {
    const d = createHash('sha256').update(`infx-sim-eval\u0000${seed}\u0000Q${i}?`).digest();
    if (d.readUInt32BE(0) / 2 ** 32 < accuracy) right++;
    else if (d.readUInt32BE(4) % 4 === 0) malformed++;
  }
  return { strict: right / N, flexible: (right + malformed) / N, right };
}

const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function serve(accuracy: number, seed: number, dataset: string) {
  const s = await spawnServer([
    'sim',
    'serve',
    '--model',
    MODEL,
    '--hardware',
    'h100',
    '--time-scale',
    '50',
    '--seed',
    String(seed),
    '--accuracy',
    String(accuracy),
    '--eval-dataset',
    dataset,
  ]);
  servers.push(s);
  return s.url;
}

async function evalRun(url: string, out: string, extra: string[] = []) {
  const r = await infx([
    'eval',
    'run',
    '--task',
    'gsm8k',
    '--base-url',
    url,
    '--model',
    MODEL,
    '--dataset',
    join(dir, 'test.jsonl'),
    '--fewshot-dataset',
    join(dir, 'train.jsonl'),
    '--out',
    join(dir, out),
    '--format',
    'json',
    ...extra,
  ]);
  expect(r.stderr).not.toContain('failed');
  expect(r.status).toBe(0);
  const results = EvalResultsSchema.parse(JSON.parse(readFileSync(join(dir, out, 'results.json'), 'utf8')));
  const samples = readFileSync(join(dir, out, 'samples_gsm8k.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => EvalSampleRecordSchema.parse(JSON.parse(l)));
  const scores = results.results.gsm8k as Record<string, unknown>;
  return {
    simulator: results.infx.simulator ?? null,
    strict: scores['exact_match,strict-match'],
    flexible: scores['exact_match,flexible-extract'],
    responses: samples.sort((a, b) => a.doc_id - b.doc_id).map((s) => s.response),
    samples,
  };
}

describe.skipIf(!built)(`infx sim serve --accuracy${built ? '' : ' (not built: run npm run build)'}`, () => {
  const test = writeGsmFile(dir, 'test.jsonl', N);
  writeGsmFile(dir, 'train.jsonl', 8, 100);

  it('refuses --accuracy without the dataset it answers from, naming the flag', async () => {
    const r = await infx(['sim', 'serve', '--model', MODEL, '--hardware', 'h100', '--accuracy', '0.5']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--accuracy needs --eval-dataset FILE');
  });

  it('--accuracy 1 answers every question right, in the GSM8K format', async () => {
    const url = await serve(1, 0, test);
    const models = (await (await fetch(`${url}/v1/models`)).json()) as {
      data: { infx: { eval_accuracy: unknown } }[];
    };
    expect(models.data[0]?.infx.eval_accuracy).toEqual({
      accuracy: 1,
      simulated: true,
      seed: 0,
      questions: N,
      dataset: test,
    });
    const r = await evalRun(url, 'acc1');
    expect(r.strict).toBe(1);
    expect(r.flexible).toBe(1);
    expect(r.responses[7]).toMatch(/\n#### 7$/);
    // A prompt that asks no dataset question still gets the filler words.
    const other = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: 'Hello', max_tokens: 3 }),
    });
    const body = (await other.json()) as { choices: { text: string }[] };
    expect(body.choices[0]?.text).toBe(' the of and');
    // max_tokens cuts an answer: finish_reason length.
    const short = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        prompt:
          'Question: Q3?\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:',
        max_tokens: 4,
      }),
    });
    const cut = (await short.json()) as { choices: { text: string; finish_reason: string }[] };
    expect(cut.choices[0]).toMatchObject({ text: 'Let me work through', finish_reason: 'length' });
    // Streamed on the chat endpoint, zero-shot: the same answer to the same question, chunk by chunk.
    const stream = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: docToText({ question: 'Q5?', answer: '' }) }],
        max_tokens: 100,
        stream: true,
      }),
    });
    let content = '';
    for (const line of (await stream.text()).split('\n')) {
      if (!line.startsWith('data: {')) continue;
      const chunk = JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] };
      content += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(content).toBe(r.responses[5]);
  });

  it('a score from the simulated engine says it is simulated in results.json', async () => {
    const url = await serve(1, 0, test);
    expect((await evalRun(url, 'simlabel')).simulator).toMatch(/^infx-sim\//);
  });

  it('--accuracy 0 answers none right; the malformed ones still count for flexible-extract', async () => {
    const url = await serve(0, 0, test);
    const r = await evalRun(url, 'acc0');
    const want = expected(0, 0);
    expect(r.strict).toBe(0);
    expect(r.flexible).toBe(want.flexible);
    expect(want.flexible).toBeGreaterThan(0);
  });

  it('--accuracy 0.5 scores what the seeded rule says, the same on every run', async () => {
    const url = await serve(0.5, 11, test);
    const want = expected(11, 0.5);
    const a = await evalRun(url, 'half-a');
    expect(a.strict).toBe(want.strict);
    expect(a.flexible).toBe(want.flexible);
    // Neither all nor none: the draw is per question.
    expect(want.right).toBeGreaterThan(0);
    expect(want.right).toBeLessThan(N);
    // Again, one request at a time on the completions endpoint: the same answer to every question.
    const b = await evalRun(url, 'half-b', ['--endpoint', 'completions', '--concurrency', '1']);
    expect(b.responses).toEqual(a.responses);
    expect(b.strict).toBe(want.strict);
  });
});
