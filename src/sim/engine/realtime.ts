import type { SimEngine } from './engine.ts';

/**
 * Real-time driver: runs the engine's steps so that virtual time advances `timeScale` times faster than
 * the wall clock (timeScale 1: real time; 10: ten virtual seconds per wall second). Tokens are emitted when
 * the wall clock reaches the step's virtual end. While idle the virtual clock follows the wall clock, so a
 * request's arrival, TTFT and inter-token gaps, divided by timeScale, are what a client observes.
 *
 * On the real clock each step's tokens go out when the wall clock reaches its end, polled for the last
 * `spinMs` so steps shorter than a timer's resolution keep their spacing; when the host falls behind (a
 * slow event loop, a busy CPU) the next step starts late instead of being rushed, so clients always see
 * each step's own duration and the simulation lags the wall clock. With an injected clock (tests), steps
 * shorter than `minSleepMs` run back to back, and a late driver catches up without skipping virtual time.
 */

export interface RealtimeOptions {
  /** Virtual ms per wall ms (> 0). */
  timeScale: number;
  /** Stops the loop (after committing the step in flight). */
  signal?: AbortSignal;
  /** Wall clock in ms; default performance.now. */
  now?: () => number;
  /** Sleep; default setTimeout. Tests pass a fake clock's sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Shortest wall sleep worth a timer, ms (default 1). */
  minSleepMs?: number;
  /**
   * Poll the clock for the last this-many wall ms before a step ends (default 1 on the real clock, 0 with
   * an injected `now`, whose time only moves on `sleep`).
   */
  spinMs?: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function runRealtime(engine: SimEngine, opts: RealtimeOptions): Promise<void> {
  const scale = opts.timeScale;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`timeScale must be > 0, got ${scale}`);
  const now = opts.now ?? (() => performance.now());
  const sleep = opts.sleep ?? defaultSleep;
  const minSleep = opts.minSleepMs ?? 1;
  const spinMs = opts.spinMs ?? (opts.now ? 0 : 1);
  const signal = opts.signal;
  let wall0 = now();
  const virt0 = engine.nowMs;
  const virtualNow = () => virt0 + (now() - wall0) * scale;
  const wallAt = (virtualMs: number) => wall0 + (virtualMs - virt0) / scale;
  let wake: (() => void) | null = null;
  const onAbort = () => wake?.();
  engine.attachClock(virtualNow);
  signal?.addEventListener('abort', onAbort);
  try {
    while (!signal?.aborted) {
      if (!engine.hasWork()) {
        engine.advanceTo(virtualNow());
        await new Promise<void>((resolve) => {
          wake = resolve;
          void engine.waitForWork().then(resolve);
        });
        wake = null;
        continue;
      }
      const info = engine.beginStep()!;
      if (spinMs > 0) {
        // The host fell behind (a slow event loop, a busy CPU): start this step now rather than rush
        // through it, so clients still see each step's own duration; the simulation lags the wall clock.
        const late = now() - wallAt(info.startMs);
        if (late > 0) wall0 += late;
      }
      const due = wallAt(info.endMs);
      const waitMs = due - now();
      if (spinMs > 0) {
        // A timer fires up to a ms late and cannot wait less than one: sleep to just before the step's
        // end, then poll (yielding to I/O) so its tokens go out on time even when steps take < 1 ms of
        // wall time at a high time scale; emitting early would hand clients bursts of tokens.
        if (waitMs > spinMs) await sleep(waitMs - spinMs);
        // At least one turn of the event loop per step, also when behind: each step's writes go out
        // before the next step's, never as one burst.
        do await yieldToLoop();
        while (now() < due && !signal?.aborted);
      } else if (waitMs >= minSleep) await sleep(waitMs);
      else await yieldToLoop();
      engine.commitStep();
    }
  } finally {
    engine.attachClock(null);
    signal?.removeEventListener('abort', onAbort);
  }
}
