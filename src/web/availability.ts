import type { RunStatus, StoredRun } from '../schema/store.ts';
import { RUN_STATUSES } from '../schema/store.ts';
import type { FilterOption, FiltersQuery, FiltersResponse } from '../schema/web-api.ts';
import type { Store } from '../store/db.ts';
import { runs } from '../store/queries.ts';
import { type AvailabilityRow, availabilityRows, storeSignature } from '../store/web-queries.ts';

/**
 * The availability cascade behind the dashboard's filters (dashboard-spec §4.13.2): which values of each
 * filter have data under the other selections, and the effective selection, so the UI never offers (or
 * lands on) an empty combination (§9.3).
 *
 * Order: status (a selected run implies its own) → run → model → workload (ISL/OSL) → precision, hardware,
 * framework. Single selects that have no data snap to the default (the value with the most configs); list
 * selections keep only values with data (an empty list means all). The three lists are pruned in that order
 * and then against each other, so every value left selected has data with the other selections, and each
 * list's options are narrowed by the model, the workload and the other two lists.
 */

export interface Availability {
  rows: readonly AvailabilityRow[];
  /** Stored runs, newest first. */
  runs: readonly StoredRun[];
}

type ListField = 'precision' | 'hardware' | 'framework';
const LISTS: readonly ListField[] = ['precision', 'hardware', 'framework'];

const kTokens = (n: number) => (n % 1024 === 0 ? `${n / 1024}k` : String(n));
export const workloadValue = (isl: number, osl: number) => `${isl}/${osl}`;

const LABEL: Record<ListField | 'model', (v: string) => string> = {
  model: (v) => v,
  precision: (v) => v.toUpperCase(),
  hardware: (v) => v.toUpperCase(),
  framework: (v) => v,
};

/** Distinct configs per value, sorted by value. */
function options(
  rows: readonly AvailabilityRow[],
  key: (r: AvailabilityRow) => string,
  label: (v: string) => string,
): FilterOption[] {
  const configs = new Map<string, Set<string>>();
  for (const r of rows) {
    const v = key(r);
    const set = configs.get(v);
    if (set === undefined) configs.set(v, new Set([r.configKey]));
    else set.add(r.configKey);
  }
  return [...configs.entries()]
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([value, set]) => ({ value, label: label(value), configs: set.size }));
}

/** The selected value when it has data, else the one with the most configs (ties: the first). */
function pick(selected: string | undefined, opts: readonly FilterOption[]): string | null {
  if (selected !== undefined && opts.some((o) => o.value === selected)) return selected;
  let best: FilterOption | null = null;
  for (const o of opts) if (best === null || o.configs > best.configs) best = o;
  return best?.value ?? null;
}

const keep = (selected: readonly string[] | undefined, available: ReadonlySet<string>): string[] =>
  [...new Set(selected ?? [])].filter((v) => available.has(v));

const matches = (r: AvailabilityRow, field: ListField, values: readonly string[]) =>
  values.length === 0 || values.includes(r[field]);

const valuesOf = (rows: readonly AvailabilityRow[], field: ListField) => new Set(rows.map((r) => r[field]));

export function resolveFilters(a: Availability, q: FiltersQuery): FiltersResponse {
  const runById = new Map(a.runs.map((r) => [r.runId, r]));
  const withData = new Set(a.rows.map((r) => r.runId));
  const statusRuns = new Map<RunStatus, number>();
  for (const r of a.runs)
    if (withData.has(r.runId)) statusRuns.set(r.status, (statusRuns.get(r.status) ?? 0) + 1);

  const run = q.run !== undefined && withData.has(q.run) ? runById.get(q.run) : undefined;
  const status: RunStatus =
    run?.status ??
    (q.status !== undefined && statusRuns.has(q.status)
      ? q.status
      : (RUN_STATUSES.find((s) => statusRuns.has(s)) ?? q.status ?? 'official'));
  const statusRows = a.rows.filter((r) => runById.get(r.runId)?.status === status);
  const scope = run ? statusRows.filter((r) => r.runId === run.runId) : statusRows;

  const modelOptions = options(scope, (r) => r.model, LABEL.model);
  const model = pick(q.model, modelOptions);
  const modelRows = scope.filter((r) => r.model === model);
  const workloadOptions = options(
    modelRows,
    (r) => workloadValue(r.isl, r.osl),
    (v) => v,
  ).map((o) => {
    const [isl, osl] = o.value.split('/').map(Number) as [number, number];
    return { ...o, label: `${kTokens(isl)}/${kTokens(osl)}`, isl, osl };
  });
  const wanted = q.isl !== undefined && q.osl !== undefined ? workloadValue(q.isl, q.osl) : undefined;
  const workload = workloadOptions.find((o) => o.value === pick(wanted, workloadOptions)) ?? null;
  const base = modelRows.filter((r) => workload !== null && r.isl === workload.isl && r.osl === workload.osl);

  // Lists: pruned in order (each against the ones before), then against each other.
  const cascade: Record<ListField, string[]> = { precision: [], hardware: [], framework: [] };
  let narrowed = base;
  for (const f of LISTS) {
    cascade[f] = keep(q[f], valuesOf(narrowed, f));
    narrowed = narrowed.filter((r) => matches(r, f, cascade[f]));
  }
  const others = (f: ListField, sel: Record<ListField, string[]>) =>
    base.filter((r) => LISTS.every((g) => g === f || matches(r, g, sel[g])));
  const selected = {} as Record<ListField, string[]>;
  for (const f of LISTS) selected[f] = keep(cascade[f], valuesOf(others(f, cascade), f));

  const measured = new Set(
    statusRows
      .filter(
        (r) => r.model === model && workload !== null && r.isl === workload.isl && r.osl === workload.osl,
      )
      .map((r) => r.runId),
  );
  const chosen = others('precision', selected).filter((r) => matches(r, 'precision', selected.precision));
  return {
    selection: {
      status,
      run: run?.runId ?? null,
      model,
      isl: workload?.isl ?? null,
      osl: workload?.osl ?? null,
      ...selected,
    },
    options: {
      status: RUN_STATUSES.filter((s) => statusRuns.has(s)).map((s) => ({
        value: s,
        label: s,
        configs: statusRuns.get(s) ?? 0,
      })),
      run: a.runs
        .filter((r) => r.status === status && measured.has(r.runId))
        .map((r) => ({
          runId: r.runId,
          createdAt: r.createdAt,
          status: r.status,
          planned: r.planned,
          ingested: r.ingested,
          failed: r.failed,
          missing: r.missing,
          engine: r.engine,
        })),
      model: modelOptions,
      workload: workloadOptions,
      precision: options(others('precision', selected), (r) => r.precision, LABEL.precision),
      hardware: options(others('hardware', selected), (r) => r.hardware, LABEL.hardware),
      framework: options(others('framework', selected), (r) => r.framework, LABEL.framework),
    },
    configs: new Set(chosen.map((r) => r.configKey)).size,
  };
}

/**
 * The availability rows, reloaded only when the store changed (its signature: a query on the small runs
 * table). Concurrent requests share one reload.
 */
export class AvailabilityCache {
  private signature: string | null = null;
  private value: Promise<Availability> | null = null;

  constructor(private readonly store: Store) {}

  async get(): Promise<Availability> {
    const sig = await storeSignature(this.store);
    if (this.value === null || sig !== this.signature) {
      this.signature = sig;
      this.value = Promise.all([availabilityRows(this.store), runs(this.store)]).then(([rows, list]) => ({
        rows,
        runs: list,
      }));
      this.value.catch(() => {
        this.signature = null;
      });
    }
    return this.value;
  }
}
