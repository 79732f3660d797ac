import { ConfigError } from '../config/diagnostics.ts';
import { MatrixError } from '../matrix/errors.ts';
import { PathEscapeError } from '../schema/safe-path.ts';
import { RunLockError } from '../sweep/lock.ts';
import { SweepPlanError } from '../sweep/points.ts';
import { RunDirError } from '../sweep/run-dir.ts';
import { reportError } from './common.ts';
import type { CliIO } from './io.ts';

/** Bad flag combinations of the sweep commands: exit 2. */
export class UsageError extends Error {}

/** Exit codes of the sweep commands: 2 bad usage, 1 bad input (configs, matrix, run directory) or a run locked by another sweep. */
export function sweepErrorCode(err: unknown, io: CliIO): number {
  if (err instanceof UsageError) {
    io.stderr(`error: ${err.message}\n`);
    return 2;
  }
  if (
    err instanceof SweepPlanError ||
    err instanceof RunDirError ||
    err instanceof RunLockError ||
    err instanceof PathEscapeError
  ) {
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
  if (err instanceof ConfigError || err instanceof MatrixError) return reportError(err, io);
  if (err instanceof Error && err.name === 'SlurmError') {
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
  throw err;
}
