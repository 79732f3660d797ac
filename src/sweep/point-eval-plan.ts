import { evalMaxTokens } from '../evals/gsm8k.ts';
import type { ENGINE_KINDS } from '../schema/engine-launch.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import { EVAL_CONTEXT_LENGTH, type PointEvalSpec } from '../schema/point-eval.ts';

/**
 * What a `run-eval` row's point runs after its benchmark (an `eval-only` row's, instead of it): GSM8K on the
 * same engine, with the reference's eval context (16384) and its max_tokens budget (context − 4096, so
 * 12288), from the sweep's flags.
 */

export interface EvalPlanDefaults {
  /** `--eval-dataset`: GSM8K test split (JSONL); null: run-eval rows fail preflight. */
  dataset: string | null;
  fewshotDataset: string | null;
  fewshot: number;
  limit: number | null;
  concurrency: number;
  /** `--accuracy`: what the simulated engine answers right (simulated). */
  simAccuracy: number;
  thresholds: string | null;
  minScore: number;
}

export const NO_EVAL_DATASET_REASON =
  'run-eval rows run GSM8K after the benchmark and need its questions: give infx sweep --eval-dataset FILE ' +
  '(the GSM8K test split as JSONL); infx never downloads it';

/** The eval of a row's points: null for a row without run-eval, a reason when it cannot run. */
export function evalSpecOf(
  row: MatrixRow,
  defaults: EvalPlanDefaults | null | undefined,
  engine: (typeof ENGINE_KINDS)[number],
): PointEvalSpec | string | null {
  if (row['run-eval'] !== true) return null;
  if (!defaults?.dataset) return NO_EVAL_DATASET_REASON;
  return {
    task: 'gsm8k',
    dataset: defaults.dataset,
    fewshotDataset: defaults.fewshotDataset,
    fewshot: defaults.fewshot,
    limit: defaults.limit,
    concurrency: defaults.concurrency,
    contextLength: EVAL_CONTEXT_LENGTH,
    maxTokens: evalMaxTokens(EVAL_CONTEXT_LENGTH),
    simAccuracy: engine === 'sim' ? defaults.simAccuracy : null,
    thresholds: defaults.thresholds,
    minScore: defaults.minScore,
    evalOnly: row['eval-only'] === true,
  };
}
