/**
 * Runs a simulation on the wall clock, `timeScale` times faster than real time, on one virtual clock for
 * everything it drives (one engine, or every worker of a prefill/decode cluster, plus timed events such
 * as KV transfers and scheduled arrivals).
 *
 * Simulated time is event-driven: a step that begins at T and lasts D ends at exactly T + D, whatever the
 * host does. The wall clock only paces it: an event is fired when the wall clock reaches its scaled due
 * time. When the host falls behind (a busy CPU, a slow event loop), the event fires late and the schedule
 * slips by that much instead of rushing the next steps, so a client still sees each step's own duration;
 * the slip is counted (`stats.behindMs`, and a missed deadline when it exceeds the tolerance). During an
 * event, the clock reads the event's time; between events and while idle it follows the wall clock.
 *
 * Lockstep: while something holds the clock (`hold()`, e.g. a client that still owes the engine a request
 * in a closed loop), no simulated time passes and no event fires, so the client's turnaround costs no
 * simulated time. A hold that lasts longer than `lockstepTimeoutMs` is broken (`onLockstepTimeout`) and
 * counted, since the simulation then goes on without the request.
 */

/** What the pacer drives. */
export interface Paced {
  /** Begins what can begin now (a step on each engine with work and none in progress). */
  start(): void;
  /** End of the earliest step in progress, or null when none is. */
  nextDueMs(): number | null;
  /** Completes every step that ends at or before `ms`. */
  fire(ms: number): void;
  /** Resolves at the next submit. */
  waitForWork(): Promise<void>;
  /** The clock submit() stamps arrivals with (null: detached). */
  attachClock(clock: (() => number) | null): void;
}

export interface PacerOptions {
  /** Virtual ms per wall ms (> 0). */
  timeScale: number;
  /** Stops the loop (after the event in flight). */
  signal?: AbortSignal;
  /** Wall clock in ms; default performance.now. */
  now?: () => number;
  /** Sleep; default setTimeout. Tests pass a fake clock's sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Shortest wall sleep worth a timer, ms (default 1). */
  minSleepMs?: number;
  /**
   * Poll the clock for the last this-many wall ms before an event (default 1 on the real clock, 0 with an
   * injected `now`, whose time only moves on `sleep`).
   */
  spinMs?: number;
  /** An event fired this many wall ms late or more is a missed deadline (default LATE_TOLERANCE_MS). */
  lateToleranceMs?: number;
  /** Longest wall wait on a hold before it is broken (default LOCKSTEP_TIMEOUT_MS). */
  lockstepTimeoutMs?: number;
  /** Called when a hold times out; it should release the holds it can (the pacer goes on regardless). */
  onLockstepTimeout?: () => void;
}

/** Lateness that counts as a missed deadline, wall ms. */
export const LATE_TOLERANCE_MS = 1;
/** How long the engine waits, in wall ms, for a request a lockstep client owes it. */
export const LOCKSTEP_TIMEOUT_MS = 5000;

export interface PacerStats {
  /** Events fired (engine steps, timed events). */
  events: number;
  missedDeadlines: number;
  /** Wall ms the schedule slipped. */
  behindMs: number;
  /** Holds that timed out. */
  holdTimeouts: number;
}

interface Timed {
  atMs: number;
  fn: (atMs: number) => void;
}

// Unreferenced: a pending wait never keeps a process alive that is shutting down.
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Pacer {
  readonly stats: PacerStats = {
    events: 0,
    missedDeadlines: 0,
    behindMs: 0,
    holdTimeouts: 0,
  };
  private readonly scale: number;
  private readonly wallNow: () => number;
  private wall0: number;
  private virt0 = 0;
  private holdCount = 0;
  private holdStart = 0;
  private firingAt: number | null = null;
  private timed: Timed[] = [];
  private kick: (() => void) | null = null;
  private onRelease: (() => void) | null = null;

  constructor(private readonly opts: PacerOptions) {
    const scale = opts.timeScale;
    if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`timeScale must be > 0, got ${scale}`);
    this.scale = scale;
    this.wallNow = opts.now ?? (() => performance.now());
    this.wall0 = this.wallNow();
  }

  get timeScale(): number {
    return this.scale;
  }

  get held(): boolean {
    return this.holdCount > 0;
  }

  /** Simulated ms: the event's time during an event, frozen while held, else following the wall clock. */
  virtualNow(): number {
    if (this.firingAt !== null) return this.firingAt;
    if (this.holdCount > 0) return this.virt0;
    return this.virt0 + (this.wallNow() - this.wall0) * this.scale;
  }

  /** Stops simulated time until the matching release(). */
  hold(): void {
    if (this.holdCount > 0) {
      this.holdCount++;
      return;
    }
    this.virt0 = this.virtualNow();
    this.holdStart = this.wallNow();
    this.holdCount = 1;
  }

  release(): void {
    if (this.holdCount === 0) return;
    if (--this.holdCount > 0) return;
    // Simulated time resumes where it stopped.
    this.wall0 = this.wallNow();
    this.onRelease?.();
  }

  /** Runs `fn(atMs)` at simulated time atMs (now, if that has passed), in time order with the steps. */
  schedule(atMs: number, fn: (atMs: number) => void): void {
    // Never in the past: simulated time only moves forward.
    const t: Timed = { atMs: Math.max(atMs, this.virtualNow()), fn };
    let i = this.timed.length;
    while (i > 0 && this.timed[i - 1]!.atMs > t.atMs) i--;
    this.timed.splice(i, 0, t);
    this.kick?.();
  }

  /** Drives `sim` until the signal aborts. */
  async run(sim: Paced): Promise<void> {
    const opts = this.opts;
    const sleep = opts.sleep ?? defaultSleep;
    const minSleep = opts.minSleepMs ?? 1;
    const spinMs = opts.spinMs ?? (opts.now ? 0 : 1);
    const tolerance = opts.lateToleranceMs ?? LATE_TOLERANCE_MS;
    const signal = opts.signal;
    const wallAt = (virtualMs: number) => this.wall0 + (virtualMs - this.virt0) / this.scale;
    let wake: () => void = () => {};
    const onAbort = () => wake();
    // One promise per wait: resolved by a submit, a newly scheduled event, a release or the abort.
    const wakeup = () =>
      new Promise<void>((resolve) => {
        wake = resolve;
        this.kick = resolve;
        this.onRelease = resolve;
      });
    sim.attachClock(() => this.virtualNow());
    signal?.addEventListener('abort', onAbort);
    try {
      while (!signal?.aborted) {
        if (this.holdCount > 0) {
          await this.waitForRelease(wakeup, sleep);
          continue;
        }
        sim.start();
        const step = sim.nextDueMs();
        const next = this.timed[0]?.atMs ?? null;
        const due = step === null ? next : next === null ? step : Math.min(step, next);
        if (due === null) {
          const woken = wakeup();
          const resolve = wake;
          void sim.waitForWork().then(() => resolve());
          await woken;
          continue;
        }
        const waitMs = wallAt(due) - this.wallNow();
        if (waitMs > 0) {
          // A submit, a new timed event or a release changes what is due next: then look again.
          let interrupted = false;
          const woken = wakeup().then(() => {
            interrupted = true;
          });
          if (spinMs > 0) {
            // A timer fires up to a ms late and cannot wait less than one: sleep to just before the event,
            // then poll (yielding to I/O) so it fires on time even when events are < 1 ms of wall time apart.
            if (waitMs > spinMs) await Promise.race([sleep(waitMs - spinMs), woken]);
            while (!interrupted && this.holdCount === 0 && !signal?.aborted && this.wallNow() < wallAt(due))
              await yieldToLoop();
          } else if (waitMs >= minSleep) await Promise.race([sleep(waitMs), woken]);
          else await yieldToLoop();
          if (interrupted) continue;
        } else {
          // At least one turn of the event loop per event, also when behind: each step's writes go out
          // before the next step's, never as one burst.
          await yieldToLoop();
        }
        if (signal?.aborted) break;
        if (this.holdCount > 0) continue;
        this.fire(sim, due, tolerance, wallAt(due));
      }
    } finally {
      sim.attachClock(null);
      signal?.removeEventListener('abort', onAbort);
      this.kick = null;
      this.onRelease = null;
    }
  }

  private fire(sim: Paced, due: number, tolerance: number, dueWall: number): void {
    const now = this.wallNow();
    const late = now - dueWall;
    if (late > 0) {
      this.stats.behindMs += late;
      if (late >= tolerance) this.stats.missedDeadlines++;
    }
    // The event happens at its simulated time; the schedule goes on from here (a late event slips it).
    this.virt0 = due;
    this.wall0 = now;
    this.firingAt = due;
    try {
      while (this.timed.length > 0 && this.timed[0]!.atMs <= due) {
        const t = this.timed.shift()!;
        this.stats.events++;
        t.fn(t.atMs);
      }
      const step = sim.nextDueMs();
      if (step !== null && step <= due) {
        this.stats.events++;
        sim.fire(due);
      }
    } finally {
      this.firingAt = null;
    }
  }

  private async waitForRelease(wakeup: () => Promise<void>, sleep: (ms: number) => Promise<void>) {
    const limit = this.opts.lockstepTimeoutMs ?? LOCKSTEP_TIMEOUT_MS;
    const woken = wakeup();
    const left = this.holdStart + limit - this.wallNow();
    if (left > 0) await Promise.race([woken, sleep(left)]);
    if (this.holdCount > 0 && this.wallNow() - this.holdStart >= limit) {
      this.stats.holdTimeouts++;
      this.opts.onLockstepTimeout?.();
      // Whatever still holds the clock, the simulation goes on.
      if (this.holdCount > 0) {
        this.holdCount = 1;
        this.release();
      }
    }
  }
}
