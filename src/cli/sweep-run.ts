import { executeRun } from '../sweep/execute.ts';
import { formatOutcome } from '../sweep/format.ts';
import { sweepReporter } from '../sweep/progress.ts';
import type { Selection } from '../sweep/sweep.ts';
import type { CliIO } from './io.ts';

/** Runs the selected points of a run directory with progress, Ctrl-C handling and a summary. */
export async function runAndReport(
  runDir: string,
  select: Selection,
  io: CliIO,
  overrides: { retries?: number | undefined } = {},
): Promise<number> {
  const reporter = sweepReporter({ write: io.stderr, isTTY: io.stderrIsTTY ?? io.isTTY });
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130); // the point processes still stop their engines
    reporter.log('interrupted: stopping the running points and their engines (Ctrl-C again to quit now)');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { manifest, outcome } = await executeRun(
      runDir,
      select,
      {
        log: reporter.log,
        onProgress: reporter.progress,
        signal: controller.signal,
      },
      overrides,
    );
    reporter.end();
    io.stdout(formatOutcome(outcome, runDir, manifest));
    if (outcome.interrupted) return 130;
    return outcome.failed.length > 0 || outcome.invalid.length > 0 || outcome.canaryFailed ? 1 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
