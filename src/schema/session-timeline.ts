import * as z from 'zod';
import { AgenticBranchSchema } from './agentic-fields.ts';

/**
 * `GET /api/runs/:id/points/:pointId/timeline`: one lane of an agentic point over time, from the attempt's
 * requests.jsonl. A row per conversation, tree by tree (each root, then its subagents by first request), a
 * bar per request from sent to done. Times are ms on the records' clock.
 */

const wholeNumber = (max: number) =>
  z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.int().nonnegative().max(max));

export const TimelineQuerySchema = z.strictObject({
  /** The lane (`session_num`); default: the lowest lane in the file. */
  lane: wholeNumber(1_000_000).optional(),
  /** Which attempt; default: the one whose result is stored, else the newest. */
  attempt: wholeNumber(10_000_000).pipe(z.int().positive()).optional(),
});
export type TimelineQuery = z.infer<typeof TimelineQuerySchema>;

/** The most requests of one lane a timeline holds; past it `truncated` says so. */
export const TIMELINE_REQUEST_CAP = 2000;

export const TimelineRequestSchema = z.strictObject({
  turnIndex: z.int().nonnegative(),
  phase: z.enum(['warmup', 'benchmark']),
  sentMs: z.number(),
  /** Null: the request never finished (the run ended first). */
  doneMs: z.number().nullable(),
  ok: z.boolean(),
  cancelled: z.boolean(),
});
export type TimelineRequest = z.infer<typeof TimelineRequestSchema>;

export const TimelineConversationSchema = z.strictObject({
  conversationId: z.string(),
  correlationId: z.string(),
  branch: AgenticBranchSchema,
  requests: z.array(TimelineRequestSchema),
});
export type TimelineConversation = z.infer<typeof TimelineConversationSchema>;

export const SessionTimelineSchema = z.strictObject({
  runId: z.string(),
  pointId: z.string(),
  attempt: z.int().positive(),
  lane: z.int().nonnegative(),
  /** Every lane the file holds, ascending (to pick another). */
  lanes: z.array(z.int().nonnegative()),
  /** Earliest sent and latest done of the lane's requests shown. */
  startMs: z.number(),
  endMs: z.number(),
  conversations: z.array(TimelineConversationSchema),
  /** The lane had more than TIMELINE_REQUEST_CAP requests: the first ones in the file are shown. */
  truncated: z.boolean(),
  requestCap: z.int().positive(),
});
export type SessionTimeline = z.infer<typeof SessionTimelineSchema>;
