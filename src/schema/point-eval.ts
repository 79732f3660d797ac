import * as z from 'zod';

/**
 * The accuracy eval of a sweep point (a matrix row with `run-eval`): what to run after the throughput
 * benchmark, on the same engine, and the verdict it earned against its threshold. Both are optional in
 * point.json and status.json, so run directories written before evals ran read as they did.
 */

/** The eval context length the reference runs lm-eval with; max_tokens is budgeted from it. */
export const EVAL_CONTEXT_LENGTH = 16384;

export const PointEvalSpecSchema = z.strictObject({
  task: z.literal('gsm8k'),
  /** GSM8K test split (JSONL). */
  dataset: z.string(),
  /** GSM8K train split for few-shot examples (JSONL); null: the local Hugging Face cache. */
  fewshotDataset: z.string().nullable(),
  fewshot: z.int().nonnegative(),
  limit: z.int().positive().nullable(),
  concurrency: z.int().positive(),
  /** The engine's context for the point (at least EVAL_CONTEXT_LENGTH). */
  contextLength: z.int().positive(),
  maxTokens: z.int().positive(),
  /** The simulated engine's accuracy (`--accuracy`): its score is simulated. Null on a real engine. */
  simAccuracy: z.number().min(0).max(1).nullable(),
  /** A thresholds file (the reference's format); null: the reference's thresholds. */
  thresholds: z.string().nullable(),
  minScore: z.number().min(0).max(1),
  /**
   * An eval-only row (`eval-only`, from --evals-only or an evals-only changelog entry): the eval runs instead
   * of the throughput benchmark, so the point has a verdict and no result.json.
   */
  evalOnly: z.boolean().default(false),
});

export const PointEvalOutcomeSchema = z.strictObject({
  task: z.literal('gsm8k'),
  samples: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  /** exact_match per filter. */
  scores: z.strictObject({ 'strict-match': z.number(), 'flexible-extract': z.number() }),
  threshold: z.number(),
  /** `models.<key>`, `default` or `min-score`, and which rule chose it (model, family, default, min-score). */
  source: z.string(),
  rule: z.enum(['model', 'family', 'default', 'min-score']),
  /** Both filters at or above the threshold. */
  pass: z.boolean(),
  /** Scored against the simulated engine: the score says nothing about a model. */
  simulated: z.boolean(),
  /** results.json, relative to the attempt directory. */
  resultsFile: z.string(),
});

export type PointEvalSpec = z.output<typeof PointEvalSpecSchema>;
export type PointEvalOutcome = z.infer<typeof PointEvalOutcomeSchema>;
