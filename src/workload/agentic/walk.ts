import { type AgenticTrace, isSubagent, type TraceApiCall } from '../../schema/agentic-trace.ts';

/** One API call of a trace, where it sits, and when it was sent in root-trace seconds. */
export interface PlacedCall {
  call: TraceApiCall;
  /** Index of its entry in the trace's `requests[]`. */
  outer: number;
  /** Index inside its subagent's `requests[]`; -1 for a call of the main agent. */
  inner: number;
  /** Its start, absolute: a subagent call's `t` earlier than its entry's is relative (legacy) and gets the entry's `t` added (addendum §1.2). */
  t: number;
}

/** Every `n`/`s` call of a trace, the main agent's and those inside subagents, in file order. */
export function* apiCalls(trace: AgenticTrace): Generator<PlacedCall> {
  for (let outer = 0; outer < trace.requests.length; outer++) {
    const entry = trace.requests[outer];
    if (entry === undefined) continue;
    if (!isSubagent(entry)) {
      yield { call: entry, outer, inner: -1, t: entry.t };
      continue;
    }
    for (let inner = 0; inner < entry.requests.length; inner++) {
      const call = entry.requests[inner];
      if (call === undefined) continue;
      yield { call, outer, inner, t: call.t < entry.t ? call.t + entry.t : call.t };
    }
  }
}

/** The calls in the order the replay's theoretical cache visits them: `(t, outer index, inner index)`. */
export function callsInTimeOrder(trace: AgenticTrace): PlacedCall[] {
  return [...apiCalls(trace)].sort((a, b) => a.t - b.t || a.outer - b.outer || a.inner - b.inner);
}
