import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, EvalResults, EvalSampleRecord, GsmDoc } from '../schema/evals.ts';
import { EVAL_FILES } from '../schema/run-dir.ts';
import { EvalInputError } from './errors.ts';
import { buildResults, gradeResponse, statusOf } from './grade.ts';
import {
  chatMessages,
  docToTarget,
  fewshotDocs,
  GSM8K_UNTIL,
  PAYLOAD_SEED,
  singleTurnText,
} from './gsm8k.ts';

/**
 * `infx eval run`: GSM8K against an OpenAI-compatible server as the reference runs lm-eval
 * (`local-chat-completions --apply_chat_template`, so few-shot as multi-turn messages, `max_retries=5`,
 * `timeout=1800`, temperature 0, top_p 1): non-streaming requests, at most `concurrency` in flight, each
 * retried on any failure (an HTTP error status, a timeout, a dropped connection, a body that is not a
 * completion) with lm-eval's backoff, then recorded as a failure, apart from wrong answers.
 */

export type Endpoint = 'chat' | 'completions';

export interface EvalRunOptions {
  baseUrl: string;
  model: string;
  endpoint: Endpoint;
  concurrency: number;
  /** Evaluate the first N test documents (null: all). */
  limit: number | null;
  fewshot: number;
  /** Attempts per request, as lm-eval's max_retries (tenacity stop_after_attempt): 5 means 1 + 4 retries. */
  maxRetries: number;
  timeoutMs: number;
  maxTokens: number;
  /** Multi-turn few-shot on the chat endpoint (lm-eval's default with a chat template); false: one user message. */
  fewshotAsMultiturn: boolean;
  /** Grade truncated responses (finish_reason length) as lm-eval does rather than counting them wrong. */
  gradeTruncated: boolean;
  /** Milliseconds to wait after failed attempt n (1-based); lm-eval's wait_exponential(0.5, min 1 s, max 10 s) by default. */
  backoffMs?: (attempt: number) => number;
  /** Called after each sample is done. */
  onSample?: (done: number, total: number, sample: EvalSampleRecord) => void;
  signal?: AbortSignal;
}

export const lmEvalBackoffMs = (attempt: number): number =>
  1000 * Math.min(10, Math.max(1, 0.5 * 2 ** (attempt - 1)));

export interface EvalRunOutcome {
  samples: EvalSampleRecord[];
  results: EvalResults;
  retries: number;
  /** Stopped by the signal: the samples are those done before it (a request it cut short is left out). */
  interrupted: boolean;
}

interface Completion {
  text: string;
  finishReason: string | null;
}

class AttemptError extends Error {}

const apiBase = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');

function endpointUrl(baseUrl: string, endpoint: Endpoint): string {
  return `${apiBase(baseUrl)}${endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions'}`;
}

/**
 * The simulator a server says it is (`infx.simulator` in its /v1/models, as infx's simulated engine
 * answers), so that its score is labelled simulated; null for any other server or when it does not answer.
 */
async function simulatorOf(baseUrl: string, signal: AbortSignal | undefined): Promise<string | null> {
  try {
    const res = await fetch(`${apiBase(baseUrl)}/v1/models`, {
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(5000)]) : AbortSignal.timeout(5000),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: { infx?: { simulator?: unknown } }[] };
    const sim = body.data?.[0]?.infx?.simulator;
    return typeof sim === 'string' ? sim : null;
  } catch {
    return null;
  }
}

/** The request body, as lm-eval's LocalChatCompletion / LocalCompletionsAPI build it for these settings. */
export function requestBody(
  prompt: ChatMessage[] | string,
  options: Pick<EvalRunOptions, 'model' | 'maxTokens'>,
): Record<string, unknown> {
  const common = { model: options.model, max_tokens: options.maxTokens, temperature: 0 };
  // lm-eval's chat payload keeps the first four stop strings; its completions payload keeps them all.
  return typeof prompt === 'string'
    ? { prompt, ...common, stop: [...GSM8K_UNTIL], seed: PAYLOAD_SEED, top_p: 1 }
    : { messages: prompt, ...common, stop: GSM8K_UNTIL.slice(0, 4), seed: PAYLOAD_SEED, top_p: 1 };
}

/** The generated text: message.content (reasoning_content when content is empty, as the reference patches it). */
function parseCompletion(body: unknown, endpoint: Endpoint): Completion {
  const choice = (body as { choices?: unknown[] } | null)?.choices?.[0] as
    | Record<string, unknown>
    | undefined;
  if (choice === undefined || choice === null || typeof choice !== 'object')
    throw new AttemptError('response has no choices');
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  if (endpoint === 'completions') {
    if (typeof choice.text !== 'string' && choice.text !== null) throw new AttemptError('choice has no text');
    return { text: (choice.text as string | null) ?? '', finishReason };
  }
  const message = (choice.message ?? {}) as Record<string, unknown>;
  const content = typeof message.content === 'string' ? message.content : '';
  const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
  return { text: content !== '' ? content : reasoning, finishReason };
}

async function attempt(
  url: string,
  body: string,
  endpoint: Endpoint,
  timeoutMs: number,
  outer?: AbortSignal,
) {
  const signals = [AbortSignal.timeout(timeoutMs), ...(outer ? [outer] : [])];
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${process.env.OPENAI_API_KEY ?? 'EMPTY'}`,
      },
      body,
      signal: AbortSignal.any(signals),
    });
  } catch (err) {
    const e = err as Error;
    throw new AttemptError(
      e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `request failed: ${e.message}`,
    );
  }
  const text = await res.text().catch((err: Error) => {
    throw new AttemptError(`response body failed: ${err.message}`);
  });
  if (!res.ok) throw new AttemptError(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AttemptError('response is not JSON');
  }
  return parseCompletion(json, endpoint);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  ms <= 0
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        });
      });

/** Runs the eval over `test` (few-shot examples drawn from `train`) and grades every sample. */
export async function runEval(
  test: readonly GsmDoc[],
  train: readonly GsmDoc[],
  options: EvalRunOptions,
): Promise<EvalRunOutcome> {
  if (options.concurrency < 1) throw new EvalInputError('--concurrency must be at least 1', { exitCode: 2 });
  if (options.maxRetries < 1)
    throw new EvalInputError('--max-retries must be at least 1 (attempts per request)', { exitCode: 2 });
  const docs = options.limit === null ? test : test.slice(0, options.limit);
  const simulator = await simulatorOf(options.baseUrl, options.signal);
  const shots = fewshotDocs(train, docs.length, options.fewshot);
  const url = endpointUrl(options.baseUrl, options.endpoint);
  const backoff = options.backoffMs ?? lmEvalBackoffMs;
  const samples: (EvalSampleRecord | undefined)[] = new Array(docs.length);
  let next = 0;
  let done = 0;
  let retries = 0;

  const one = async (i: number): Promise<EvalSampleRecord | undefined> => {
    const doc = docs[i] as GsmDoc;
    const prompt =
      options.endpoint === 'completions'
        ? singleTurnText(doc, shots[i] as GsmDoc[])
        : options.fewshotAsMultiturn
          ? chatMessages(doc, shots[i] as GsmDoc[])
          : [{ role: 'user' as const, content: singleTurnText(doc, shots[i] as GsmDoc[]) }];
    const body = JSON.stringify(requestBody(prompt, options));
    let completion: Completion | null = null;
    let error: string | null = null;
    let attempts = 0;
    while (attempts < options.maxRetries && !options.signal?.aborted) {
      attempts++;
      try {
        completion = await attempt(url, body, options.endpoint, options.timeoutMs, options.signal);
        error = null;
        break;
      } catch (err) {
        if (!(err instanceof AttemptError)) throw err;
        error = err.message;
        if (attempts < options.maxRetries) {
          retries++;
          await sleep(backoff(attempts), options.signal);
        }
      }
    }
    if (completion === null && options.signal?.aborted) return undefined;
    const response = completion?.text ?? null;
    const status = statusOf(response, completion?.finishReason);
    const target = docToTarget(doc);
    return {
      doc_id: i,
      prompt,
      target,
      response,
      finish_reason: completion?.finishReason ?? null,
      status,
      attempts,
      error: completion === null ? (error ?? 'stopped before the request was sent') : null,
      ...gradeResponse(response, target, status === 'truncated' && !options.gradeTruncated),
    };
  };

  const worker = async () => {
    while (next < docs.length && !options.signal?.aborted) {
      const i = next++;
      const s = await one(i);
      if (s === undefined) continue;
      samples[i] = s;
      done++;
      options.onSample?.(done, docs.length, s);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, Math.max(1, docs.length)) }, worker));

  const kept = samples.filter((s): s is EvalSampleRecord => s !== undefined);
  const results = buildResults(kept, {
    original: test.length,
    fewshot: options.fewshot,
    model: options.model,
    baseUrl: url,
    endpoint: options.endpoint,
    fewshotAsMultiturn: options.endpoint === 'chat' && options.fewshotAsMultiturn,
    limit: options.limit,
    genKwargs: { max_tokens: options.maxTokens, temperature: 0, top_p: 1 },
    retries,
    date: Date.now() / 1000,
    simulator,
  });
  return { samples: kept, results, retries, interrupted: options.signal?.aborted === true };
}

export const SAMPLES_FILE = EVAL_FILES.samples;
export const RESULTS_FILE = EVAL_FILES.results;

/** Writes results.json and the samples JSONL into `dir`; returns their paths. */
export function writeEvalOutput(
  dir: string,
  outcome: Pick<EvalRunOutcome, 'samples' | 'results'>,
): { results: string; samples: string } {
  mkdirSync(dir, { recursive: true });
  const results = join(dir, RESULTS_FILE);
  const samples = join(dir, SAMPLES_FILE);
  writeFileSync(samples, outcome.samples.map((s) => `${JSON.stringify(s)}\n`).join(''));
  writeFileSync(results, `${JSON.stringify(outcome.results, null, 2)}\n`);
  return { results, samples };
}
