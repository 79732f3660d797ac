import { monotonicMs } from '../../src/client/clock.ts';
import type { PhaseRun } from '../../src/client/runner.ts';
import type { PhaseDriver } from '../../src/workload/driver.ts';

/** A benchmark phase on one client thread, starting now, for tests that call `runPhase` directly. */
export function benchmarkRun(
  driver: PhaseDriver,
  opts: { slots?: number; onRecord?: PhaseRun['onRecord']; signal?: AbortSignal } = {},
): PhaseRun {
  return {
    phase: 'benchmark',
    worker: 0,
    slots: opts.slots ?? 1,
    driver,
    startMs: monotonicMs(),
    lockstep: null,
    clockOriginMs: monotonicMs(),
    signal: opts.signal ?? new AbortController().signal,
    onRecord: opts.onRecord ?? (() => {}),
  };
}
