import * as z from 'zod';

/**
 * One line of a `traces.jsonl` file in the Weka kv-cache-tester trace format: one recorded Claude Code run
 * (client-metrics §2.2; addendum §1.13 for its provenance). The raw text is anonymised away: what is left
 * is token counts, KV-block hash ids and timing.
 *
 * Objects are loose (fields the format adds later pass through) but every field the replay and the trace
 * statistics read is checked. A request of `type` `n` (normal) or `s` (streaming) is one API call; a
 * `subagent` entry groups the calls of one subagent, whose `t` values are absolute (root-trace seconds; a
 * child `t` earlier than its entry's is a legacy relative one, addendum §1.2).
 */

const tokens = z.int().nonnegative();
const seconds = z.number().nonnegative();
/** KV-block ids, per trace (`hash_id_scope: "local"`), remapped to integers by the corpus build. */
const hashIds = z.array(z.int().nonnegative());
/** Timings a recording may lack: null or absent both mean unknown (the replay then counts 0). */
const optionalSeconds = z.number().nullable().optional();

const ApiCallShape = z.looseObject({
  type: z.enum(['n', 's']),
  /** Seconds from the trace's start at which the call was sent. */
  t: seconds,
  model: z.string().optional(),
  /** Input tokens: the hash-block count times `block_size`. */
  in: tokens,
  /** Output tokens (older drops spell it `output_length`; the loader reads either). */
  out: tokens,
  hash_ids: hashIds,
  input_types: z.array(z.string()).optional(),
  output_types: z.array(z.string()).optional(),
  /** Why the call stopped, e.g. `tool_use` or `end_turn`. */
  stop: z.string().nullable().optional(),
  /** How long the call took, seconds: the end-to-start delay subtracts it (addendum §1.2). */
  api_time: optionalSeconds,
  think_time: optionalSeconds,
});

/** `output_length` is the older spelling of `out`: read as `out` when `out` is absent. */
function outFromOutputLength(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && !('out' in v) && 'output_length' in v)
    return { ...v, out: (v as { output_length: unknown }).output_length };
  return v;
}

export const TraceApiCallSchema = z.preprocess(outFromOutputLength, ApiCallShape);

export const TraceSubagentSchema = z.looseObject({
  type: z.literal('subagent'),
  /** Seconds from the trace's start at which the subagent was spawned. */
  t: seconds,
  agent_id: z.string().min(1),
  subagent_type: z.string().nullable().optional(),
  /** e.g. `completed`; `async_launched` for a background subagent, whose `duration_ms` is null. */
  status: z.string().nullable().optional(),
  models: z.array(z.string()).optional(),
  duration_ms: z.number().nullable().optional(),
  total_tokens: z.number().nullable().optional(),
  requests: z.array(TraceApiCallSchema),
});

/**
 * An entry of a trace's `requests[]`: an API call of the main agent, or a subagent with its own calls,
 * told apart by `type` (so that an error names the field of the kind it is, not every kind's).
 */
export const TraceEntrySchema = z.preprocess(
  (v) =>
    typeof v === 'object' && v !== null && (v as { type?: unknown }).type !== 'subagent'
      ? outFromOutputLength(v)
      : v,
  z.discriminatedUnion('type', [ApiCallShape, TraceSubagentSchema]),
);

export const AgenticTraceSchema = z.looseObject({
  id: z.string().min(1),
  /** Ignored by the replay (addendum §1.6: models map by order of first appearance in the requests). */
  models: z.array(z.string()).optional(),
  /** Tokens per hash block (64 in every published corpus). */
  block_size: z.int().positive(),
  hash_id_scope: z.string().optional(),
  /** Tool-definition and system-prompt tokens: together they form the replayed system message. */
  tool_tokens: tokens,
  system_tokens: tokens,
  requests: z.array(TraceEntrySchema).min(1),
});

export type TraceApiCall = z.infer<typeof ApiCallShape>;
export type TraceSubagent = z.infer<typeof TraceSubagentSchema>;
export type TraceEntry = TraceApiCall | TraceSubagent;
export type AgenticTrace = z.infer<typeof AgenticTraceSchema>;

export const isSubagent = (e: TraceEntry): e is TraceSubagent => e.type === 'subagent';
