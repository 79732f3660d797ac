import { monotonicMs } from './clock.ts';
import type { LoadProgress } from './load.ts';

/**
 * Progress of long steps (prompt building, load runs): a live line redrawn in place on a terminal; on
 * anything else (CI logs, pipes) a plain line at most every few seconds and one when a step ends.
 */

export interface ProgressSink {
  write(text: string): void;
  isTTY: boolean;
}

const TTY_EVERY_MS = 100;
const LINE_EVERY_MS = 5000;
const BAR = 24;

function throttled(out: ProgressSink): (line: string, final: boolean) => void {
  let last = Number.NEGATIVE_INFINITY;
  const every = out.isTTY ? TTY_EVERY_MS : LINE_EVERY_MS;
  return (line, final) => {
    const now = monotonicMs();
    if (!final && now - last < every) return;
    last = final ? Number.NEGATIVE_INFINITY : now;
    out.write(out.isTTY ? `\r\x1b[2K${line}${final ? '\n' : ''}` : `${line}\n`);
  };
}

function bar(done: number, total: number): string {
  const filled = Math.round((total > 0 ? Math.min(1, done / total) : 1) * BAR);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${done}/${total}`;
}

/** A count with no known total (items read so far); the caller ends a terminal's live line. */
export function countProgressReporter(out: ProgressSink, label: string): (done: number) => void {
  const show = throttled(out);
  return (done) => show(`${label} ${done}`, false);
}

export function loadProgressReporter(out: ProgressSink, label: string): (p: LoadProgress) => void {
  const show = throttled(out);
  return (p) => {
    const secs = p.elapsedMs / 1000;
    // Against a simulated engine the rate is on its clock, as in the summary; elapsed time stays wall time.
    const rateSecs = p.engineElapsedMs === null ? secs : p.engineElapsedMs / 1000;
    const tput =
      rateSecs > 0 && p.outputTokens > 0
        ? `, ${(p.outputTokens / rateSecs).toFixed(0)} output tok/s${p.engineElapsedMs === null ? '' : ' (simulated)'}`
        : '';
    const errors = p.failed > 0 ? `, ${p.failed} errors` : '';
    // A phase whose size is not known in advance (a timed replay) counts up with no bar and no end.
    const count = p.total > 0 ? bar(p.done, p.total) : `${p.done}`;
    show(
      `${label} ${p.phase} ${count} requests${errors}${tput}, ${secs.toFixed(1)} s`,
      p.total > 0 && p.done >= p.total,
    );
  };
}

export function stepProgressReporter(
  out: ProgressSink,
  label: string,
): (done: number, total: number) => void {
  const show = throttled(out);
  return (done, total) => show(`${label} ${bar(done, total)}`, done >= total);
}
