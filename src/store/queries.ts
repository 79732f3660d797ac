import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { ConfigIdentity, CurvePoint, EngineKind, Pool } from '../schema/curve.ts';
import type { PointResult } from '../schema/point-result.ts';
import type { PointPhase, RunProvenance } from '../schema/run-dir.ts';
import type { PointOutcome, RunEngine, RunStatus, StoredRun } from '../schema/store.ts';
import { curveMetrics, HOT_COLUMNS } from './hot.ts';
import type { ConfigsTable, Database, ResultsTable, RunsTable } from './tables.ts';

/**
 * Read queries for analysis and the web layer. Points come back as CurvePoint (src/schema/curve.ts), built
 * from the hot columns only (result.json is not read). Every function takes the Kysely handle or the Store.
 */

export type Db = Kysely<Database> | { readonly db: Kysely<Database> };
export const kysely = (d: Db): Kysely<Database> => ('db' in d ? d.db : d);

/** A run's points (`runId`), or the latest official result per (config, concurrency), optionally of some configs. */
export type CurveQuery = { runId: string } | { official: true; configKeys?: readonly string[] | undefined };

/** The dashboard's default chart: the latest official results of the configs of one workload. */
export interface ChartQuery {
  isl: number;
  osl: number;
  model?: string | undefined;
  /** Base GPU keys (h200, mi355x…); all when absent. */
  hardware?: readonly string[] | undefined;
  configKeys?: readonly string[] | undefined;
}

type PointRow = Pick<ResultsTable, 'run_id' | 'point_id' | 'attempt' | 'config_key' | 'conc' | 'gpus'> &
  Pick<ResultsTable, 'image' | 'run_created_at' | 'valid' | 'engine_kind' | 'simulator'> &
  Pick<ResultsTable, (typeof HOT_COLUMNS)[number]>;

const POINT_COLUMNS = [
  'r.run_id',
  'r.point_id',
  'r.attempt',
  'r.config_key',
  'r.conc',
  'r.gpus',
  'r.image',
  'r.run_created_at',
  'r.valid',
  'r.engine_kind',
  'r.simulator',
  ...HOT_COLUMNS.map((c) => `r.${c}` as const),
] as const;

function pool(c: ConfigsTable, p: 'prefill' | 'decode'): Pool {
  const v = c as unknown as Record<string, number>;
  return {
    tp: v[`${p}_tp`]!,
    ep: v[`${p}_ep`]!,
    dpAttn: v[`${p}_dp_attn`] === 1,
    pp: v[`${p}_pp`]!,
    dcp: v[`${p}_dcp`]!,
    pcp: v[`${p}_pcp`]!,
    workers: v[`${p}_workers`]!,
    gpus: v[`${p}_gpus`]!,
  };
}

export function configOf(c: ConfigsTable): ConfigIdentity {
  return {
    model: c.model,
    hardware: c.hardware,
    framework: c.framework,
    precision: c.precision,
    specDecoding: c.spec_decoding,
    disagg: c.disagg === 1,
    multiNode: c.multi_node === 1,
    prefill: pool(c, 'prefill'),
    decode: pool(c, 'decode'),
    isl: c.isl,
    osl: c.osl,
  };
}

/** A result row's engine, as CurvePoint carries it. */
export const engineOf = (r: Pick<ResultsTable, 'engine_kind' | 'simulator'>) => ({
  kind: r.engine_kind as EngineKind,
  simulator: r.simulator,
});

/** A run's engine from its counts of simulated and real results. */
export const runEngine = (simulated: number, real: number): RunEngine => ({
  kind: simulated + real === 0 ? null : real === 0 ? 'simulated' : simulated === 0 ? 'real' : 'mixed',
  simulated,
  real,
});

const toCurvePoint = (r: PointRow, config: ConfigIdentity): CurvePoint => ({
  runId: r.run_id,
  pointId: r.point_id,
  attempt: r.attempt,
  configKey: r.config_key,
  config,
  engine: engineOf(r),
  conc: r.conc,
  gpus: r.gpus,
  image: r.image,
  createdAt: r.run_created_at,
  valid: r.valid === 1,
  metrics: curveMetrics(r),
});

// biome-ignore lint/suspicious/noExplicitAny: the joined aliases are typed by the callers' from clauses.
type Joined = SelectQueryBuilder<any, any, object>;

const selectPoints = (q: Joined) =>
  q.select(POINT_COLUMNS).orderBy('r.config_key').orderBy('r.conc').orderBy('r.point_id');

/** In chunks, so a long key list never exceeds a driver's parameter limit. */
async function inChunks<T>(keys: readonly string[], run: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < keys.length; i += 5000) out.push(...(await run(keys.slice(i, i + 5000))));
  return out;
}

/**
 * Curve points from result rows, their configs fetched once per config rather than joined onto every row
 * (a chart's 1,000 points have 100 configs; building wide rows cost more than the query).
 */
async function withConfigs(db: Kysely<Database>, rows: readonly PointRow[]): Promise<CurvePoint[]> {
  const keys = [...new Set(rows.map((r) => r.config_key))];
  const configs = await inChunks(keys, (chunk) =>
    db.selectFrom('configs').selectAll().where('config_key', 'in', chunk).execute(),
  );
  // Fixed-seq-len curves only: an agentic_traces config has no lengths (src/store/agentic-queries.ts reads it).
  const byKey = new Map(
    configs.filter((c) => c.benchmark_type === 'fixed_seq_len').map((c) => [c.config_key, configOf(c)]),
  );
  return rows.flatMap((r) => {
    const config = byKey.get(r.config_key);
    return config === undefined ? [] : [toCurvePoint(r, config)];
  });
}

export async function curvePoints(d: Db, q: CurveQuery): Promise<CurvePoint[]> {
  const db = kysely(d);
  if ('runId' in q) {
    const rows = await selectPoints(db.selectFrom('results as r') as unknown as Joined)
      .where('r.run_id', '=', q.runId)
      .execute();
    return withConfigs(db, rows as PointRow[]);
  }
  const query = () => selectPoints(db.selectFrom('latest_results as r') as unknown as Joined);
  const rows = q.configKeys
    ? await inChunks(q.configKeys, (keys) => query().where('r.config_key', 'in', keys).execute())
    : await query().execute();
  return withConfigs(db, rows as PointRow[]);
}

/** The main chart query: latest official results of a workload's configs, by model, hardware or key. */
export async function chartPoints(d: Db, q: ChartQuery): Promise<CurvePoint[]> {
  const db = kysely(d);
  if (q.configKeys !== undefined && q.configKeys.length === 0) return [];
  let query = selectPoints(
    db
      .selectFrom('configs as c')
      .innerJoin('latest_results as r', 'r.config_key', 'c.config_key') as unknown as Joined,
  )
    .where('c.isl', '=', q.isl)
    .where('c.osl', '=', q.osl);
  if (q.model !== undefined) query = query.where('c.model', '=', q.model);
  if (q.hardware !== undefined && q.hardware.length > 0) query = query.where('c.hardware', 'in', q.hardware);
  if (q.configKeys !== undefined) query = query.where('c.config_key', 'in', q.configKeys);
  return withConfigs(db, (await query.execute()) as PointRow[]);
}

/** Results of some configs across runs: what `infx compare` measures the run-to-run spread from. */
export interface ConfigResultsQuery {
  configKeys: readonly string[];
  /** Runs left out (the run compared). */
  excludeRunIds?: readonly string[] | undefined;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Every stored result of the configs `configKeys` (each run's chosen attempt per point), of runs of any
 * status apart from `excludeRunIds`, ordered by config key, concurrency, run creation time and run id
 * (ordered here, by code unit, so both databases agree whatever their collation).
 */
export async function configResults(d: Db, q: ConfigResultsQuery): Promise<CurvePoint[]> {
  const db = kysely(d);
  if (q.configKeys.length === 0) return [];
  const exclude = [...new Set(q.excludeRunIds ?? [])];
  const rows = await inChunks([...new Set(q.configKeys)], (keys) =>
    selectPoints(db.selectFrom('results as r') as unknown as Joined)
      .where('r.config_key', 'in', keys)
      .$if(exclude.length > 0, (b) => b.where('r.run_id', 'not in', exclude))
      .execute(),
  );
  const sorted = (rows as PointRow[]).sort(
    (a, b) =>
      byText(a.config_key, b.config_key) ||
      a.conc - b.conc ||
      byText(a.run_created_at, b.run_created_at) ||
      byText(a.run_id, b.run_id) ||
      byText(a.point_id, b.point_id),
  );
  return withConfigs(db, sorted);
}

const toRun = (r: RunsTable): StoredRun => ({
  runId: r.run_id,
  createdAt: r.created_at,
  infxVersion: r.infx_version,
  host: r.host,
  sourceKind: r.source_kind as StoredRun['sourceKind'],
  sourceFiles: JSON.parse(r.source_files) as StoredRun['sourceFiles'],
  executor: r.executor,
  seed: r.seed,
  status: r.status as RunStatus,
  ingestedAt: r.ingested_at,
  planned: r.planned_points,
  ingested: r.ingested_points,
  failed: r.failed_points,
  missing: r.missing_points,
  engine: runEngine(r.simulated_results, r.real_results),
  provenance: r.provenance_json === null ? null : (JSON.parse(r.provenance_json) as RunProvenance),
  sweepActive: r.sweep_active === 1,
});

const RUN_COLUMNS = [
  'run_id',
  'created_at',
  'infx_version',
  'host',
  'source_kind',
  'source_files',
  'executor',
  'seed',
  'status',
  'ingested_at',
  'planned_points',
  'ingested_points',
  'failed_points',
  'missing_points',
  'simulated_results',
  'real_results',
  'provenance_json',
  'pr_number',
  'sweep_active',
] as const;

/** Stored runs, newest first. */
export async function runs(d: Db, opts: { status?: RunStatus } = {}): Promise<StoredRun[]> {
  let q = kysely(d).selectFrom('runs').select(RUN_COLUMNS);
  if (opts.status) q = q.where('status', '=', opts.status);
  const rows = await q.orderBy('created_at', 'desc').orderBy('run_id', 'desc').execute();
  return rows.map((r) => toRun(r as RunsTable));
}

/** Stored runs made for pull request `pr`, newest first (reuse's unpinned choice). */
export async function runsOfPr(d: Db, pr: number): Promise<StoredRun[]> {
  const rows = await kysely(d)
    .selectFrom('runs')
    .select(RUN_COLUMNS)
    .where('pr_number', '=', pr)
    .orderBy('created_at', 'desc')
    .orderBy('run_id', 'desc')
    .execute();
  return rows.map((r) => toRun(r as RunsTable));
}

export async function runById(d: Db, runId: string): Promise<StoredRun | undefined> {
  const r = await kysely(d)
    .selectFrom('runs')
    .select(RUN_COLUMNS)
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return r && toRun(r as RunsTable);
}

export interface StoredPointOutcome {
  pointId: string;
  configKey: string;
  conc: number;
  outcome: PointOutcome;
  attempt: number | null;
  attempts: number;
  phase: PointPhase | null;
  reason: string | null;
}

/** Every planned point of a run with its outcome: failed and missing points included, with phase and reason. */
export async function pointOutcomes(d: Db, runId: string): Promise<StoredPointOutcome[]> {
  const rows = await kysely(d)
    .selectFrom('points')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('point_index')
    .execute();
  return rows.map((p) => ({
    pointId: p.point_id,
    configKey: p.config_key,
    conc: p.conc,
    outcome: p.outcome as PointOutcome,
    attempt: p.chosen_attempt,
    attempts: p.attempts,
    phase: p.phase as PointPhase | null,
    reason: p.reason,
  }));
}

/** The whole result.json a point's result was ingested from (as stored), or undefined. */
export async function storedResult(d: Db, runId: string, pointId: string): Promise<PointResult | undefined> {
  const r = await kysely(d)
    .selectFrom('result_documents')
    .select('result_json')
    .where('run_id', '=', runId)
    .where('point_id', '=', pointId)
    .executeTakeFirst();
  return r && (JSON.parse(r.result_json) as PointResult);
}

/** Stored runs of pull requests ingested at or after `since` (ISO), oldest first: what the bot announces. */
export async function prRunsIngestedSince(d: Db, since: string): Promise<StoredRun[]> {
  const rows = await kysely(d)
    .selectFrom('runs')
    .select(RUN_COLUMNS)
    .where('pr_number', 'is not', null)
    .where('ingested_at', '>=', since)
    .orderBy('ingested_at', 'asc')
    .orderBy('run_id', 'asc')
    .execute();
  return rows.map((r) => toRun(r as RunsTable));
}
