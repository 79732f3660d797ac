import type { AgenticFields, TheoreticalPrefix } from '../../schema/agentic-fields.ts';
import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import {
  DONE,
  type DriverContext,
  type DriverSpecBase,
  type PhaseDriver,
  type PhaseName,
} from '../driver.ts';
import type { TextTokenizer } from '../types.ts';
import { type CacheBust, cacheBust, TraceTexts } from './compile-body.ts';
import type { CompiledCorpus, CompiledTrace, CompiledCall as CompiledTraceCall } from './compile-types.ts';
import { createReplayPhaseDriver, type ReplayPhaseDriver } from './replay-driver.ts';
import { type ReplayCall, type ReplayOptions, ReplayScheduler } from './replay-scheduler.ts';
import { callsInTimeOrder } from './walk.ts';

/**
 * One agentic point's replay, ready to run: the scheduler over the corpus, the compiled bodies of its
 * calls, and the two phase drivers (warmup, profiling) over the one scheduler. The scheduler runs on
 * simulated time when the server is a simulated engine faster than real time: its clock is the client's
 * monotonic clock × the time scale, so think times, idle caps and the duration are in the engine's time
 * while the requests go out on the wall clock. The replay keeps every lane on one client thread (a tree's
 * calls depend on each other), so its spec holds the live session and never crosses to a worker.
 */

export interface ReplaySessionOptions {
  traces: readonly AgenticTrace[];
  compiled: CompiledCorpus;
  /** The served `--model` names (the trace's models map onto them, addendum §1.6). */
  served: readonly string[];
  /** Counts each play's cache-bust marker once (never per request). */
  tokenizer: TextTokenizer;
  /** Names the run in the cache-bust markers: another run never hits this one's prefixes. */
  runId: string;
  replay: ReplayOptions;
  /** Simulated ms per wall ms (1 against a real server). */
  timeScale: number;
  /** The client's monotonic clock, ms. */
  now: () => number;
  ignoreEos: boolean;
  /** The live error gate (§2.8): profiling errors / finished above this cancel the run. */
  failedRequestThreshold: number;
  /** The gate judges once this many profiling requests finished (one early failure is not a ratio). */
  liveGateMinFinished: number;
}

/** A call released this long (wall ms) after it was due counts as not dispatched on schedule. */
export const CREDIT_DROP_LATENESS_MS = 100;

export interface AgenticReplaySpec extends DriverSpecBase {
  kind: 'agentic-replay';
  session: ReplaySession;
}

export interface ReplaySession {
  readonly scheduler: ReplayScheduler;
  driver(phase: PhaseName, ctx: DriverContext): PhaseDriver;
  /** The profiling phase on the client's monotonic clock: its start and the end of the duration; null before it. */
  profilingWindow(): { startMs: number; endMs: number } | null;
  /** Calls released later than CREDIT_DROP_LATENESS_MS after they were due. */
  readonly creditDrops: number;
  /** Why the live error gate cancelled the run; null when it did not. */
  readonly cancelled: string | null;
}

interface TraceEntry {
  compiled: CompiledTrace;
  texts: TraceTexts;
  calls: Map<string, { call: CompiledTraceCall; prefix: TheoreticalPrefix }>;
}

const callKey = (outer: number, inner: number) => `${outer}:${inner}`;

/** Per call of a trace, the static theoretical prefix hit (addendum §1.4): one seen-set in `(t, outer, inner)` order. */
function theoreticalPrefixes(trace: AgenticTrace): Map<string, TheoreticalPrefix> {
  const seen = new Set<number>();
  const out = new Map<string, TheoreticalPrefix>();
  for (const placed of callsInTimeOrder(trace)) {
    const ids = placed.call.hash_ids;
    let hit = 0;
    while (hit < ids.length && seen.has(ids[hit] as number)) hit++;
    for (const id of ids) seen.add(id);
    out.set(callKey(placed.outer, placed.inner), { hitBlocks: hit, totalBlocks: ids.length });
  }
  return out;
}

export function createReplaySession(o: ReplaySessionOptions): ReplaySession {
  const origin = o.now();
  const scale = o.timeScale;
  const clock = { now: () => (o.now() - origin) * scale };
  const toWall = (t: number) => origin + t / scale;
  const scheduler = new ReplayScheduler(o.traces, o.replay, clock);

  const byId = new Map<string, TraceEntry>();
  const compiledById = new Map(o.compiled.traces.map((t) => [t.id, t]));
  for (const trace of o.traces) {
    const compiled = compiledById.get(trace.id);
    if (compiled === undefined) throw new Error(`agentic replay: trace ${trace.id} was not compiled`);
    const prefixes = theoreticalPrefixes(trace);
    const calls = new Map<string, { call: CompiledTraceCall; prefix: TheoreticalPrefix }>();
    for (const call of compiled.calls) {
      const key = callKey(call.outer, call.inner);
      calls.set(key, { call, prefix: prefixes.get(key) ?? { hitBlocks: 0, totalBlocks: 0 } });
    }
    byId.set(trace.id, { compiled, texts: new TraceTexts(o.compiled, compiled), calls });
  }
  // One marker per play (a lane's pass over a trace): its warmup and profiling turns share it.
  const markers = new Map<string, CacheBust>();
  const markerOf = (c: ReplayCall) => {
    const key = `${c.lane}:${c.recyclePass}`;
    let m = markers.get(key);
    if (m === undefined) {
      m = cacheBust(o.tokenizer, o.runId, c.lane * 1_000_003 + c.recyclePass, c.traceId);
      markers.set(key, m);
    }
    return m;
  };

  let profilingStart: number | null = null;
  let creditDrops = 0;
  let cancelled: string | null = null;
  const drivers: ReplayPhaseDriver[] = [];
  const judge = () => {
    const c = scheduler.counts.benchmark;
    const errors = c.errors + c.overflows;
    const finished = c.ok + errors;
    if (cancelled !== null || finished < o.liveGateMinFinished) return;
    if (errors / finished <= o.failedRequestThreshold) return;
    cancelled =
      `run_cancelled: ${errors} of ${finished} profiling requests failed, above the live error gate ` +
      `${o.failedRequestThreshold} (--failed-request-threshold)`;
    for (const d of drivers) d.abortAll();
  };

  const compile = (c: ReplayCall) => {
    const entry = byId.get(c.traceId);
    const found = entry?.calls.get(callKey(c.outer, c.inner));
    if (entry === undefined || found === undefined)
      throw new Error(`agentic replay: no compiled call ${c.traceId} ${c.outer}/${c.inner}`);
    const marker = markerOf(c);
    const call =
      c.maxTokens === found.call.maxTokens ? found.call : { ...found.call, maxTokens: c.maxTokens };
    const body = entry.texts.body(call, { served: o.served, marker, ignoreEos: o.ignoreEos });
    if (toWall(c.sentAtMs) - toWall(c.dueAtMs) > CREDIT_DROP_LATENESS_MS) creditDrops++;
    const agentic: AgenticFields = {
      traceId: c.traceId,
      conversationId: c.conversationId,
      correlationId: c.correlationId,
      rootCorrelationId: c.rootCorrelationId,
      requestId: c.requestId,
      turnIndex: c.turnIndex,
      lane: c.lane,
      recyclePass: c.recyclePass,
      branch: {
        kind: c.branch.kind,
        parentCorrelationId: c.parentCorrelationId,
        agentId: c.branch.agentId,
        background: c.branch.background,
      },
      expectedOutputTokens: found.call.maxTokens,
      theoreticalPrefix: found.prefix,
      resetContext: found.call.resetContext,
      cancelledAtMs: null,
    };
    return {
      body,
      inputTokens: entry.texts.inputTokens(found.call, marker),
      dueAtMs: toWall(c.dueAtMs),
      agentic,
    };
  };

  return {
    scheduler,
    get creditDrops() {
      return creditDrops;
    },
    get cancelled() {
      return cancelled;
    },
    driver(phase, ctx): ReplayPhaseDriver {
      const driver = createReplayPhaseDriver(scheduler, phase, ctx, compile);
      drivers.push(driver);
      return {
        ...driver,
        next() {
          if (cancelled !== null) return DONE;
          const step = driver.next();
          const end = scheduler.endAt;
          if (profilingStart === null && end !== null)
            profilingStart = toWall(end - o.replay.durationS * 1000);
          return step;
        },
        complete(request, record, text) {
          driver.complete(request, record, text);
          if (phase === 'benchmark') judge();
        },
        wakeAtMs() {
          const t = driver.wakeAtMs();
          return t === null ? null : toWall(t);
        },
      };
    },
    profilingWindow() {
      if (profilingStart === null) return null;
      return { startMs: profilingStart, endMs: profilingStart + (o.replay.durationS * 1000) / scale };
    },
  };
}
