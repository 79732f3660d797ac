/**
 * Time for the scripted server: one monotonic clock, and a scheduler that fires callbacks at absolute
 * deadlines on it without drift.
 */

/**
 * Milliseconds on the monotonic clock (`process.hrtime`, CLOCK_MONOTONIC on Linux). Every process on the
 * same host reads the same clock, so a client in another process can line its own `process.hrtime` readings
 * up with the server's log. Not related to wall-clock time.
 */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export interface Scheduled {
  cancel(): void;
}

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
  live: boolean;
}

function before(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * Fires callbacks at absolute monotonic deadlines, in deadline order (ties in the order they were added).
 * One timer sleeps until `spinMs` before the earliest deadline; the rest of the way it polls with
 * setImmediate, so I/O keeps flowing while it waits and a callback runs within microseconds of its deadline
 * on an idle loop. With `spinMs: 0` only the sub-millisecond rest after a timer is polled.
 */
export class Scheduler {
  private readonly heap: Entry[] = [];
  private seq = 0;
  private timeout: NodeJS.Timeout | undefined;
  private timeoutWake = Number.POSITIVE_INFINITY;
  private immediate: NodeJS.Immediate | undefined;

  constructor(readonly spinMs = 1) {}

  /** Runs `fn` at monotonic time `atMs` (immediately, on the next loop turn, when that has passed). */
  at(atMs: number, fn: () => void): Scheduled {
    const entry: Entry = { at: atMs, seq: this.seq++, fn, live: true };
    this.push(entry);
    this.arm();
    return {
      cancel: () => {
        entry.live = false;
      },
    };
  }

  /** Live callbacks still waiting. */
  get pending(): number {
    return this.heap.reduce((n, e) => n + (e.live ? 1 : 0), 0);
  }

  /** Drops every waiting callback and stops the timers. */
  clear(): void {
    for (const e of this.heap) e.live = false;
    this.heap.length = 0;
    this.stopTimers();
  }

  private stopTimers(): void {
    if (this.timeout !== undefined) clearTimeout(this.timeout);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timeout = undefined;
    this.immediate = undefined;
    this.timeoutWake = Number.POSITIVE_INFINITY;
  }

  private arm(): void {
    while (this.heap.length > 0 && !this.heap[0]!.live) this.pop();
    const top = this.heap[0];
    if (top === undefined) {
      this.stopTimers();
      return;
    }
    if (this.immediate !== undefined) return; // polling already; the tick re-arms
    const wait = top.at - nowMs();
    // Under a millisecond a timer cannot help (it would fire up to ~2 ms later): poll even with spinMs 0.
    if (wait <= this.spinMs || wait < 1) {
      if (this.timeout !== undefined) clearTimeout(this.timeout);
      this.timeout = undefined;
      this.timeoutWake = Number.POSITIVE_INFINITY;
      this.immediate = setImmediate(this.tick);
      return;
    }
    const wake = top.at - this.spinMs;
    if (this.timeout !== undefined && this.timeoutWake <= wake) return;
    if (this.timeout !== undefined) clearTimeout(this.timeout);
    this.timeoutWake = wake;
    // A timer fires within about a millisecond either side of its time; the poll covers the rest.
    this.timeout = setTimeout(this.onTimeout, Math.max(1, Math.floor(wait - this.spinMs)));
  }

  private readonly onTimeout = (): void => {
    this.timeout = undefined;
    this.timeoutWake = Number.POSITIVE_INFINITY;
    this.tick();
  };

  private readonly tick = (): void => {
    this.immediate = undefined;
    try {
      while (this.heap.length > 0) {
        const top = this.heap[0]!;
        if (!top.live) {
          this.pop();
          continue;
        }
        if (top.at > nowMs()) break;
        this.pop();
        top.live = false;
        top.fn();
      }
    } finally {
      this.arm();
    }
  };

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
