import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import { Rng } from '../random.ts';
import { type AffinityHeader, correlationId, replayHeaders, requestId } from './replay-ids.ts';
import { type PlannedCall, TRACE_IDLE_GAP_CAP_S, type TreePlan } from './replay-plan.ts';
import { arrayTraceSource, type TraceSource } from './replay-source.ts';

export type { TraceSource } from './replay-source.ts';

import { DueQueue } from './due-queue.ts';
import { type CallOutcome, type Conversation, TreePlay } from './replay-tree.ts';
import {
  type Clock,
  FINISHED,
  type PhaseCounts,
  type ReplayCall,
  type ReplayCounts,
  type ReplayOptions,
  type ReplayPhase,
  type ReplayStep,
  WAITING,
} from './replay-types.ts';

export * from './replay-types.ts';

interface Lane {
  index: number;
  /** Its place in the scheduler's list: ties between lanes go to the earlier one. */
  pos: number;
  tree: TreePlay;
  /** The source's index of the tree's trace. */
  trace: number;
  /** Warmup requests this lane may still send. */
  warmupLeft: number;
}

interface Flight {
  call: ReplayCall;
  lane: Lane;
  tree: TreePlay;
  conv: Conversation;
}

/** A timer as queued: the conversation's due time then; stale once the conversation's version moved on. */
interface Due {
  at: number;
  pos: number;
  /** 0 for the root, then the subagents in plan order (the root goes before its subagents on a tie). */
  order: number;
  version: number;
  tree: TreePlay;
  conv: Conversation;
}

const dueBefore = (a: Due, b: Due): boolean =>
  a.at !== b.at ? a.at < b.at : a.pos !== b.pos ? a.pos < b.pos : a.order < b.order;

const emptyCounts = (): PhaseCounts => ({ sent: 0, ok: 0, errors: 0, overflows: 0, cancelled: 0 });

const noRootTurn = () => new Error('agentic replay: no trace has a root turn to replay');

/**
 * The agentic replay's scheduler (client-metrics §2.4–§2.8, addendum §1): `lanes` trajectory trees
 * played at once, each lane recycling to its next trace when its tree drains; a warmup from a start
 * point t* in each initial lane's trace; the profiling phase for `durationS`, then a grace for requests
 * in flight, past which they are cancelled and counted apart. It does no I/O and reads time only from
 * the clock it is given, so a test drives it on a simulated clock: ask `next()` until it waits, report
 * each finished call with `complete()`, sleep until `wakeAt()` or the next completion, and call
 * `cancelDue()` when the clock passes a grace.
 */
export class ReplayScheduler {
  readonly counts: ReplayCounts;
  /** Set when a root lane's warmup request failed: the run must stop (client-metrics §2.7). */
  aborted: string | null = null;
  private readonly source: TraceSource;
  /**
   * Trace indices in the seed's order: initial lane i plays the i-th playable one (wrap-filling when
   * lanes outnumber traces); each recycle, whichever lane drains, takes the next one in the sequence.
   */
  private readonly order: number[];
  /** The playable traces found so far, in order; `probed` positions of `order` have been looked at. */
  private readonly playable: number[] = [];
  private probed = 0;
  private draws = 0;
  /** Lanes playing, in the order given; `waiting` lanes have their first trace not ready yet. */
  private readonly lanes: Lane[] = [];
  private readonly waiting: number[] = [];
  private readonly flights = new Map<number, Flight>();
  private readonly due = new DueQueue<Due>(dueBefore);
  private phase: ReplayPhase | null = null;
  private phaseStart = 0;
  private nextId = 0;
  private readonly o: Required<Omit<ReplayOptions, 'laneIds' | 'affinityHeaders' | 'onTimer'>> & {
    affinityHeaders: readonly AffinityHeader[];
    onTimer?: ReplayOptions['onTimer'];
  };

  constructor(
    traces: readonly AgenticTrace[] | TraceSource,
    options: ReplayOptions,
    private readonly clock: Clock,
  ) {
    this.o = {
      benchmarkGraceS: 30,
      warmupRequestsPerLane: 10,
      warmupGraceS: 1800,
      startRatio: [0.25, 0.75],
      systemIdleGapCapS: 10,
      traceIdleGapCapS: TRACE_IDLE_GAP_CAP_S,
      affinityHeaders: [],
      ...options,
    };
    this.source = Array.isArray(traces)
      ? arrayTraceSource(traces as readonly AgenticTrace[], { traceIdleGapCapS: this.o.traceIdleGapCapS })
      : (traces as TraceSource);
    if (this.source.count === 0) throw noRootTurn();
    this.counts = {
      warmup: emptyCounts(),
      benchmark: emptyCounts(),
      treesStarted: 0,
      treesDrained: 0,
      sessionsOverflowed: 0,
      subagentsDropped: 0,
    };
    const rng = new Rng(options.seed, 'trace-order');
    this.order = Array.from({ length: this.source.count }, (_, i) => i);
    for (let i = this.order.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [this.order[i], this.order[j]] = [this.order[j] as number, this.order[i] as number];
    }
    this.waiting.push(...(options.laneIds ?? Array.from({ length: options.lanes }, (_, i) => i)));
    this.fill(true);
  }

  /**
   * The trace of slot k of the sequence (k-th playable trace in order, wrapping): its index, or null
   * while `wait` and a trace to look at is not ready. Throws when no trace of the source is playable.
   */
  private slot(k: number, wait: boolean): number | null {
    while (this.playable.length <= k && this.probed < this.order.length) {
      const i = this.order[this.probed] as number;
      if (wait && this.source.ready !== undefined && !this.source.ready(i)) return null;
      const plan = this.source.plan(i);
      this.probed++;
      if (plan === null) continue;
      if (plan.root.length > 0) this.playable.push(i);
      this.source.release?.(i);
    }
    if (this.playable.length === 0) throw noRootTurn();
    return this.playable[k % this.playable.length] as number;
  }

  /** Every trace index in the order the lanes take them (the initial lanes' first). */
  get traceOrder(): readonly number[] {
    return this.order;
  }

  /** Lanes whose first trace is not ready yet: they join the warmup when it is (profiling needs all). */
  get waitingLanes(): number {
    return this.waiting.length;
  }

  /** Gives waiting lanes their first trees, in lane order; `wait` false: plans what it must now. */
  private fill(wait: boolean): void {
    const now = this.phase === null ? 0 : this.clock.now();
    while (this.waiting.length > 0) {
      const index = this.waiting[0] as number;
      const trace = this.slot(index, wait);
      if (trace === null) return;
      this.waiting.shift();
      const pos = this.lanes.length;
      const lane: Lane = { index, pos, trace, tree: this.newTree(index, pos, 0, trace), warmupLeft: 0 };
      this.lanes.push(lane);
      if (this.phase === 'warmup') this.warmLane(lane, now);
    }
  }

  private newTree(lane: number, pos: number, pass: number, trace: number): TreePlay {
    const plan = this.source.plan(trace) as TreePlan;
    this.counts.treesStarted++;
    this.counts.subagentsDropped += plan.droppedSubagents;
    const tree: TreePlay = new TreePlay(
      plan,
      lane,
      pass,
      (conv) => correlationId(this.o.seed, lane, pass, conv),
      (conv) => {
        const at = conv.dueAt as number;
        this.due.push({ at, pos, order: conv.child + 1, version: conv.version, tree, conv });
        this.o.onTimer?.(trace, conv.calls[conv.next] as PlannedCall, at);
      },
    );
    return tree;
  }

  /** Root turn t* for a lane: uniform in `startRatio` of its turns, leaving the turn before it and one after. */
  startTurn(lane: number): number {
    const l = this.lanes.find((x) => x.index === lane);
    const n = (l as Lane).tree.plan.root.length;
    if (n < 2) return 0;
    const [lo, hi] = this.o.startRatio;
    const ratio = lo + (hi - lo) * new Rng(this.o.seed, 'start-point', lane).float();
    return Math.min(n - 1, Math.max(1, Math.floor(ratio * n)));
  }

  /** Each initial lane sends the turn before its t*, then advances by the one-token requests. */
  startWarmup(): void {
    const now = this.clock.now();
    this.phase = 'warmup';
    this.phaseStart = now;
    for (const lane of this.lanes) this.warmLane(lane, now);
    this.fill(true);
  }

  private warmLane(lane: Lane, now: number): void {
    const start = this.startTurn(lane.index);
    if (start === 0) {
      lane.tree.startAt(0, now);
      lane.warmupLeft = 0;
      return;
    }
    lane.tree.startAt(start - 1, now);
    lane.warmupLeft = 1 + this.o.warmupRequestsPerLane;
  }

  /**
   * Profiling from the live state, with every lane's trace at its t* on the boundary (§2.7): each pending
   * call is due its recorded delay after the boundary, as if the warmup's last turn had just finished
   * (the warmup's one-token requests skip think time; the first profiling turn keeps its own); drained
   * lanes take their next trace; then the global idle cap, as after any turn.
   */
  startBenchmark(): void {
    const now = this.clock.now();
    const fresh = this.phase === null;
    // Lanes still waiting (a warmup cut by its grace): planned now, and they start at their first turn.
    const warmed = this.lanes.length;
    this.phase = 'benchmark';
    this.phaseStart = now;
    this.due.clear();
    this.fill(false);
    for (const [k, lane] of this.lanes.entries()) {
      if (fresh || k >= warmed) lane.tree.startAt(0, now);
      else if (lane.tree.drained()) this.recycle(lane, now);
      else for (const c of lane.tree.timers()) lane.tree.setDue(c, now + TreePlay.delayOf(c));
    }
    this.capSystemIdle(now);
  }

  private recycle(lane: Lane, now: number): void {
    this.counts.treesDrained++;
    const pass = lane.tree.pass + 1;
    const trace = this.slot(this.o.lanes + this.draws++, false) as number;
    // The next tree first: a source that counts holds keeps a trace both trees play.
    const tree = this.newTree(lane.index, lane.pos, pass, trace);
    this.source.release?.(lane.trace);
    lane.tree = tree;
    lane.trace = trace;
    lane.tree.startAt(0, now);
  }

  get currentPhase(): ReplayPhase | null {
    return this.phase;
  }

  get inFlight(): number {
    return this.flights.size;
  }

  /** Profiling's end: no request starts from then on. */
  get endAt(): number | null {
    return this.phase === 'benchmark' ? this.phaseStart + this.o.durationS * 1000 : null;
  }

  /** When requests still in flight are cancelled: the end of the phase's grace. */
  get cancelAt(): number | null {
    if (this.phase === 'warmup') return this.phaseStart + this.o.warmupGraceS * 1000;
    return this.phase === 'benchmark' ? (this.endAt as number) + this.o.benchmarkGraceS * 1000 : null;
  }

  private mayStart(lane: Lane, now: number): boolean {
    if (this.aborted !== null) return false;
    if (this.phase === 'warmup') return lane.warmupLeft > 0 && now < (this.cancelAt as number);
    return this.phase === 'benchmark' && now < (this.endAt as number);
  }

  /**
   * The queue's first live timer: a call ready now, or the earliest one due later. On the way it drops
   * stale entries and those of lanes done with the warmup, and sets aside due join turns whose subagents
   * are still running (the tree queues them again when one finishes). Null: nothing may start.
   */
  private settle(now: number): Due | null {
    for (;;) {
      const top = this.due.peek();
      if (top === undefined) return null;
      const lane = this.lanes[top.pos] as Lane;
      const { conv } = top;
      if (lane.tree !== top.tree || conv.version !== top.version || !TreePlay.pending(conv)) {
        this.due.pop();
        continue;
      }
      if (!this.mayStart(lane, now)) {
        // The warmup's lanes run out one by one (the boundary queues them again); else the phase is over.
        if (this.phase !== 'warmup' || !this.phaseOpen(now)) return null;
        this.due.pop();
        continue;
      }
      if (top.at > now || lane.tree.ready(conv, now)) return top;
      this.due.pop();
      conv.parked = true;
    }
  }

  private phaseOpen(now: number): boolean {
    if (this.aborted !== null || this.phase === null) return false;
    return now < (this.phase === 'warmup' ? (this.cancelAt as number) : (this.endAt as number));
  }

  /** The next call to send now, or WAITING (a timer, a join or a completion is awaited), or FINISHED (phase over). */
  next(): ReplayStep {
    if (this.phase === 'warmup' && this.waiting.length > 0) this.fill(true);
    const now = this.clock.now();
    // Earliest due first; ties go to the lane listed first, then the root before its subagents.
    const top = this.settle(now);
    if (top === null || top.at > now) return this.phaseOver(now) ? FINISHED : WAITING;
    this.due.pop();
    return this.dispatch({ lane: this.lanes[top.pos] as Lane, conv: top.conv }, now);
  }

  private phaseOver(now: number): boolean {
    if (this.flights.size > 0) return false;
    if (this.aborted !== null || this.phase === null) return true;
    if (this.phase === 'benchmark') return now >= (this.endAt as number);
    if (this.waiting.length > 0 && now < (this.cancelAt as number)) return false;
    return (
      this.lanes.every((l) => l.warmupLeft === 0 || l.tree.drained()) || now >= (this.cancelAt as number)
    );
  }

  private dispatch(pick: { lane: Lane; conv: Conversation }, now: number): ReplayCall {
    const { lane, conv } = pick;
    const tree = lane.tree;
    const phase = this.phase as ReplayPhase;
    const dueAtMs = tree.readyAt(conv);
    const planned: PlannedCall = tree.send(conv);
    let warmup: ReplayCall['warmup'] = null;
    if (phase === 'warmup') {
      warmup = lane.warmupLeft === 1 + this.o.warmupRequestsPerLane ? 'prime' : 'advance';
      lane.warmupLeft--;
    }
    const child = conv.child >= 0 ? tree.plan.children[conv.child] : undefined;
    const parentCorrelationId = child === undefined ? null : tree.root.correlationId;
    const rid = requestId(conv.correlationId, planned.turnIndex);
    const call: ReplayCall = {
      id: this.nextId++,
      phase,
      lane: lane.index,
      recyclePass: tree.pass,
      trace: lane.trace,
      traceId: tree.plan.traceId,
      conversationId: child?.conversationId ?? tree.plan.traceId,
      correlationId: conv.correlationId,
      rootCorrelationId: tree.root.correlationId,
      parentCorrelationId,
      requestId: rid,
      outer: planned.outer,
      inner: planned.inner,
      turnIndex: planned.turnIndex,
      branch: {
        kind: child === undefined ? 'root' : 'subagent',
        agentId: child?.agentId ?? null,
        background: child !== undefined && child.joinTurn === null,
      },
      maxTokens: warmup === 'advance' ? 1 : planned.out,
      warmup,
      dueAtMs,
      sentAtMs: now,
      headers: replayHeaders(
        { correlationId: conv.correlationId, requestId: rid, parentCorrelationId },
        this.o.affinityHeaders,
      ),
    };
    this.counts[phase].sent++;
    this.flights.set(call.id, { call, lane, tree, conv });
    this.announceNext(lane.trace, tree, conv, now);
    return call;
  }

  /**
   * The calls this one's completion may release (its conversation's next call; for a root turn, the first
   * calls of the subagents it spawns), told to `onTimer` with the earliest they could be due: their
   * contents can be rendered while this call runs, not when a zero think time makes them due at once.
   */
  private announceNext(trace: number, tree: TreePlay, conv: Conversation, now: number): void {
    const onTimer = this.o.onTimer;
    if (onTimer === undefined) return;
    const after = conv.calls[conv.next + 1];
    if (after !== undefined) onTimer(trace, after, now + after.delayMs);
    if (conv.child >= 0) return;
    for (const c of tree.plan.spawnsAt[conv.next] ?? []) {
      const first = tree.plan.children[c]?.calls[0];
      if (first !== undefined) onTimer(trace, first, now + first.delayMs);
    }
  }

  /** A call finished (or failed) at the clock's now. Calls the scheduler already cancelled are ignored. */
  complete(id: number, outcome: CallOutcome): void {
    const flight = this.flights.get(id);
    if (flight === undefined) return;
    this.flights.delete(id);
    const now = this.clock.now();
    const { call, lane, tree, conv } = flight;
    const counts = this.counts[call.phase];
    if (outcome === 'ok') counts.ok++;
    else if (outcome === 'overflow') {
      counts.overflows++;
      this.counts.sessionsOverflowed++;
    } else if (outcome === 'cancelled') counts.cancelled++;
    else counts.errors++;
    if (
      call.phase === 'warmup' &&
      call.branch.kind === 'root' &&
      (outcome === 'error' || outcome === 'overflow')
    )
      this.aborted = `warmup request ${call.requestId} of lane ${call.lane}'s root failed`;
    tree.finish(conv, outcome, now, call.phase === 'warmup');
    if (call.phase !== this.phase) return;
    if (this.phase === 'benchmark' && tree.drained() && now < (this.endAt as number)) this.recycle(lane, now);
    else this.capIdle(tree, now);
    this.capSystemIdle(now);
  }

  /** Per tree: with nothing of it in flight, its next request starts within the trace idle cap. */
  private capIdle(tree: TreePlay, now: number): void {
    if (tree.inFlight > 0) return;
    const next = tree.nextTimer(now);
    const cap = this.o.traceIdleGapCapS * 1000;
    if (next !== null && next - now > cap) tree.shift(next - now - cap, now);
  }

  /** Globally: with nothing in flight or ready anywhere, every pending timer moves earlier by one amount. */
  private capSystemIdle(now: number): void {
    if (this.flights.size > 0) return;
    const top = this.settle(now);
    const cap = this.o.systemIdleGapCapS * 1000;
    if (top === null || top.at - now <= cap) return;
    for (const lane of this.lanes) lane.tree.shift(top.at - now - cap, now);
  }

  /**
   * Past the phase's grace, the calls still in flight: the scheduler counts them cancelled and forgets
   * them; the client aborts them and need not report them.
   */
  cancelDue(): ReplayCall[] {
    const now = this.clock.now();
    const at = this.cancelAt;
    if (at === null || now < at) return [];
    const cut = [...this.flights.values()];
    for (const f of cut) {
      this.flights.delete(f.call.id);
      this.counts[f.call.phase].cancelled++;
      f.tree.finish(f.conv, 'cancelled', now, true);
    }
    return cut.map((f) => f.call);
  }

  /**
   * The earliest due time queued (scheduler clock), without settling the queue: it may be a call since
   * cancelled or superseded, so it is a hint (when to stop work done ahead), never a dispatch decision.
   */
  nextDueAt(): number | null {
    return this.due.peek()?.at ?? null;
  }

  /** When the client should ask again if no call completes first (a timer, the duration's end, a grace's end); null: only a completion can help. */
  wakeAt(): number | null {
    const now = this.clock.now();
    let best: number | null = null;
    const consider = (t: number | null) => {
      if (t !== null && t > now && (best === null || t < best)) best = t;
    };
    const top = this.settle(now);
    // A call ready now: ask again at once.
    if (top !== null && top.at <= now) return now;
    consider(top?.at ?? null);
    if (this.phase === 'benchmark') consider(this.endAt);
    if (this.flights.size > 0 || (this.phase === 'warmup' && this.waiting.length > 0))
      consider(this.cancelAt);
    return best;
  }
}
