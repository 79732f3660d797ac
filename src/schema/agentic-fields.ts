import * as z from 'zod';

/**
 * The agentic fields of a request record (`RequestRecord.agentic`, present on AgentX replay requests only):
 * what the reference's `profile_export.jsonl` record carries for its metrics (client-metrics-spec §3.2,
 * §7.3). Here, not in agentic-record.ts, so request-record.ts can hold them without an import circle.
 */

/** Where in its trace's tree a request sits: the root conversation, a subagent, or a flat-chain child. */
export const AgenticBranchSchema = z.strictObject({
  kind: z.enum(['root', 'subagent', 'flat']),
  /** Correlation id of the conversation that spawned this one; null for the root. */
  parentCorrelationId: z.string().nullable(),
  /** The trace's agent id of a subagent (`<trace>:spawn:<agent_id>` branch); null for the root. */
  agentId: z.string().nullable(),
  /** Spawned to run in the background: no parent turn waits for it (addendum §1.1). */
  background: z.boolean(),
});
export type AgenticBranch = z.infer<typeof AgenticBranchSchema>;

/**
 * The static theoretical prefix-cache facts of the request, fixed when the corpus is compiled (addendum
 * §1.4): per trace one seen-set over root, subagents and flat chains in `(t, outer, stream, k)` order;
 * `hitBlocks` is the leading run of the request's `hash_ids` already seen, `totalBlocks` their number.
 * They do not depend on the replay's timing, so the record carries them and the metrics only sum them.
 */
export const TheoreticalPrefixSchema = z.strictObject({
  hitBlocks: z.int().nonnegative(),
  totalBlocks: z.int().nonnegative(),
});
export type TheoreticalPrefix = z.infer<typeof TheoreticalPrefixSchema>;

export const AgenticFieldsSchema = z.strictObject({
  /** The trace replayed (the reference's conversation id up to the first `::`). */
  traceId: z.string().min(1),
  /** The reference's `conversation_id`: the trace id, then `::`-separated branch path for subagents. */
  conversationId: z.string().min(1),
  /** `X-Correlation-ID`: one per conversation played (each subagent its own, each recycle pass anew). */
  correlationId: z.string().min(1),
  /** The tree's id (`root_correlation_id`): the correlation id of its root conversation. */
  rootCorrelationId: z.string().min(1),
  /** `X-Request-ID`. */
  requestId: z.string().min(1),
  /** Position of the request among its trace's `n`/`s` requests of this conversation (`turn_index`). */
  turnIndex: z.int().nonnegative(),
  /** Lane (`session_num`): which of the point's concurrent trees played it. */
  lane: z.int().nonnegative(),
  /** Times this lane had recycled to a new trace before this request (0: its first trace). */
  recyclePass: z.int().nonnegative(),
  branch: AgenticBranchSchema,
  /** The trace's recorded output length for this request (`output_length`/`out`); null when it has none. */
  expectedOutputTokens: z.int().nonnegative().nullable(),
  theoreticalPrefix: TheoreticalPrefixSchema,
  /** The message list was re-sent whole because the context was compacted or edited (addendum §1.5). */
  resetContext: z.boolean(),
  /** When the client cut the request at the end of the run (`cancellation_time_ns`), ms; null otherwise. */
  cancelledAtMs: z.number().nullable(),
});
export type AgenticFields = z.infer<typeof AgenticFieldsSchema>;
