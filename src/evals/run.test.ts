import { afterEach, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { type EvalServer, startEvalServer, writeGsmFile } from '../../test/support/eval-server.ts';
import { readGsmJsonl } from './dataset.ts';
import { type EvalRunOptions, runEval } from './run.ts';

let server: EvalServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const options = (url: string, extra: Partial<EvalRunOptions> = {}): EvalRunOptions => ({
  baseUrl: url,
  model: 'm',
  endpoint: 'chat',
  concurrency: 4,
  limit: null,
  fewshot: 2,
  maxRetries: 3,
  timeoutMs: 10_000,
  maxTokens: 100,
  fewshotAsMultiturn: true,
  gradeTruncated: false,
  backoffMs: () => 0,
  ...extra,
});

describe('runEval against a scripted server', () => {
  const dir = tmpDir();
  const test = readGsmJsonl(writeGsmFile(dir, 'test.jsonl', 10));
  const train = readGsmJsonl(writeGsmFile(dir, 'train.jsonl', 5, 100));

  it('grades right, wrong, flaky, down, empty, truncated and reasoning-only answers, and counts them apart', async () => {
    // doc → behaviour: 0–3 right, 4 wrong, 5 flaky (500 then right), 6 down (always 500), 7 empty,
    // 8 truncated (right text, finish_reason length), 9 reasoning_content only (right).
    const plan = [
      'right',
      'right',
      'right',
      'right',
      'wrong',
      'flaky',
      'down',
      'empty',
      'truncated',
      'reasoning',
    ] as const;
    server = await startEvalServer((d) => plan[d] ?? 'right');
    const out = await runEval(test, train, options(server.url));
    const r = out.results.results.gsm8k;
    // correct: 0,1,2,3,5,9 = 6 of 10; 4 wrong, 6 failed, 7 empty, 8 truncated counted wrong
    expect(r?.['exact_match,strict-match']).toBe(0.6);
    expect(r?.['exact_match,flexible-extract']).toBe(0.6);
    // stderr: sqrt((6 × 0.16 + 4 × 0.36) / 9) / sqrt(10) = sqrt(2.4 / 9) / sqrt(10)
    expect(r?.['exact_match_stderr,strict-match']).toBeCloseTo(Math.sqrt(2.4 / 9) / Math.sqrt(10), 15);
    expect(out.results.infx).toMatchObject({ samples: 10, failed: 1, empty: 1, truncated: 1, retries: 3 });
    // retries: doc 5 once, doc 6 twice (3 attempts, the last not followed by a retry)
    expect(server.requests.get(5)).toBe(2);
    expect(server.requests.get(6)).toBe(3);
    expect(out.samples[6]).toMatchObject({ status: 'failed', response: null, attempts: 3 });
    expect(out.samples[6]?.error).toContain('HTTP 500');
    expect(out.samples[8]).toMatchObject({ status: 'truncated', correct: { 'strict-match': false } });
    expect(out.samples[8]?.filtered['strict-match']).toBe('8');
    expect(out.samples.map((s) => s.doc_id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(out.results['n-samples'].gsm8k).toEqual({ original: 10, effective: 10 });
  });

  it('sends the few-shot as multi-turn messages with lm-eval’s payload', async () => {
    server = await startEvalServer(() => 'right');
    await runEval(test, train, options(server.url, { limit: 1, concurrency: 1 }));
    const body = server.bodies[0] as { messages: { role: string }[] } & Record<string, unknown>;
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(body).toMatchObject({
      model: 'm',
      max_tokens: 100,
      temperature: 0,
      top_p: 1,
      seed: 1234,
      stop: ['</s>', '<|im_end|>', '<｜end▁of▁sentence｜>', '<｜User｜>'],
    });
  });

  it('one user message without multi-turn; the completions endpoint gets the text and every stop string', async () => {
    server = await startEvalServer(() => 'right');
    await runEval(test, train, options(server.url, { limit: 1, fewshotAsMultiturn: false }));
    const single = server.bodies[0] as { messages: { role: string; content: string }[] };
    expect(single.messages).toHaveLength(1);
    expect(
      single.messages[0]?.content.endsWith(
        'Question: Q0?\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:',
      ),
    ).toBe(true);
    const c = await runEval(test, train, options(server.url, { limit: 2, endpoint: 'completions' }));
    const body = server.bodies[1] as Record<string, unknown>;
    expect(typeof body.prompt).toBe('string');
    expect((body.stop as string[]).length).toBe(6);
    expect(c.results.results.gsm8k?.['exact_match,strict-match']).toBe(1);
  });

  it('grades truncated responses as lm-eval does when asked', async () => {
    server = await startEvalServer(() => 'truncated');
    const out = await runEval(test, train, options(server.url, { limit: 2, gradeTruncated: true }));
    expect(out.results.results.gsm8k?.['exact_match,strict-match']).toBe(1);
    expect(out.results.infx.truncated).toBe(2);
  });
});

describe('runEval stopped by its signal', () => {
  it('keeps the samples graded before the stop and sends no more requests', async () => {
    const dir = tmpDir();
    const test = readGsmJsonl(writeGsmFile(dir, 'test.jsonl', 20));
    server = await startEvalServer(() => 'right');
    const controller = new AbortController();
    const out = await runEval(test, [], {
      ...options(server.url, { fewshot: 0, concurrency: 1 }),
      onSample: (done) => {
        if (done === 3) controller.abort();
      },
      signal: controller.signal,
    });
    expect(out.interrupted).toBe(true);
    expect(out.samples.map((s) => s.doc_id)).toEqual([0, 1, 2]);
    expect(out.results['n-samples'].gsm8k).toEqual({ original: 20, effective: 3 });
    expect(server.bodies).toHaveLength(3);
  });
});
