import type { PlannedCall, TreePlan } from './replay-plan.ts';

/**
 * One live play of a trace's trajectory tree (client-metrics §2.4–§2.6): which conversation may send
 * its next call and from when. The root's turns go one after another, each an end-to-start delay after
 * the previous one finished; a finished root turn spawns its subagents; a join turn waits until every
 * subagent it joins has finished its last call (failures release it too, as the reference does); a
 * context overflow ends that conversation. Times are ms on the scheduler's clock.
 */

export type CallOutcome = 'ok' | 'error' | 'overflow' | 'cancelled';

export interface Conversation {
  /** -1 for the root, else the child's index in the plan. */
  child: number;
  calls: readonly PlannedCall[];
  correlationId: string;
  /** Next call to send. */
  next: number;
  /** When the next call may go; null while it has none or waits for its spawn. */
  dueAt: number | null;
  inFlight: boolean;
  /** Stopped early: overflowed, or not replayed because it lies before the start point. */
  ended: boolean;
  spawned: boolean;
  /** When its last call finished (or it overflowed); null while it has calls left. */
  finishedAt: number | null;
  /** Bumped at every change of `dueAt`: a queued timer with an older one is stale. */
  version: number;
  /** Due, but its join waits on subagents: the scheduler set it aside until one of them finishes. */
  parked: boolean;
}

/** Told of every timer a tree sets (a conversation's next call got a due time). */
export type OnDue = (c: Conversation) => void;

export class TreePlay {
  readonly conversations: Conversation[];
  inFlight = 0;
  /** Spawned conversations with calls left or one in flight: the only ones a timer or a drain can concern. */
  private readonly live = new Set<Conversation>();

  constructor(
    readonly plan: TreePlan,
    readonly lane: number,
    readonly pass: number,
    correlation: (conversationId: string) => string,
    private readonly onDue: OnDue = () => {},
  ) {
    const conv = (child: number, calls: readonly PlannedCall[], id: string): Conversation => ({
      child,
      calls,
      correlationId: correlation(id),
      next: 0,
      dueAt: null,
      inFlight: false,
      ended: false,
      spawned: child < 0,
      finishedAt: null,
      version: 0,
      parked: false,
    });
    this.conversations = [
      conv(-1, plan.root, plan.traceId),
      ...plan.children.map((c, i) => conv(i, c.calls, c.conversationId)),
    ];
    this.touch(this.root);
  }

  private touch(c: Conversation): void {
    if (c.spawned && !TreePlay.done(c)) this.live.add(c);
    else this.live.delete(c);
  }

  /** Sets when `c`'s next call may go (null: none) and tells the scheduler of a new timer. */
  setDue(c: Conversation, at: number | null): void {
    c.dueAt = at;
    c.version++;
    c.parked = false;
    if (at !== null && TreePlay.pending(c)) this.onDue(c);
  }

  /** The recorded end-to-start delay before `c`'s next call (a subagent's first: its offset from the spawn). */
  static delayOf(c: Conversation): number {
    return c.calls[c.next]?.delayMs ?? 0;
  }

  /** Has a next call that only its time (and, for a join, its subagents) keeps back. */
  static pending(c: Conversation): boolean {
    return !c.ended && !c.inFlight && c.spawned && c.next < c.calls.length;
  }

  get root(): Conversation {
    return this.conversations[0] as Conversation;
  }

  /**
   * Start at root turn `turn` (t* warmup: the turn before the start point; 0 for a fresh play), due at
   * `now`. Subagents spawned before it are not replayed: their joins are free.
   */
  startAt(turn: number, now: number): void {
    this.root.next = turn;
    for (const c of this.conversations.slice(1)) {
      if ((this.plan.children[c.child] as { spawnTurn: number }).spawnTurn < turn) c.ended = true;
    }
    this.touch(this.root);
    this.setDue(this.root, now);
  }

  static done(c: Conversation): boolean {
    return !c.inFlight && (c.ended || c.next >= c.calls.length);
  }

  /** Every conversation has finished: the lane is free for its next trace. */
  drained(): boolean {
    return this.inFlight === 0 && this.live.size === 0;
  }

  /**
   * When the conversation's next call became sendable: its due time, or (a join turn) the end of the last
   * subagent it waits for, whichever is later. Dispatch lateness counts from here, not from a due time
   * the join kept it past.
   */
  readyAt(c: Conversation): number {
    let at = c.dueAt ?? 0;
    if (c.child >= 0) return at;
    for (const i of this.plan.joinsAt[c.next] ?? []) {
      const done = (this.conversations[i + 1] as Conversation).finishedAt;
      if (done !== null && done > at) at = done;
    }
    return at;
  }

  /** The conversation's next call may be sent now: due, and (a join turn) its subagents are done. */
  ready(c: Conversation, now: number): boolean {
    if (!TreePlay.pending(c) || c.dueAt === null || c.dueAt > now) return false;
    if (c.child >= 0) return true;
    const joins = this.plan.joinsAt[c.next] ?? [];
    return joins.every((i) => TreePlay.done(this.conversations[i + 1] as Conversation));
  }

  send(c: Conversation): PlannedCall {
    c.inFlight = true;
    this.inFlight++;
    return c.calls[c.next] as PlannedCall;
  }

  /**
   * A call of `c` finished at `now`: the conversation moves on (generic errors too, without retry);
   * `zeroDelays` is the one-token warmup, which skips think time.
   */
  finish(c: Conversation, outcome: CallOutcome, now: number, zeroDelays: boolean): void {
    c.inFlight = false;
    this.inFlight--;
    const turn = c.next;
    c.next++;
    if (outcome === 'overflow' || c.next >= c.calls.length) c.finishedAt = now;
    if (outcome === 'overflow') c.ended = true;
    this.touch(c);
    if (c.ended) this.setDue(c, null);
    else {
      const following = c.calls[c.next];
      this.setDue(c, following === undefined ? null : now + (zeroDelays ? 0 : following.delayMs));
    }
    if (c.child >= 0) {
      // A subagent done may free its join: a root set aside for it is looked at again.
      const root = this.root;
      if (TreePlay.done(c) && root.parked) {
        root.parked = false;
        this.onDue(root);
      }
      return;
    }
    if (c.ended) return;
    for (const i of this.plan.spawnsAt[turn] ?? []) {
      const child = this.conversations[i + 1] as Conversation;
      if (child.ended) continue;
      child.spawned = true;
      this.touch(child);
      this.setDue(child, now + (zeroDelays ? 0 : TreePlay.delayOf(child)));
    }
  }

  /** Pending timers: conversations that will send once their `dueAt` comes. */
  timers(): Conversation[] {
    const out: Conversation[] = [];
    for (const c of this.live) if (c.dueAt !== null && TreePlay.pending(c)) out.push(c);
    return out;
  }

  /** Moves every pending timer later than `now` earlier by `ms` (the idle caps), keeping order and spacing. */
  shift(ms: number, now: number): void {
    for (const c of this.timers())
      if ((c.dueAt as number) > now) this.setDue(c, Math.max(now, (c.dueAt as number) - ms));
  }

  /** The earliest pending timer later than `now`, or null. */
  nextTimer(now: number): number | null {
    let best: number | null = null;
    for (const c of this.timers()) {
      const at = c.dueAt as number;
      if (at > now && (best === null || at < best)) best = at;
    }
    return best;
  }
}
