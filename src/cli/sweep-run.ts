import type { RunManifest } from '../schema/run-dir.ts';
import { isBenchRun } from '../sweep/bench-plan.ts';
import { executeRun } from '../sweep/execute.ts';
import { formatOutcome } from '../sweep/format.ts';
import { acquireRunLock, describeHolder, type RunLock } from '../sweep/lock.ts';
import { preflightChecks, preflightProblems } from '../sweep/preflight.ts';
import { sweepReporter } from '../sweep/progress.ts';
import { readManifest } from '../sweep/run-dir.ts';
import type { Selection } from '../sweep/sweep.ts';
import { UsageError } from './errors.ts';
import type { CliIO } from './io.ts';
import { onInterrupt } from './signals.ts';

/** Takes the run directory's lock (src/sweep/lock.ts), saying so when it takes over a stale one. */
export function lockRun(runDir: string, command: string, io: CliIO, create = false): RunLock {
  const lock = acquireRunLock(runDir, { command, create });
  if (lock.tookOver)
    io.stderr(
      `note: took over the lock ${lock.path} left by ${describeHolder(lock.tookOver)}, which is no longer running\n`,
    );
  return lock;
}

/** A dry run checks nothing: it says on stderr what a real sweep would check first. */
export async function notePreflight(manifest: RunManifest, io: CliIO): Promise<void> {
  const checks = await preflightChecks(manifest);
  if (checks.length > 0)
    io.stderr(`pre-flight (skipped in a dry run) would check:\n${checks.map((c) => `  - ${c}\n`).join('')}`);
}

/**
 * Runs the selected points of a run directory with progress, Ctrl-C handling and a summary, under the run's
 * lock (`lock`, taken here when not given; released at the end either way).
 */
export async function runAndReport(
  runDir: string,
  select: Selection,
  io: CliIO,
  overrides: { retries?: number | undefined } = {},
  held?: RunLock,
): Promise<number> {
  // infx bench measured a server infx did not start: only the same bench command can measure the rest.
  if (isBenchRun(runDir)) {
    held?.release();
    throw new UsageError(
      `${runDir} was written by infx bench against a running server, which infx sweep cannot start: run ` +
        'the same infx bench command again to measure what is missing (or with --force to measure again)',
    );
  }
  // A folder that is not a run directory is an error, not locked.
  let manifest: RunManifest;
  try {
    manifest = await readManifest(runDir);
  } catch (err) {
    held?.release();
    throw err;
  }
  const lock = held ?? lockRun(runDir, `infx sweep retry ${runDir}`, io);
  let problems: string[];
  try {
    problems = await preflightProblems(manifest);
  } catch (err) {
    lock.release();
    throw err;
  }
  if (problems.length > 0) {
    lock.release();
    io.stderr(
      `error: pre-flight check failed, no point was started:\n${problems.map((p) => `  - ${p}\n`).join('')}` +
        `fix that and run the points with: infx sweep retry ${runDir}\n`,
    );
    return 1;
  }
  const reporter = sweepReporter({ write: io.stderr, isTTY: io.stderrIsTTY ?? io.isTTY });
  // The points stop, and the lock is given back on the way out.
  const interrupt = onInterrupt({
    say: () =>
      reporter.log('interrupted: stopping the running points and their engines (Ctrl-C again to quit now)'),
  });
  try {
    const { manifest: ran, outcome } = await executeRun(
      runDir,
      select,
      {
        log: reporter.log,
        onProgress: reporter.progress,
        signal: interrupt.signal,
      },
      overrides,
    );
    reporter.end();
    io.stdout(formatOutcome(outcome, runDir, ran));
    if (outcome.interrupted) return 130;
    return outcome.failed.length > 0 || outcome.invalid.length > 0 || outcome.canaryFailed ? 1 : 0;
  } finally {
    interrupt.dispose();
    lock.release();
  }
}
