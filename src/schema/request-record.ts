import * as z from 'zod';
import { AgenticFieldsSchema } from './agentic-fields.ts';

/**
 * One line of `requests.jsonl`: everything the client saw of one request, warmup and failures included.
 * Times are milliseconds on the client's monotonic clock, relative to the run's `clockOriginMs`
 * (see PointResult.timing), so records of one point line up and never jump with the wall clock.
 */

export const ERROR_CATEGORIES = [
  'connection_refused',
  'connection_reset',
  'write_error',
  'http_4xx',
  'http_5xx',
  'context_overflow',
  'stream_truncated',
  'invalid_stream',
  'no_content',
  'timeout',
  'cancelled',
  'other',
] as const;
export const ErrorCategorySchema = z.enum(ERROR_CATEGORIES);
export type ErrorCategory = z.infer<typeof ErrorCategorySchema>;

export const RequestErrorSchema = z.strictObject({
  category: ErrorCategorySchema,
  message: z.string(),
  /** HTTP status when the server answered with one. */
  status: z.int().nullable(),
  /** The first bytes of an error body, for 4xx/5xx. */
  bodyExcerpt: z.string().nullable(),
});
export type RequestError = z.infer<typeof RequestErrorSchema>;

const ms = z.number();

/**
 * Ways a server's usage counts fail the client's check (src/client/usage-check.ts): not a non-negative
 * integer; completion_tokens above max_tokens plus a small slack, or below the token chunks received;
 * prompt_tokens far from the client's own count of the prompt; two usage chunks that disagree.
 */
export const USAGE_PROBLEMS = [
  'not_a_count',
  'over_max_tokens',
  'under_token_chunks',
  'implausible_prompt',
  'disagreeing_chunks',
] as const;
export const UsageProblemSchema = z.enum(USAGE_PROBLEMS);
export type UsageProblem = z.infer<typeof UsageProblemSchema>;

/** The server's token counts the client did not believe: the client's own counts stand in for them. */
export const UsageFlagSchema = z.strictObject({
  /** usage.prompt_tokens was rejected: `inputTokens.server` is null, the client's count is used. */
  input: z.boolean(),
  /** usage.completion_tokens was rejected: `outputTokens.server` is null, the client's count is used. */
  output: z.boolean(),
  problems: z.array(UsageProblemSchema).min(1),
  /** What was wrong, with the values the server sent. */
  message: z.string(),
});
export type UsageFlag = z.infer<typeof UsageFlagSchema>;

/**
 * The simulated engine's own timestamps for one request (engine ms, on the clock it announces with its
 * time scale): when the request joined its queue, when it was due (open loop), and when each token
 * chunk was produced. Null for servers that do not stamp.
 */
export const EngineStampsSchema = z.strictObject({
  arrivalMs: ms,
  /** Open loop: when the arrival schedule said the request should arrive; null in a closed loop. */
  scheduledMs: ms.nullable(),
  firstTokenMs: ms.nullable(),
  lastTokenMs: ms.nullable(),
  /** Gaps between consecutive token chunks, as the engine produced them. */
  chunkGapsMs: z.array(ms),
});
export type EngineStamps = z.infer<typeof EngineStampsSchema>;

export const RequestRecordSchema = z.strictObject({
  /** 0-based position in its phase, in dispatch order. */
  index: z.int().nonnegative(),
  phase: z.enum(['warmup', 'benchmark']),
  /** Which prompt of the workload was sent (warmup reuses prompt 0, as the reference does). */
  promptIndex: z.int().nonnegative(),
  /** Client worker (thread) that sent it. */
  worker: z.int().nonnegative(),
  /** When the arrival model (or a freed concurrency slot) said the request should go. */
  scheduledMs: ms,
  /** Just before the request's first byte was written. */
  sentMs: ms,
  /** First byte of the response (status line) read off the socket. */
  firstByteMs: ms.nullable(),
  /** Socket read that carried the first token on any channel (content or reasoning). */
  firstTokenMs: ms.nullable(),
  /** Socket read that carried the last token (usage-only chunks excluded). */
  lastTokenMs: ms.nullable(),
  /** Response fully consumed, or the failure observed. */
  doneMs: ms.nullable(),
  /** Gaps between consecutive token-carrying chunks, ms (per chunk, so multi-token chunks give fewer). */
  chunkGapsMs: z.array(ms),
  /** Token-carrying chunks on the content channel and on the reasoning channel. */
  contentChunks: z.int().nonnegative(),
  reasoningChunks: z.int().nonnegative(),
  inputTokens: z.strictObject({
    /** Length the workload aimed for. */
    target: z.int().nonnegative(),
    /** Count of the sent prompt under the client's tokenizer. */
    client: z.int().nonnegative(),
    /** usage.prompt_tokens, null when the server sent none or it failed the usage check (`usageFlag`). */
    server: z.int().nonnegative().nullable(),
  }),
  outputTokens: z.strictObject({
    /** max_tokens asked for. */
    requested: z.int().nonnegative(),
    /** Client-side count: the generated text re-tokenized. */
    client: z.int().nonnegative().nullable(),
    /** usage.completion_tokens, null when the server sent none or it failed the usage check (`usageFlag`). */
    server: z.int().nonnegative().nullable(),
  }),
  /** The server's usage failed the client's check (see UsageFlagSchema); null when it passed or none came. */
  usageFlag: UsageFlagSchema.nullable(),
  ok: z.boolean(),
  error: RequestErrorSchema.nullable(),
  /** Stopped by the client at the end of the run (not scored as an error). */
  cancelled: z.boolean(),
  engine: EngineStampsSchema.nullable(),
  /** AgentX replay requests only: where the request sits in its trace (schema/agentic-fields.ts). */
  agentic: AgenticFieldsSchema.optional(),
});
export type RequestRecord = z.infer<typeof RequestRecordSchema>;
