import {
  EVAL_FILTERS,
  type EvalFilter,
  type EvalResults,
  type EvalSampleRecord,
  type GsmDoc,
  type SavedResponse,
} from '../schema/evals.ts';
import { INFX_VERSION } from '../schema/version.ts';
import { EvalInputError } from './errors.ts';
import {
  docToTarget,
  exactMatch,
  FEWSHOT_SEED,
  FILTERS,
  GSM8K_TASK,
  GSM8K_UNTIL,
  GSM8K_VERSION,
  INVALID,
  meanAndStderr,
} from './gsm8k.ts';

/** The version of lm-evaluation-harness whose grading infx reproduces (the reference pins this commit). */
export const LM_EVAL_VERSION = '0.4.9.2 (b315ef3b05176acc9732bb7fdec116abe1ecc476), reproduced by infx';

export type SampleStatus = EvalSampleRecord['status'];

export interface Graded {
  filtered: Record<EvalFilter, string>;
  correct: Record<EvalFilter, boolean>;
}

/**
 * Grades one response against its document's target. A failed request (null) is graded as nothing:
 * `[invalid]` under both filters, wrong. With `truncatedWrong`, a truncated response is wrong whatever it
 * says (its answer line may be cut); lm-eval itself grades the text it got.
 */
export function gradeResponse(response: string | null, target: string, forceWrong = false): Graded {
  const text = response ?? '';
  const filtered = {} as Record<EvalFilter, string>;
  const correct = {} as Record<EvalFilter, boolean>;
  for (const f of EVAL_FILTERS) {
    filtered[f] = response === null ? INVALID : FILTERS[f](text);
    correct[f] = !forceWrong && response !== null && exactMatch(filtered[f], target);
  }
  return { filtered, correct };
}

export const statusOf = (response: string | null, finishReason: string | null | undefined): SampleStatus =>
  response === null ? 'failed' : response === '' ? 'empty' : finishReason === 'length' ? 'truncated' : 'ok';

export interface ResultsContext {
  /** Documents in the dataset (n-samples original). */
  original: number;
  fewshot: number;
  model: string | null;
  baseUrl: string | null;
  endpoint: 'chat' | 'completions' | 'none';
  fewshotAsMultiturn: boolean;
  limit: number | null;
  genKwargs: Record<string, unknown>;
  retries: number;
  /** Unix seconds, as lm-eval's `date`. */
  date: number;
  /** The simulator the server said it is (its /v1/models), or null: a real engine, or not known. */
  simulator?: string | null;
}

/** results.json in lm-eval's layout for the graded samples (in document order). */
export function buildResults(samples: readonly EvalSampleRecord[], ctx: ResultsContext): EvalResults {
  const metric = (f: EvalFilter) => meanAndStderr(samples.map((s) => (s.correct[f] ? 1 : 0)));
  const strict = metric('strict-match');
  const flex = metric('flexible-extract');
  const count = (st: SampleStatus) => samples.filter((s) => s.status === st).length;
  return {
    results: {
      [GSM8K_TASK]: {
        alias: GSM8K_TASK,
        'exact_match,strict-match': strict.mean,
        'exact_match_stderr,strict-match': strict.stderr,
        'exact_match,flexible-extract': flex.mean,
        'exact_match_stderr,flexible-extract': flex.stderr,
      },
    },
    group_subtasks: { [GSM8K_TASK]: [] },
    configs: {
      [GSM8K_TASK]: {
        task: GSM8K_TASK,
        dataset_path: 'openai/gsm8k',
        dataset_name: 'main',
        training_split: 'train',
        fewshot_split: 'train',
        test_split: 'test',
        output_type: 'generate_until',
        num_fewshot: ctx.fewshot,
        metric_list: [
          {
            metric: 'exact_match',
            aggregation: 'mean',
            higher_is_better: true,
            ignore_case: true,
            ignore_punctuation: false,
            regexes_to_ignore: [',', '\\$', '(?s).*#### ', '\\.$'],
          },
        ],
        generation_kwargs: { until: [...GSM8K_UNTIL], do_sample: false, temperature: 0.0 },
        filter_list: [
          {
            name: 'strict-match',
            filter: [
              { function: 'regex', group_select: -1, regex_pattern: '#### (\\-?[0-9\\.\\,]+)' },
              { function: 'take_first' },
            ],
          },
          {
            name: 'flexible-extract',
            filter: [
              { function: 'regex', group_select: -1, regex_pattern: '(-?[$0-9.,]{2,})|(-?[0-9]+)' },
              { function: 'take_first' },
            ],
          },
        ],
        metadata: { version: GSM8K_VERSION },
      },
    },
    versions: { [GSM8K_TASK]: GSM8K_VERSION },
    'n-shot': { [GSM8K_TASK]: ctx.fewshot },
    higher_is_better: { [GSM8K_TASK]: { exact_match: true } },
    'n-samples': { [GSM8K_TASK]: { original: ctx.original, effective: samples.length } },
    config: {
      model: ctx.model,
      model_args: ctx.baseUrl === null ? null : `model=${ctx.model},base_url=${ctx.baseUrl}`,
      limit: ctx.limit,
      gen_kwargs: ctx.genKwargs,
      fewshot_seed: FEWSHOT_SEED,
    },
    date: ctx.date,
    lm_eval_version: LM_EVAL_VERSION,
    infx: {
      version: INFX_VERSION,
      simulator: ctx.simulator ?? null,
      samples: samples.length,
      failed: count('failed'),
      empty: count('empty'),
      truncated: count('truncated'),
      retries: ctx.retries,
      correct: {
        'strict-match': samples.filter((s) => s.correct['strict-match']).length,
        'flexible-extract': samples.filter((s) => s.correct['flexible-extract']).length,
      },
      fewshot_seed: FEWSHOT_SEED,
      fewshot_as_multiturn: ctx.fewshotAsMultiturn,
      endpoint: ctx.endpoint,
    },
  };
}

export interface ScoreOptions {
  /** Grade truncated responses as lm-eval does, instead of counting them wrong. */
  gradeTruncated?: boolean;
  /** Responses file, for messages naming file:line. */
  responsesFile?: string;
}

/**
 * Grades saved responses (`infx eval score`): one per document id, every id in the dataset's range; the
 * records come back in document order.
 */
export function scoreSaved(
  docs: readonly GsmDoc[],
  responses: readonly SavedResponse[],
  options: ScoreOptions = {},
): EvalSampleRecord[] {
  const seen = new Map<number, SavedResponse>();
  const file = options.responsesFile ?? 'responses';
  for (const r of responses) {
    if (r.doc_id >= docs.length)
      throw new EvalInputError(`${file}: doc_id ${r.doc_id} is past the dataset's ${docs.length} documents`);
    if (seen.has(r.doc_id)) throw new EvalInputError(`${file}: doc_id ${r.doc_id} appears twice`);
    seen.set(r.doc_id, r);
  }
  const ids = [...seen.keys()].sort((a, b) => a - b);
  return ids.map((id) => {
    const r = seen.get(id) as SavedResponse;
    const doc = docs[id] as GsmDoc;
    const target = docToTarget(doc);
    const response = r.response;
    const status = statusOf(response, r.finish_reason);
    const graded = gradeResponse(response, target, status === 'truncated' && !options.gradeTruncated);
    return {
      doc_id: id,
      prompt: '',
      target,
      response,
      finish_reason: r.finish_reason ?? null,
      status,
      attempts: 0,
      error: null,
      ...graded,
    };
  });
}
