import { Rng } from '../random.ts';

/**
 * Correlation and request ids, and the affinity headers routers key on (client-metrics §2.9). A
 * correlation id names one play of one conversation (the root, each subagent, each recycle pass anew),
 * derived from the seed so that one seed gives one schedule; a request id names one call of it.
 */

/** Routers' session headers that may be filled from the correlation id, as the reference's switches do. */
export const AFFINITY_HEADERS = ['x-session-id', 'x-smg-routing-key', 'x-dynamo-session-id'] as const;
export type AffinityHeader = (typeof AFFINITY_HEADERS)[number];

/** A UUID-shaped id for one conversation of one play: (seed, lane, recycle pass, conversation id). */
export function correlationId(seed: number, lane: number, pass: number, conversationId: string): string {
  const rng = new Rng(seed, 'correlation', lane, pass, conversationId);
  const hex = Array.from({ length: 4 }, () => rng.u32().toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const requestId = (correlation: string, turnIndex: number): string => `${correlation}:${turnIndex}`;

/** Header names in lower case, as DriverRequest.headers wants them. */
export function replayHeaders(
  ids: { correlationId: string; requestId: string; parentCorrelationId: string | null },
  affinity: readonly AffinityHeader[],
): Record<string, string> {
  const headers: Record<string, string> = {
    'x-correlation-id': ids.correlationId,
    'x-request-id': ids.requestId,
  };
  for (const name of affinity) headers[name] = ids.correlationId;
  // Dynamo ties a child's session to its parent's with a second header (client-metrics §2.9).
  if (affinity.includes('x-dynamo-session-id') && ids.parentCorrelationId !== null)
    headers['x-dynamo-parent-session-id'] = ids.parentCorrelationId;
  return headers;
}
