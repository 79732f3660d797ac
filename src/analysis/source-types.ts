import type { CurvePoint } from '../schema/curve.ts';

/**
 * The shapes the curve sources share (sources.ts for run directories, sources-db.ts for the store, which
 * sources.ts loads only when a store is named).
 */

/** A planned point left out of the curves, and why. */
export interface SkippedPoint {
  pointId: string;
  reason: string;
}

export interface RunCurves {
  /** What the user named. */
  label: string;
  source: 'run-dir' | 'db';
  runIds: string[];
  points: CurvePoint[];
  /** Planned points with no usable result (failed, not run, agentic), and why. */
  skipped: SkippedPoint[];
}

export interface LoadOptions {
  /** Results database URL (SQLite path, sqlite:PATH or postgres://…); default $INFX_DB, else .infx/infx.db. */
  db?: string | undefined;
  /** `official` only: the configs wanted (e.g. those of the run compared); all when absent. */
  configKeys?: readonly string[] | undefined;
}
