import {
  type AgenticTrace,
  isSubagent,
  type TraceApiCall,
  type TraceSubagent,
} from '../../schema/agentic-trace.ts';

/**
 * The static shape of one trace's replay (client-metrics §2.4–§2.5 as corrected by addendum §1.1–§1.3):
 * the root conversation's turns, the subagents as child conversations with their spawn turn and join
 * turn (or none: background), and every end-to-start delay, on the per-trace compressed timeline (the
 * 300 s idle-gap time warp). Built once per trace; the scheduler only reads it. A call is named by its
 * trace position (`outer`, `inner`) so the compiler can supply its body.
 */

export interface PlannedCall {
  /** Index of its entry in the trace's `requests[]`. */
  outer: number;
  /** Index inside its subagent's `requests[]`; -1 for a call of the root. */
  inner: number;
  /** Position in its conversation (the record's `turnIndex`). */
  turnIndex: number;
  /** Recorded output tokens (`max_tokens` outside the one-token warmup). */
  out: number;
  /** Delay from the previous call of its conversation finishing (for a child's first call: from its spawn turn finishing) to this one's dispatch, ms. */
  delayMs: number;
}

export interface PlannedChild {
  /** `<trace>::sa:<agent_id>`: the reference's conversation id of a subagent. */
  conversationId: string;
  agentId: string;
  /** Root turn whose completion spawns it: the last root turn before its entry (addendum §1.1). */
  spawnTurn: number;
  /** Root turn that waits for its last call; null: background, gating nothing. */
  joinTurn: number | null;
  calls: PlannedCall[];
}

export interface TreePlan {
  traceId: string;
  root: PlannedCall[];
  /** Root turn 0 is a title-generation preamble (addendum §1.6): replayed on the root chain like any turn. */
  preamble: boolean;
  children: PlannedChild[];
  /** Per root turn, the children it spawns when it finishes. */
  spawnsAt: number[][];
  /** Per root turn, the children whose last calls must have finished before it is sent. */
  joinsAt: number[][];
  /** Subagents with no root turn before them: dropped, as the reference does. */
  droppedSubagents: number;
}

export interface PlanOptions {
  /** `--trace-idle-gap-cap-seconds`: request-start gaps above it are compressed to it (300). */
  traceIdleGapCapS?: number;
}

export const TRACE_IDLE_GAP_CAP_S = 300;
/** The reference's tolerance when comparing a parent turn's start with a subagent's end. */
const JOIN_EPSILON_S = 1e-6;

/** A child `t` earlier than its entry's is relative (legacy) and gets the entry's `t` added (addendum §1.2). */
const absoluteT = (call: TraceApiCall, entry: TraceSubagent): number =>
  call.t < entry.t ? call.t + entry.t : call.t;

const apiTimeS = (call: TraceApiCall): number =>
  typeof call.api_time === 'number' && Number.isFinite(call.api_time) ? call.api_time : 0;

/** A subagent's recorded end: `t + duration_ms`, else its calls' latest end, else its spawn (addendum §1.1). */
export function subagentEnd(entry: TraceSubagent): number {
  if (typeof entry.duration_ms === 'number' && Number.isFinite(entry.duration_ms))
    return entry.t + Math.max(0, entry.duration_ms) / 1000;
  if (entry.requests.length === 0) return entry.t;
  return Math.max(...entry.requests.map((c) => absoluteT(c, entry) + apiTimeS(c)));
}

/**
 * The idle-gap time warp: a map from recorded seconds to the compressed timeline on which no gap between
 * consecutive request starts exceeds `cap`; points inside a long gap keep at most `cap` of it.
 */
export function timeWarp(starts: readonly number[], cap: number): (t: number) => number {
  const s = [...new Set(starts)].sort((a, b) => a - b);
  const warped: number[] = [];
  for (let i = 0; i < s.length; i++)
    warped.push(
      i === 0
        ? (s[0] as number)
        : (warped[i - 1] as number) + Math.min(cap, (s[i] as number) - (s[i - 1] as number)),
    );
  return (t) => {
    if (s.length === 0 || t <= (s[0] as number)) return t;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((s[mid] as number) <= t) lo = mid;
      else hi = mid - 1;
    }
    return (warped[lo] as number) + Math.min(cap, t - (s[lo] as number));
  };
}

/** `max(0, (t_k − t_{k−1}) − api_time_{k−1})` on the warped timeline, in whole ms (addendum §1.2). */
const endToStartMs = (t: number, prevT: number, prevApiTime: number): number =>
  Math.max(0, Math.round((t - prevT - prevApiTime) * 1000));

/**
 * A leading call that shares no first block with any other call and is short or block-disjoint:
 * Claude Code's title generation (addendum §1.6).
 */
function isPreamble(first: TraceApiCall, others: readonly TraceApiCall[]): boolean {
  const head = first.hash_ids[0];
  if (others.some((c) => head !== undefined && c.hash_ids[0] === head)) return false;
  if (first.out <= 64) return true;
  const mine = new Set(first.hash_ids);
  return others.every((c) => c.hash_ids.every((h) => !mine.has(h)));
}

export function planTrace(trace: AgenticTrace, options: PlanOptions = {}): TreePlan {
  const cap = options.traceIdleGapCapS ?? TRACE_IDLE_GAP_CAP_S;
  const rootCalls: { call: TraceApiCall; outer: number }[] = [];
  const subs: { entry: TraceSubagent; outer: number }[] = [];
  const starts: number[] = [];
  trace.requests.forEach((entry, outer) => {
    if (isSubagent(entry)) {
      subs.push({ entry, outer });
      for (const c of entry.requests) starts.push(absoluteT(c, entry));
    } else {
      rootCalls.push({ call: entry, outer });
      starts.push(entry.t);
    }
  });
  const warp = timeWarp(starts, cap);

  const root: PlannedCall[] = rootCalls.map(({ call, outer }, k) => {
    const prev = rootCalls[k - 1];
    return {
      outer,
      inner: -1,
      turnIndex: k,
      out: call.out,
      delayMs: prev === undefined ? 0 : endToStartMs(warp(call.t), warp(prev.call.t), apiTimeS(prev.call)),
    };
  });

  const children: PlannedChild[] = [];
  const spawnsAt: number[][] = root.map(() => []);
  const joinsAt: number[][] = root.map(() => []);
  let droppedSubagents = 0;
  for (const { entry, outer } of subs) {
    let spawnTurn = -1;
    for (let k = 0; k < rootCalls.length && (rootCalls[k] as { outer: number }).outer < outer; k++)
      spawnTurn = k;
    if (spawnTurn < 0 || entry.requests.length === 0) {
      droppedSubagents++;
      continue;
    }
    const end = subagentEnd(entry);
    let joinTurn: number | null = null;
    for (let k = spawnTurn + 1; k < rootCalls.length; k++) {
      if ((rootCalls[k] as { call: TraceApiCall }).call.t + JOIN_EPSILON_S >= end) {
        joinTurn = k;
        break;
      }
    }
    const anchor = (rootCalls[spawnTurn] as { call: TraceApiCall }).call;
    const calls: PlannedCall[] = entry.requests.map((call, inner) => {
      const prev = entry.requests[inner - 1];
      const delayMs =
        prev === undefined
          ? endToStartMs(warp(absoluteT(call, entry)), warp(anchor.t), apiTimeS(anchor))
          : endToStartMs(warp(absoluteT(call, entry)), warp(absoluteT(prev, entry)), apiTimeS(prev));
      return { outer, inner, turnIndex: inner, out: call.out, delayMs };
    });
    const index = children.length;
    children.push({
      conversationId: `${trace.id}::sa:${entry.agent_id}`,
      agentId: entry.agent_id,
      spawnTurn,
      joinTurn,
      calls,
    });
    (spawnsAt[spawnTurn] as number[]).push(index);
    if (joinTurn !== null) (joinsAt[joinTurn] as number[]).push(index);
  }

  const first = rootCalls[0]?.call;
  const others = [...rootCalls.slice(1).map((r) => r.call), ...subs.flatMap((s) => s.entry.requests)];
  return {
    traceId: trace.id,
    root,
    preamble: first !== undefined && others.length > 0 && isPreamble(first, others),
    children,
    spawnsAt,
    joinsAt,
    droppedSubagents,
  };
}
