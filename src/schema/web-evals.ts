import * as z from 'zod';
import { RUN_STATUSES } from './store.ts';

/**
 * The dashboard's accuracy API (the evaluation page): `GET /api/evals` lists stored eval verdicts with their
 * config and run, `GET /api/runs/:id/points/:pointId/eval` one verdict with a page of its graded samples.
 */

export const EvalsQuerySchema = z.strictObject({
  run: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
});

export const EVAL_SAMPLE_FILTERS = ['all', 'wrong', 'failed'] as const;

export const EvalSamplesQuerySchema = z.strictObject({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(25),
  /** wrong: either filter's answer was wrong; failed: the server never answered (or answered nothing). */
  filter: z.enum(EVAL_SAMPLE_FILTERS).default('all'),
});

const score = z.strictObject({ value: z.number(), stderr: z.number().nullable() });

export const EvalVerdictSchema = z.strictObject({
  runId: z.string(),
  runStatus: z.enum(RUN_STATUSES),
  runCreatedAt: z.string(),
  pointId: z.string(),
  attempt: z.int(),
  configKey: z.string(),
  /** The model prefix and the deployment (`h100 vllm bf16 tp1`). */
  model: z.string(),
  config: z.string(),
  isl: z.int(),
  osl: z.int(),
  conc: z.int(),
  task: z.string(),
  evalOnly: z.boolean(),
  strictMatch: score,
  flexibleExtract: score,
  threshold: z.number(),
  thresholdSource: z.string(),
  thresholdRule: z.enum(['model', 'family', 'default', 'min-score']),
  pass: z.boolean(),
  /** Scored against infx's simulated engine: the score says nothing about the model. */
  simulated: z.boolean(),
  samples: z.int(),
  failedSamples: z.int(),
});

export const EvalsResponseSchema = z.array(EvalVerdictSchema);

export const EvalSampleSchema = z.strictObject({
  docId: z.int(),
  status: z.enum(['ok', 'empty', 'truncated', 'failed']),
  question: z.string(),
  target: z.string(),
  response: z.string().nullable(),
  finishReason: z.string().nullable(),
  strictAnswer: z.string(),
  flexibleAnswer: z.string(),
  strictCorrect: z.boolean(),
  flexibleCorrect: z.boolean(),
  tries: z.int(),
  error: z.string().nullable(),
});

export const EvalDetailSchema = z.strictObject({
  verdict: EvalVerdictSchema,
  filter: z.enum(EVAL_SAMPLE_FILTERS),
  offset: z.int(),
  /** Samples matching the filter (all pages). */
  total: z.int(),
  samples: z.array(EvalSampleSchema),
});

export type EvalsQuery = z.infer<typeof EvalsQuerySchema>;
export type EvalSamplesQuery = z.infer<typeof EvalSamplesQuerySchema>;
export type EvalVerdict = z.infer<typeof EvalVerdictSchema>;
export type EvalSample = z.infer<typeof EvalSampleSchema>;
export type EvalDetail = z.infer<typeof EvalDetailSchema>;
