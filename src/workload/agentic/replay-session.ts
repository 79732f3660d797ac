import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AgenticFields, TheoreticalPrefix } from '../../schema/agentic-fields.ts';
import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import {
  DONE,
  type DriverContext,
  type DriverSpecBase,
  type PhaseDriver,
  type PhaseName,
  WAIT,
} from '../driver.ts';
import type { TextTokenizer } from '../types.ts';
import { wordTable } from './compile-blocks.ts';
import { type CacheBust, cacheBust, TraceTexts } from './compile-body.ts';
import type { CompiledCorpus, CompiledTrace, CompiledCall as CompiledTraceCall } from './compile-types.ts';
import { DueQueue } from './due-queue.ts';
import { createReplayPhaseDriver, type ReplayPhaseDriver } from './replay-driver.ts';
import { type PlannedCall, planTrace, type TreePlan } from './replay-plan.ts';
import {
  type ReplayCall,
  type ReplayOptions,
  ReplayScheduler,
  type TraceSource,
} from './replay-scheduler.ts';
import { callsInTimeOrder } from './walk.ts';

/**
 * One agentic point's replay, ready to run: the scheduler over the corpus, the compiled bodies of its
 * calls, and the two phase drivers (warmup, profiling) over the one scheduler. The corpus is read a
 * trace at a time: a trace's plan and per-call prefixes are made on its first play and kept (small), its
 * rendered texts (MBs at a long context) live while a lane plays it; meanwhile every trace is made ready
 * in the order the lanes take them, one a turn of the event loop, and the warmup lasts until all are, so
 * the profiling phase never stops for a compile (nor for a bad line: the run fails on it first). The scheduler runs on
 * simulated time when the server is a simulated engine faster than real time: its clock is the client's
 * monotonic clock × the time scale, so think times, idle caps and the duration are in the engine's time
 * while the requests go out on the wall clock. The replay keeps every lane on one client thread (a tree's
 * calls depend on each other), so its spec holds the live session and never crosses to a worker.
 */

/** The corpus as the replay reads it: a trace at a time (compile-open.ts's OpenedCorpus is one). */
export interface ReplayCorpus {
  /** Traces (an upper bound: an index past the last kept one answers undefined). */
  readonly lines: number;
  readonly seed: number;
  readonly words: readonly string[];
  getCompiled(i: number): CompiledTrace | undefined;
  whenCompiled(i: number): Promise<CompiledTrace | undefined>;
  getTrace(i: number): AgenticTrace | undefined;
}

/** A corpus already in memory (tests): its traces and their compiled forms, matched by id. */
export function corpusInMemory(traces: readonly AgenticTrace[], compiled: CompiledCorpus): ReplayCorpus {
  const byId = new Map(compiled.traces.map((t) => [t.id, t]));
  const get = (i: number) => {
    const trace = traces[i];
    if (trace === undefined) return undefined;
    const c = byId.get(trace.id);
    if (c === undefined) throw new Error(`agentic replay: trace ${trace.id} was not compiled`);
    return c;
  };
  return {
    lines: traces.length,
    seed: compiled.seed,
    words: compiled.words,
    getCompiled: get,
    whenCompiled: async (i) => get(i),
    getTrace: (i) => traces[i],
  };
}

export interface ReplaySessionOptions {
  corpus: ReplayCorpus;
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

/** The longest a turn of the event loop renders contents ahead (ms): dispatches wait at most about this. */
const PRERENDER_SLICE_MS = 1;

/** How often (wall ms) a warmup waiting on traces being read asks the scheduler again. */
const PREPARE_POLL_MS = 20;

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
  /**
   * Settles when every trace is read, validated, compiled and planned (the warmup phase lasts until
   * then, so profiling never waits on a compile); rejects with a bad line's error, which also stops the run.
   */
  readonly prepared: Promise<void>;
}

/**
 * What a trace keeps once read (small: its plan, and per call its index in the compiled trace and its
 * prefix hit). Flat arrays, not an object per call: the entries live for the whole run, and every full
 * GC marks them.
 */
interface TraceEntry {
  plan: TreePlan;
  compiled: CompiledTrace;
  /** callKey → index in compiled.calls. */
  index: Map<number, number>;
  hitBlocks: Int32Array;
  totalBlocks: Int32Array;
}

function lookup(
  entry: TraceEntry,
  key: number,
): { call: CompiledTraceCall; prefix: TheoreticalPrefix } | undefined {
  const i = entry.index.get(key);
  if (i === undefined) return undefined;
  return {
    call: entry.compiled.calls[i] as CompiledTraceCall,
    prefix: { hitBlocks: entry.hitBlocks[i] as number, totalBlocks: entry.totalBlocks[i] as number },
  };
}

/** What a trace holds while a lane plays it: its rendered message texts (MBs at a long context). */
interface Play {
  texts: TraceTexts;
  holds: number;
}

/** A call's place in its trace as one number (exact: far below 2^53). */
const callKey = (outer: number, inner: number) => outer * 2 ** 21 + inner + 1;

/** Per call of a trace, the static theoretical prefix hit (addendum §1.4): one seen-set in `(t, outer, inner)` order. */
function theoreticalPrefixes(trace: AgenticTrace): Map<number, TheoreticalPrefix> {
  const seen = new Set<number>();
  const out = new Map<number, TheoreticalPrefix>();
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
  const table = wordTable(o.corpus.words);
  const corpusTexts = { seed: o.corpus.seed, words: o.corpus.words };
  // null: past the corpus's end. Entries stay (they are small); a trace's texts go with its last play.
  const entries = new Map<number, TraceEntry | null>();
  const plays = new Map<number, Play>();
  const entryOf = (i: number): TraceEntry | null => {
    let entry = entries.get(i);
    if (entry !== undefined) return entry;
    const compiled = o.corpus.getCompiled(i);
    const trace = compiled === undefined ? undefined : o.corpus.getTrace(i);
    entry = null;
    if (compiled !== undefined && trace !== undefined) {
      const prefixes = theoreticalPrefixes(trace);
      const n = compiled.calls.length;
      const index = new Map<number, number>();
      const hitBlocks = new Int32Array(n);
      const totalBlocks = new Int32Array(n);
      compiled.calls.forEach((call, i) => {
        const key = callKey(call.outer, call.inner);
        const p = prefixes.get(key);
        index.set(key, i);
        hitBlocks[i] = p?.hitBlocks ?? 0;
        totalBlocks[i] = p?.totalBlocks ?? 0;
      });
      const plan = planTrace(trace, { traceIdleGapCapS: o.replay.traceIdleGapCapS });
      entry = { plan, compiled, index, hitBlocks, totalBlocks };
    }
    entries.set(i, entry);
    return entry;
  };
  const source: TraceSource = {
    count: o.corpus.lines,
    ready: (i) => entries.has(i),
    plan(i) {
      const entry = entryOf(i);
      if (entry === null) return null;
      const play = plays.get(i);
      if (play !== undefined) play.holds++;
      else plays.set(i, { texts: new TraceTexts(corpusTexts, entry.compiled, table), holds: 1 });
      return entry.plan;
    },
    release(i) {
      const play = plays.get(i);
      if (play !== undefined && --play.holds <= 0) plays.delete(i);
    },
  };
  // Each call's contents are rendered ahead of its due time, earliest first, in slices of the event
  // loop's idle time: the dispatch then only assembles segments (a trace's first turns are MBs to render).
  const ahead = new DueQueue<{ at: number; trace: number; key: number }>((a, b) => a.at < b.at);
  let pumping = false;
  const pump = () => {
    const now = o.now();
    // A call falling due stops the slice: its dispatch must not wait for rendering ahead of later ones.
    const next = scheduler.nextDueAt();
    const nextWall = next === null ? Number.POSITIVE_INFINITY : toWall(next);
    const until = nextWall > now ? Math.min(now + PRERENDER_SLICE_MS, nextWall) : now + PRERENDER_SLICE_MS;
    const stop = () => o.now() >= until;
    // Past the duration nothing more is sent: nothing more to render.
    const end = scheduler.endAt;
    if (end !== null && clock.now() >= end) ahead.clear();
    while (ahead.size > 0 && !stop()) {
      const job = ahead.peek() as { at: number; trace: number; key: number };
      if (end !== null && job.at >= end) {
        ahead.pop();
        continue;
      }
      const play = plays.get(job.trace);
      const entry = entries.get(job.trace);
      const call = entry == null ? undefined : lookup(entry, job.key)?.call;
      if (play === undefined || call === undefined || play.texts.prerender(call, stop)) ahead.pop();
    }
    pumping = ahead.size > 0;
    if (pumping) setImmediate(pump);
  };
  const onTimer = (trace: number, call: PlannedCall, at: number) => {
    ahead.push({ at, trace, key: callKey(call.outer, call.inner) });
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  };
  const scheduler = new ReplayScheduler(source, { ...o.replay, onTimer }, clock);
  // The first lane's trace now: the first request need not wait for a poll.
  const first = scheduler.traceOrder[0];
  if (first !== undefined) entryOf(first);
  let failure: unknown = null;
  // In the order the lanes take them, one trace a turn of the event loop: the initial lanes' first.
  const prepared = (async () => {
    for (const i of scheduler.traceOrder) {
      if (entries.has(i)) continue;
      await o.corpus.whenCompiled(i);
      entryOf(i);
      await yieldToLoop();
    }
  })();
  prepared.catch((err: unknown) => {
    failure = err;
    for (const d of drivers) d.abortAll();
  });
  let preparedDone = false;
  prepared.then(
    () => {
      preparedDone = true;
    },
    () => {},
  );

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
    const entry = entries.get(c.trace);
    const play = plays.get(c.trace);
    const found = entry == null ? undefined : lookup(entry, callKey(c.outer, c.inner));
    if (entry == null || play === undefined || found === undefined)
      throw new Error(`agentic replay: no compiled call ${c.traceId} ${c.outer}/${c.inner}`);
    const marker = markerOf(c);
    const body = play.texts.body(found.call, {
      served: o.served,
      marker,
      ignoreEos: o.ignoreEos,
      maxTokens: c.maxTokens,
    });
    // A profiling-phase health counter (the warmup's credits are its own, and it may wait on the corpus).
    if (c.phase === 'benchmark' && toWall(c.sentAtMs) - toWall(c.dueAtMs) > CREDIT_DROP_LATENESS_MS)
      creditDrops++;
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
      inputTokens: play.texts.inputTokens(found.call, marker),
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
    prepared,
    driver(phase, ctx): ReplayPhaseDriver {
      const driver = createReplayPhaseDriver(scheduler, phase, ctx, compile);
      drivers.push(driver);
      return {
        ...driver,
        next() {
          if (failure !== null) throw failure;
          if (cancelled !== null) return DONE;
          const step = driver.next();
          // The warmup holds the profiling back until every trace is ready (or the run fails on one).
          if (phase === 'warmup' && step === DONE && !preparedDone) return WAIT;
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
          const wall = t === null ? null : toWall(t);
          // Lanes waiting on a trace being read: ask again soon (no completion may come to wake the client).
          if (phase === 'warmup' && (!preparedDone || scheduler.waitingLanes > 0)) {
            const poll = o.now() + PREPARE_POLL_MS;
            return wall === null ? poll : Math.min(wall, poll);
          }
          return wall;
        },
      };
    },
    profilingWindow() {
      if (profilingStart === null) return null;
      return { startMs: profilingStart, endMs: profilingStart + (o.replay.durationS * 1000) / scale };
    },
  };
}
