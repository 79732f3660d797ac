import { type EvalResults, type EvalSampleRecord, SavedResponseSchema } from '../schema/evals.ts';
import { type DatasetSource, loadGsm8k, readJsonlFile } from './dataset.ts';
import { EvalInputError } from './errors.ts';
import { buildResults, scoreSaved } from './grade.ts';
import { GSM8K_TASK } from './gsm8k.ts';
import { type EvalRunOptions, runEval, writeEvalOutput } from './run.ts';

/** What the eval commands call: datasets loaded, the run or the grading done, the files written. */

const checkTask = (task: string) => {
  if (task !== GSM8K_TASK)
    throw new EvalInputError(`unknown eval task '${task}'`, {
      exitCode: 2,
      hint: 'the tasks infx grades: gsm8k',
    });
};

export interface RunGsm8kOptions extends EvalRunOptions, DatasetSource {
  task: string;
  out: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunGsm8kOutcome {
  results: EvalResults;
  interrupted: boolean;
  files: { results: string; samples: string };
  datasetFile: string;
}

export async function runGsm8k(options: RunGsm8kOptions): Promise<RunGsm8kOutcome> {
  checkTask(options.task);
  const data = loadGsm8k(options, options.fewshot, options.env);
  const outcome = await runEval(data.test, data.train, options);
  const files = writeEvalOutput(options.out, outcome);
  return { results: outcome.results, interrupted: outcome.interrupted, files, datasetFile: data.testFile };
}

export interface ScoreGsm8kOptions {
  task: string;
  dataset: string | null;
  responses: string;
  fewshot: number;
  gradeTruncated: boolean;
  env?: NodeJS.ProcessEnv;
}

export function scoreGsm8k(options: ScoreGsm8kOptions): {
  results: EvalResults;
  samples: EvalSampleRecord[];
} {
  checkTask(options.task);
  const data = loadGsm8k({ dataset: options.dataset, fewshotDataset: null }, 0, options.env);
  const responses = readJsonlFile(options.responses, SavedResponseSchema, 'a responses file');
  if (responses.length === 0)
    throw new EvalInputError(`${options.responses}: no responses`, {
      hint: 'one {"doc_id", "response"} object a line',
    });
  const samples = scoreSaved(data.test, responses, {
    gradeTruncated: options.gradeTruncated,
    responsesFile: options.responses,
  });
  const results = buildResults(samples, {
    original: data.test.length,
    fewshot: options.fewshot,
    model: null,
    baseUrl: null,
    endpoint: 'none',
    fewshotAsMultiturn: false,
    limit: null,
    genKwargs: {},
    retries: 0,
    date: Date.now() / 1000,
  });
  return { results, samples };
}
