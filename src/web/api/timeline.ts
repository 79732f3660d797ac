import { createReadStream } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { AgenticFieldsSchema } from '../../schema/agentic-fields.ts';
import {
  type SessionTimeline,
  TIMELINE_REQUEST_CAP,
  type TimelineConversation,
  type TimelineQuery,
} from '../../schema/session-timeline.ts';
import { HttpError, notFound } from '../http.ts';
import type { ApiContext } from './context.ts';
import { pointFile } from './runs.ts';

/**
 * An agentic point's session timeline, from its attempt's requests.jsonl: streamed line by line (a file can
 * hold gigabytes), keeping only the chosen lane's requests, at most TIMELINE_REQUEST_CAP of them.
 */

interface Kept {
  conversationId: string;
  correlationId: string;
  rootCorrelationId: string;
  branch: TimelineConversation['branch'];
  turnIndex: number;
  phase: 'warmup' | 'benchmark';
  sentMs: number;
  doneMs: number | null;
  ok: boolean;
  cancelled: boolean;
}

interface LineRecord {
  phase?: unknown;
  sentMs?: unknown;
  doneMs?: unknown;
  ok?: unknown;
  cancelled?: unknown;
  agentic?: unknown;
}

/**
 * The lane's requests as conversations, tree by tree (a lane recycles to new traces): each tree's root,
 * then its subagents and flat children by their first request; trees in the order they started.
 */
export function conversationsOf(kept: readonly Kept[]): TimelineConversation[] {
  const byId = new Map<string, TimelineConversation & { tree: string }>();
  for (const k of [...kept].sort((a, b) => a.sentMs - b.sentMs)) {
    let c = byId.get(k.correlationId);
    if (c === undefined) {
      c = {
        conversationId: k.conversationId,
        correlationId: k.correlationId,
        branch: k.branch,
        requests: [],
        tree: k.rootCorrelationId,
      };
      byId.set(k.correlationId, c);
    }
    c.requests.push({
      turnIndex: k.turnIndex,
      phase: k.phase,
      sentMs: k.sentMs,
      doneMs: k.doneMs,
      ok: k.ok,
      cancelled: k.cancelled,
    });
  }
  const trees = new Map<string, (TimelineConversation & { tree: string })[]>();
  for (const c of byId.values()) trees.set(c.tree, [...(trees.get(c.tree) ?? []), c]);
  return [...trees.values()].flatMap((cs) =>
    [...cs.filter((c) => c.branch.kind === 'root'), ...cs.filter((c) => c.branch.kind !== 'root')].map(
      ({ tree: _tree, ...c }) => c,
    ),
  );
}

/** Reads `path` for lane `lane` (default: the lowest); throws naming file and line on a damaged record. */
export async function readTimeline(
  path: string,
  lane: number | undefined,
  cap = TIMELINE_REQUEST_CAP,
): Promise<Omit<SessionTimeline, 'runId' | 'pointId' | 'attempt'> | null> {
  const lanes = new Set<number>();
  // Without a lane asked for, the lowest lane wins: kept per lane until the lowest is known at the end
  // would be unbounded, so the first pass learns the lanes only when none was given.
  let chosen = lane;
  if (chosen === undefined) {
    await eachAgentic(path, (a) => lanes.add(a.lane));
    if (lanes.size === 0) return null;
    chosen = Math.min(...lanes);
    lanes.clear();
  }
  const kept: Kept[] = [];
  let truncated = false;
  await eachAgentic(path, (a, r) => {
    lanes.add(a.lane);
    if (a.lane !== chosen) return;
    if (kept.length >= cap) {
      truncated = true;
      return;
    }
    kept.push({
      conversationId: a.conversationId,
      correlationId: a.correlationId,
      rootCorrelationId: a.rootCorrelationId,
      branch: a.branch,
      turnIndex: a.turnIndex,
      phase: r.phase === 'warmup' ? 'warmup' : 'benchmark',
      sentMs: r.sentMs as number,
      doneMs: typeof r.doneMs === 'number' ? r.doneMs : null,
      ok: r.ok === true,
      cancelled: r.cancelled === true,
    });
  });
  if (lanes.size === 0) return null;
  const starts = kept.map((k) => k.sentMs);
  const ends = kept.map((k) => k.doneMs ?? k.sentMs);
  return {
    lane: chosen,
    lanes: [...lanes].sort((a, b) => a - b),
    startMs: starts.length ? Math.min(...starts) : 0,
    endMs: ends.length ? Math.max(...ends) : 0,
    conversations: conversationsOf(kept),
    truncated,
    requestCap: cap,
  };
}

type Agentic = ReturnType<typeof AgenticFieldsSchema.parse>;

async function eachAgentic(path: string, on: (a: Agentic, r: LineRecord) => void): Promise<void> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    let r: LineRecord;
    try {
      r = JSON.parse(line) as LineRecord;
    } catch (err) {
      throw damaged(path, n, `is not JSON (${(err as Error).message})`);
    }
    if (r.agentic === undefined) continue;
    const a = AgenticFieldsSchema.safeParse(r.agentic);
    if (!a.success) {
      const issue = a.error.issues[0];
      throw damaged(path, n, `has a bad agentic.${issue?.path.join('.')}: ${issue?.message}`);
    }
    if (typeof r.sentMs !== 'number') throw damaged(path, n, 'has no numeric sentMs');
    on(a.data, r);
  }
}

const damaged = (path: string, line: number, what: string) =>
  new HttpError(500, 'internal', `${path}:${line} ${what}: the requests.jsonl is damaged`);

/** `GET /api/runs/:id/points/:pointId/timeline`. */
export async function sessionTimeline(
  ctx: ApiContext,
  runId: string,
  pointId: string,
  q: TimelineQuery,
): Promise<SessionTimeline> {
  const file = await pointFile(ctx, runId, pointId, 'requests.jsonl', q.attempt);
  if (file.type !== 'file') throw new HttpError(500, 'internal', 'requests.jsonl was not found as a file');
  const attempt = Number(/^attempt-(\d+)$/.exec(basename(dirname(file.path)))?.[1]);
  const t = await readTimeline(file.path, q.lane);
  if (t === null)
    throw notFound(
      `point '${pointId}' is not an agentic point: its requests carry no agentic fields`,
      'pointId',
    );
  if (q.lane !== undefined && !t.lanes.includes(q.lane))
    throw notFound(`point '${pointId}' has no lane ${q.lane} (lanes: ${t.lanes.join(', ')})`, 'lane');
  return { runId, pointId, attempt, ...t };
}
