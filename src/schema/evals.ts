import * as z from 'zod';

/**
 * The shapes of accuracy evals (src/evals): a GSM8K document, a saved response to grade, one graded sample
 * (samples JSONL), the lm-evaluation-harness-shaped results.json, the thresholds file in the reference's
 * format (utils/evals/thresholds.yaml) and the report of `infx eval validate`.
 */

/** One line of a GSM8K JSONL file (openai/gsm8k `main`): extra keys are kept but not read. */
export const GsmDocSchema = z.looseObject({
  question: z.string(),
  answer: z.string(),
});
export type GsmDoc = z.infer<typeof GsmDocSchema>;

/** One line of the responses file `infx eval score` grades. */
export const SavedResponseSchema = z.looseObject({
  doc_id: z.number().int().nonnegative(),
  response: z.string().nullable(),
  /** The server's finish_reason, when it was saved: `length` marks a truncated response. */
  finish_reason: z.string().nullable().optional(),
});
export type SavedResponse = z.infer<typeof SavedResponseSchema>;

export const EVAL_FILTERS = ['strict-match', 'flexible-extract'] as const;
export type EvalFilter = (typeof EVAL_FILTERS)[number];

/** A chat message as lm-eval sends it with --apply_chat_template. */
export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** One line of samples_gsm8k.jsonl: the prompt, what came back, what each filter extracted, and the verdicts. */
export const EvalSampleRecordSchema = z.object({
  doc_id: z.number().int().nonnegative(),
  /** The prompt sent: chat messages on the chat endpoint, one string on the completions endpoint. */
  prompt: z.union([z.array(ChatMessageSchema), z.string()]),
  target: z.string(),
  /** The response text; null when every attempt failed (a failure, never graded as an answer). */
  response: z.string().nullable(),
  finish_reason: z.string().nullable(),
  /** `ok`, `empty` (no text), `truncated` (finish_reason length) or `failed` (server errors or timeouts). */
  status: z.enum(['ok', 'empty', 'truncated', 'failed']),
  attempts: z.number().int().nonnegative(),
  error: z.string().nullable(),
  filtered: z.object({ 'strict-match': z.string(), 'flexible-extract': z.string() }),
  correct: z.object({ 'strict-match': z.boolean(), 'flexible-extract': z.boolean() }),
});
export type EvalSampleRecord = z.infer<typeof EvalSampleRecordSchema>;

const metricValue = z.union([z.number(), z.literal('N/A')]);

/** results.json as lm-eval writes it (the keys the reference's validator and collector read, plus infx's). */
export const EvalResultsSchema = z.looseObject({
  results: z.record(
    z.string(),
    z.looseObject({
      alias: z.string(),
      'exact_match,strict-match': z.number(),
      'exact_match_stderr,strict-match': metricValue,
      'exact_match,flexible-extract': z.number(),
      'exact_match_stderr,flexible-extract': metricValue,
    }),
  ),
  group_subtasks: z.record(z.string(), z.array(z.string())),
  configs: z.record(z.string(), z.looseObject({})),
  versions: z.record(z.string(), z.number()),
  'n-shot': z.record(z.string(), z.number().int()),
  higher_is_better: z.record(z.string(), z.record(z.string(), z.boolean())),
  'n-samples': z.record(z.string(), z.object({ original: z.number().int(), effective: z.number().int() })),
  config: z.looseObject({}),
  date: z.number(),
  lm_eval_version: z.string(),
  /** What infx adds: every sample accounted for (answers graded, failures apart). */
  infx: z.object({
    version: z.string(),
    samples: z.number().int(),
    failed: z.number().int(),
    empty: z.number().int(),
    truncated: z.number().int(),
    retries: z.number().int(),
    correct: z.object({ 'strict-match': z.number().int(), 'flexible-extract': z.number().int() }),
    fewshot_seed: z.number().int(),
    fewshot_as_multiturn: z.boolean(),
    endpoint: z.enum(['chat', 'completions', 'none']),
    /** The simulated engine's version when the server said it is infx's simulator: the score is simulated. */
    simulator: z.string().nullable().optional(),
  }),
});
export type EvalResults = z.infer<typeof EvalResultsSchema>;

const taskThresholds = z.record(z.string(), z.number());

/**
 * The thresholds file (YAML or JSON): `default` task → minimum and `models` prefix → task → minimum; a
 * mapping with neither key is the legacy flat form, the whole of it the defaults.
 */
export const ThresholdsStructuredSchema = z.looseObject({
  default: taskThresholds.optional(),
  models: z.record(z.string(), taskThresholds).optional(),
});
export const ThresholdsFlatSchema = taskThresholds;
export const ThresholdsFileSchema = z.union([ThresholdsStructuredSchema, ThresholdsFlatSchema]);
export type ThresholdsFile = z.infer<typeof ThresholdsFileSchema>;

/** Where a threshold came from: the reference's three sources, and infx's family fallback. */
export const ThresholdRuleSchema = z.enum(['model', 'family', 'default', 'min-score']);

export const ValidateReportSchema = z.object({
  thresholds: z.string().nullable(),
  modelPrefix: z.string().nullable(),
  lookup: z.enum(['family', 'exact']),
  manifestErrors: z.array(z.string()),
  checks: z.array(
    z.object({
      file: z.string(),
      conc: z.number().int().nullable(),
      task: z.string(),
      metric: z.string(),
      value: z.number(),
      threshold: z.number(),
      rule: ThresholdRuleSchema,
      /** `models.<key>`, `default` or `min-score`, as the reference prints it. */
      source: z.string(),
      pass: z.boolean(),
    }),
  ),
  /** Log lines in the reference's words, each with the stream it goes to. */
  lines: z.array(z.object({ stream: z.enum(['stdout', 'stderr']), text: z.string() })),
  ok: z.boolean(),
});
export type ValidateReport = z.infer<typeof ValidateReportSchema>;
