import * as z from 'zod';
import { always, bool, closed, int, nonEmptyStr, oneOf, posInt, report } from './zod-helpers.ts';

/**
 * The script of `infx sim scripted`: an OpenAI-compatible streaming server whose timing and faults are
 * fixed per request, so the benchmark client's measurements can be checked against it.
 *
 * Requests are numbered by arrival: k = 0, 1, … counts the POSTs to a generation endpoint
 * (/v1/completions, /v1/chat/completions) in the order the server received them. Every request follows
 * `defaults`, with the fields of `requests["<k>"]` laid over them.
 *
 * Timing: token chunk n (0-based) is written at start + ttftMs + n·itlMs on the monotonic clock, where start
 * is the moment the request body was fully read (or, with `serial`, the moment the request got its turn).
 */

const ms = () =>
  z.number({ error: 'expected a number of milliseconds' }).nonnegative({ error: 'must be >= 0' });

const nonNegInt = () => int().nonnegative({ error: 'must be >= 0' });

export const FAULT_KINDS = [
  'http',
  'truncate',
  'hang',
  'hang-before-headers',
  'reset',
  'malformed',
  'context-overflow',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const ScriptedFaultSchema = z.discriminatedUnion(
  'kind',
  [
    /** Answer with this HTTP status and body instead of a completion (at the request's start). */
    closed({
      kind: z.literal('http'),
      status: int()
        .min(200, { error: 'must be an HTTP status with a body (200..599)' })
        .max(599, { error: 'must be an HTTP status with a body (200..599)' }),
      /** A string is sent verbatim; anything else as JSON. Default: an OpenAI-style error object. */
      body: z.unknown().optional(),
    }),
    /**
     * Stream `afterChunks` token chunks, then stop without usage or [DONE]. By default the socket is closed
     * mid-body (the chunked HTTP body never terminates); with `clean: true` the HTTP response ends properly.
     */
    closed({ kind: z.literal('truncate'), afterChunks: nonNegInt(), clean: bool().default(false) }),
    /** Send the 200 and the SSE headers, then nothing, until the client or the server closes. */
    closed({ kind: z.literal('hang') }),
    /** Read the request, then never answer (not even headers). */
    closed({ kind: z.literal('hang-before-headers') }),
    /** Reset the connection (TCP RST) as soon as the request's headers arrive. */
    closed({ kind: z.literal('reset') }),
    /** Stream `afterChunks` token chunks, then the event `data: {not json`, then end the HTTP response. */
    closed({ kind: z.literal('malformed'), afterChunks: nonNegInt() }),
    /**
     * HTTP 400 with an OpenAI-style error: "This model's maximum context length is N tokens. …".
     * N is `maxContextTokens`, else the script's `maxModelLen`, else one less than what the request asked for.
     */
    closed({ kind: z.literal('context-overflow'), maxContextTokens: posInt().optional() }),
  ],
  { error: `fault.kind must be one of ${FAULT_KINDS.join(', ')}` },
);
export type ScriptedFault = z.output<typeof ScriptedFaultSchema>;

export const ROLE_CHUNK_MODES = ['with-first-token', 'at-start'] as const;

/** Every per-request field, without defaults (the override form). */
const requestFields = {
  /** Time to the first token chunk, from the request's start. */
  ttftMs: ms(),
  /** Time between consecutive token chunks. */
  itlMs: ms(),
  /** Tokens to generate; null: the request's max_tokens (max_completion_tokens for chat; 16 if absent). */
  outputTokens: nonNegInt().nullable(),
  /** Tokens per SSE chunk (the last chunk may carry fewer). */
  tokensPerChunk: posInt(),
  /** The first n token chunks go on the reasoning channel (chat `delta.reasoning_content`; ignored for completions). */
  reasoningChunks: nonNegInt(),
  /** Text of one token. */
  tokenText: z.string({ error: 'expected a string' }),
  /** Send the usage chunk (streaming, when the request sets stream_options.include_usage) / usage object. */
  usage: bool(),
  /** Lie in usage by this much (the result is clamped at 0), to test mismatch counting. */
  usageOffset: closed({ prompt: int().default(0), completion: int().default(0) }),
  /** usage.prompt_tokens; null: ceil(prompt characters / 4), or the number of token ids when the prompt is ids. */
  promptTokens: nonNegInt().nullable(),
  /**
   * Chat only: when the role-only first chunk is written: together with the first token chunk (so every
   * client measures the scripted TTFT), or right after the headers at the request's start.
   */
  roleChunk: oneOf(ROLE_CHUNK_MODES),
  /** Make this request fail; null: no fault. */
  fault: ScriptedFaultSchema.nullable(),
};

export const ScriptedDefaultsSchema = closed({
  ttftMs: requestFields.ttftMs.default(20),
  itlMs: requestFields.itlMs.default(5),
  outputTokens: requestFields.outputTokens.default(null),
  tokensPerChunk: requestFields.tokensPerChunk.default(1),
  reasoningChunks: requestFields.reasoningChunks.default(0),
  tokenText: requestFields.tokenText.default('tok '),
  usage: requestFields.usage.default(true),
  usageOffset: requestFields.usageOffset.prefault({}),
  promptTokens: requestFields.promptTokens.default(null),
  roleChunk: requestFields.roleChunk.default('with-first-token'),
  fault: requestFields.fault.default(null),
});
export type ScriptedDefaults = z.output<typeof ScriptedDefaultsSchema>;

export const ScriptedOverrideSchema = closed({
  ttftMs: requestFields.ttftMs.optional(),
  itlMs: requestFields.itlMs.optional(),
  outputTokens: requestFields.outputTokens.optional(),
  tokensPerChunk: requestFields.tokensPerChunk.optional(),
  reasoningChunks: requestFields.reasoningChunks.optional(),
  tokenText: requestFields.tokenText.optional(),
  usage: requestFields.usage.optional(),
  usageOffset: requestFields.usageOffset.optional(),
  promptTokens: requestFields.promptTokens.optional(),
  roleChunk: requestFields.roleChunk.optional(),
  fault: requestFields.fault.optional(),
});
export type ScriptedOverride = z.output<typeof ScriptedOverrideSchema>;

const requestOverrides = z.record(z.string(), ScriptedOverrideSchema).superRefine((requests, ctx) => {
  for (const key of Object.keys(requests)) {
    if (!/^(0|[1-9]\d*)$/.test(key)) {
      report(ctx, {
        rule: 'request-index',
        message: `'${key}' is not a request index: keys are arrival indexes "0", "1", … (k-th generation request)`,
        path: [key],
      });
    }
  }
}, always);

export const ScriptedScriptSchema = closed({
  /** Model name reported by /v1/models and in every response. */
  model: nonEmptyStr().default('scripted'),
  /** Context limit: requests whose prompt + max tokens exceed it get the context-overflow error. */
  maxModelLen: posInt().nullable().default(null),
  defaults: ScriptedDefaultsSchema.prefault({}),
  /** Overrides by arrival index k (0-based). */
  requests: requestOverrides.default({}),
  /** Serve one generation request at a time, in arrival order (FIFO); the others wait their turn. */
  serial: bool().default(false),
  /** Max speed: ignore ttftMs/itlMs and write each response as fast as the socket takes it. */
  burst: bool().default(false),
  /** Burst mode: SSE events coalesced into one socket write. */
  burstEventsPerWrite: posInt().default(64),
});
export type ScriptedScript = z.output<typeof ScriptedScriptSchema>;
export type ScriptedScriptInput = z.input<typeof ScriptedScriptSchema>;
