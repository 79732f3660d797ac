import { InfxError } from '../schema/errors.ts';
import type { PointResultOf } from '../schema/point-result.ts';
import type { OfKind, Workload, WorkloadKind } from '../schema/workload.ts';
import { aggregateAgenticPoint } from './agentic/point.ts';
import { aggregatePoint } from './fixed-seq-len.ts';
import type { PointInput } from './point-input.ts';

/**
 * One aggregator per workload kind, and the one table that says which kinds infx can run: a kind runs when
 * it has an aggregator. Planning (sweep/points.ts), the store (store/rows.ts) and a point's run
 * (sweep/bench-point.ts) all ask here, so a kind becomes runnable everywhere by getting its aggregator.
 */

export type Aggregator<K extends WorkloadKind> = (input: PointInput<OfKind<Workload, K>>) => PointResultOf<K>;

/** Why a kind cannot run yet, in the words of each place that refuses it. */
export interface NotRunnable {
  /** Planning a sweep: the row is skipped with this reason. */
  plan: string;
  /** Ingest: the point is not stored, with this issue. */
  store: string;
}

type Capability<K extends WorkloadKind> =
  | { aggregate: Aggregator<K>; missing: null }
  | { aggregate: null; missing: NotRunnable };

/** Every kind has an entry: a kind added to schema/workload.ts does not typecheck until it has one. */
export const WORKLOAD_CAPABILITIES: { readonly [K in WorkloadKind]: Capability<K> } = {
  'fixed-seq-len': { aggregate: aggregatePoint, missing: null },
  'agentic-coding': { aggregate: aggregateAgenticPoint, missing: null },
};

/** Why points of `kind` cannot run (and are not stored), or null when they can. */
export const notRunnable = (kind: WorkloadKind): NotRunnable | null => WORKLOAD_CAPABILITIES[kind].missing;

/** A point of a kind that cannot run was asked to be aggregated. */
export class WorkloadNotRunnableError extends InfxError {}

/** The aggregator of `workload`'s kind. */
export function aggregatorFor<K extends WorkloadKind>(workload: { kind: K }): Aggregator<K> {
  const capability: Capability<K> = WORKLOAD_CAPABILITIES[workload.kind];
  if (capability.aggregate === null) throw new WorkloadNotRunnableError(capability.missing.plan);
  return capability.aggregate;
}
