import { type AgenticTrace, AgenticTraceSchema } from '../../src/schema/agentic-trace.ts';
import type { ReplayCall, ReplayScheduler } from '../../src/workload/agentic/replay-scheduler.ts';
import { FINISHED } from '../../src/workload/agentic/replay-scheduler.ts';
import type { CallOutcome } from '../../src/workload/agentic/replay-tree.ts';

/**
 * The hand-built corpus of the replay's tests and a simulated-clock loop that plays a scheduler against
 * a server whose every answer takes a given time.
 *
 * Trace A (seconds; a = api_time):
 *   o0 root#0 t0   a1  [900]          the title preamble (its first block is nobody else's, out ≤ 64)
 *   o1 root#1 t2   a2  [1,2]          delay 2−0−1 = 1 s
 *   o2 fast   t5 (dur 3 s → ends 8):  #0 t5 a1, #1 t7 a1    spawned by root#1, joined by root#2 (9 ≥ 8)
 *   o3 slow   t5 (dur 10 s → ends 15): #0 t5 a4, #1 t10 a4  spawned by root#1, joined by root#3 (16 ≥ 15)
 *   o4 root#2 t9   a1  [1,2,3]        delay 9−2−2 = 5 s
 *   o5 root#3 t16  a1  [1,2,3,4]      delay 16−9−1 = 6 s
 *   o6 bg     t17, async (no duration): #0 t17.5 a500 → ends 517.5, past every root turn: background
 *   o7 root#4 t18  a1  [500,501]      a compaction (does not extend [1,2,3,4]); delay 18−16−1 = 1 s
 *   o8 root#5 t419 a1  [500,501,502]  the 401 s gap is warped to 300 s: t 318, delay 318−18−1 = 299 s
 * Children's first delays run from their spawn turn's end: fast, slow 5−2−2 = 1 s; bg 17.5−16−1 = 0.5 s.
 *
 * Trace B: a subagent before any root turn (dropped), then root#0 t1 a1, #1 t3 a1 (1 s), #2 t30 a1 (26 s).
 */

const n = (t: number, hash_ids: number[], api_time: number, out: number) => ({
  type: 'n',
  t,
  in: hash_ids.length * 64,
  out,
  hash_ids,
  api_time,
});

export const TRACE_A: AgenticTrace = AgenticTraceSchema.parse({
  id: 'A',
  block_size: 64,
  tool_tokens: 100,
  system_tokens: 50,
  requests: [
    n(0, [900], 1, 20),
    n(2, [1, 2], 2, 50),
    {
      type: 'subagent',
      t: 5,
      agent_id: 'fast',
      status: 'completed',
      duration_ms: 3000,
      requests: [n(5, [10], 1, 30), n(7, [10, 11], 1, 30)],
    },
    {
      type: 'subagent',
      t: 5,
      agent_id: 'slow',
      status: 'completed',
      duration_ms: 10000,
      requests: [n(5, [20], 4, 40), n(10, [20, 21], 4, 40)],
    },
    n(9, [1, 2, 3], 1, 60),
    n(16, [1, 2, 3, 4], 1, 70),
    {
      type: 'subagent',
      t: 17,
      agent_id: 'bg',
      status: 'async_launched',
      duration_ms: null,
      requests: [n(17.5, [30], 500, 10)],
    },
    n(18, [500, 501], 1, 80),
    n(419, [500, 501, 502], 1, 90),
  ],
});

export const TRACE_B: AgenticTrace = AgenticTraceSchema.parse({
  id: 'B',
  block_size: 64,
  tool_tokens: 0,
  system_tokens: 0,
  requests: [
    { type: 'subagent', t: 0, agent_id: 'early', duration_ms: 500, requests: [n(0, [7], 0.5, 5)] },
    n(1, [1], 1, 10),
    n(3, [1, 2], 1, 10),
    n(30, [1, 2, 3], 1, 10),
  ],
});

/** `A/root#2`, `A/slow#1`: a call's short name in the dispatch logs. */
export const callName = (c: ReplayCall): string =>
  `${c.traceId}/${c.branch.agentId ?? 'root'}#${c.turnIndex}`;

export class SimClock {
  ms = 0;
  now = (): number => this.ms;
}

export interface Sent {
  /** Seconds on the simulated clock. */
  at: number;
  name: string;
  call: ReplayCall;
}

/**
 * Plays the scheduler's current phase to its end: sends whatever is ready, then moves the clock to the
 * next completion or wake-up. `latencyS` is how long the server takes for a call; `outcome` what it answers.
 */
export function playPhase(
  s: ReplayScheduler,
  clock: SimClock,
  latencyS: (c: ReplayCall) => number,
  outcome: (c: ReplayCall) => CallOutcome = () => 'ok',
): Sent[] {
  const sent: Sent[] = [];
  let pending: { call: ReplayCall; doneAt: number }[] = [];
  for (let guard = 0; guard < 100_000; guard++) {
    const step = s.next();
    if (step === FINISHED) return sent;
    if (typeof step === 'object') {
      sent.push({ at: clock.ms / 1000, name: callName(step), call: step });
      pending.push({ call: step, doneAt: clock.ms + Math.round(latencyS(step) * 1000) });
      continue;
    }
    const cut = new Set(s.cancelDue().map((c) => c.id));
    if (cut.size > 0) {
      pending = pending.filter((p) => !cut.has(p.call.id));
      continue;
    }
    const wake = s.wakeAt();
    const done = pending.length === 0 ? null : Math.min(...pending.map((p) => p.doneAt));
    const t = [wake, done].filter((x): x is number => x !== null);
    if (t.length === 0) throw new Error('replay stuck: waiting with nothing to wait for');
    clock.ms = Math.min(...t);
    const due = pending
      .filter((p) => p.doneAt <= clock.ms)
      .sort((a, b) => a.doneAt - b.doneAt || a.call.id - b.call.id);
    pending = pending.filter((p) => p.doneAt > clock.ms);
    for (const p of due) s.complete(p.call.id, outcome(p.call));
  }
  throw new Error('replay did not finish');
}

/** The recorded api_time of a call of the corpus above. */
export function recordedApiTimeS(c: ReplayCall): number {
  const trace = c.traceId === 'A' ? TRACE_A : TRACE_B;
  const entry = trace.requests[c.outer] as { api_time?: number; requests?: { api_time?: number }[] };
  const call = c.inner < 0 ? entry : (entry.requests?.[c.inner] as { api_time?: number });
  return call.api_time ?? 0;
}
