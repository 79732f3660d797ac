import { readFileSync } from 'node:fs';

/**
 * Whether a wall-clock time is the code's own or the host's, so that a time taken on a busy host is marked,
 * not reported as the code's speed. Two signs, neither proof alone:
 *
 * - run-queue wait of this process's main thread (/proc/self/schedstat, ns; Linux only): time it was ready
 *   to run and had no CPU;
 * - drift of a fixed piece of reference work timed before and after the measurements: a virtual machine's
 *   neighbours slow it without any wait showing inside the guest.
 */

/** Past this share of the wall time spent waiting for a CPU, a timing is not the code's own. */
export const BUSY_SHARE = 0.05;
/** Past this change in the reference work's time between the start and the end, the host's speed moved. */
export const DRIFT = 0.1;

function waitedMs(): number | null {
  try {
    const waitNs = Number(readFileSync('/proc/self/schedstat', 'utf8').trim().split(/\s+/)[1]);
    return Number.isFinite(waitNs) ? waitNs / 1e6 : null;
  } catch {
    return null;
  }
}

/** Starts a probe; the function it returns gives the share of the wall time since then spent waiting. */
export function startCpuWait(): () => number | null {
  const w0 = waitedMs();
  const t0 = performance.now();
  return () => {
    const w1 = waitedMs();
    const wall = performance.now() - t0;
    return w0 === null || w1 === null || wall <= 0 ? null : (w1 - w0) / wall;
  };
}

/** A line's suffix: how long the section waited, and whether its time is valid against a target. */
export function waitNote(share: number | null): string {
  if (share === null) return ' (CPU wait not measurable on this host)';
  const pct = `${(share * 100).toFixed(1)} %`;
  return share > BUSY_SHARE
    ? ` (waited for a CPU ${pct} of the time: host busy, NOT VALID against the target)`
    : ` (waited for a CPU ${pct} of the time)`;
}

/** The verdict on the reference work's start and end times (ms). */
export function driftNote(startMs: number, endMs: number): string {
  const drift = endMs / startMs - 1;
  const line = `host speed: the reference work took ${startMs.toFixed(1)} ms before the measurements and ${endMs.toFixed(1)} ms after (${drift >= 0 ? '+' : ''}${(drift * 100).toFixed(1)} %)`;
  return Math.abs(drift) > DRIFT
    ? `${line}: the host's speed moved during the run, so its times are NOT VALID against the targets (the ratios within the run still are)`
    : line;
}
