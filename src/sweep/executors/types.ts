import type { PointSpec, PointStatus } from '../../schema/run-dir.ts';

/**
 * Where a point's attempt runs. Every executor runs the same thing, `infx sweep point`, which writes the
 * attempt directory; the executor only starts it, can cancel it, and hands back the status it wrote.
 */

export interface AttemptJob {
  spec: PointSpec;
  attempt: number;
  /** The attempt directory (points/<id>/attempt-<n>). */
  dir: string;
  /** The point's spec file the job reads. */
  specFile: string;
}

export interface RunningAttempt {
  /** The attempt's status once it has ended (synthesized when the job died without writing one). */
  readonly done: Promise<PointStatus>;
  /** Stops the attempt (its engine is torn down); `done` then resolves with an interrupted status. */
  cancel(): Promise<void>;
  /** An id for humans: a process id or a Slurm job id. */
  readonly id: string;
}

export interface PointExecutor {
  readonly name: string;
  start(job: AttemptJob): Promise<RunningAttempt>;
  /** An attempt an earlier sweep started that has no status yet: its handle if it still runs, else null. */
  adopt?(job: AttemptJob): Promise<RunningAttempt | null>;
  /** Called once the sweep is over (stops pollers). */
  close(): Promise<void>;
}
