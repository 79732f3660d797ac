import { type Kysely, sql } from 'kysely';
import type { CurvePoint } from '../schema/curve.ts';
import type { RunStatus } from '../schema/store.ts';
import { curveMetrics, HOT_COLUMNS } from './hot.ts';
import { configOf, type Db, engineOf } from './queries.ts';
import type { AttemptsTable, ConfigsTable, Database, PointsTable, ResultsTable } from './tables.ts';

/**
 * Read queries the dashboard (src/web) needs beyond src/store/queries.ts: the availability of filter values,
 * a cheap signature of the store's content (to cache what is derived from it), the latest results among
 * unofficial or staged runs, and a run's planned points with their attempts.
 */

const kysely = (d: Db): Kysely<Database> => ('db' in d ? d.db : d);

/**
 * Changes whenever an ingest changed something: runs are rewritten (with a new ingested_at and counts) by
 * every ingest that adds or changes a point, an attempt or the run's status.
 */
export async function storeSignature(d: Db): Promise<string> {
  const r = await kysely(d)
    .selectFrom('runs')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.max('ingested_at').as('at'),
      eb.fn.sum<number>('ingested_points').as('ingested'),
      eb.fn.sum<number>('failed_points').as('failed'),
      eb.fn.sum<number>(sql<number>`case when status = 'official' then 1 else 0 end`).as('official'),
      eb.fn.sum<number>(sql<number>`case when status = 'staged' then 1 else 0 end`).as('staged'),
    ])
    .executeTakeFirstOrThrow();
  return [r.n, r.at, r.ingested, r.failed, r.official, r.staged].map((v) => String(v ?? '')).join('|');
}

/** One config measured in one run: the rows the dashboard's filters are computed from. */
export interface AvailabilityRow {
  configKey: string;
  runId: string;
  model: string;
  isl: number;
  osl: number;
  precision: string;
  hardware: string;
  framework: string;
}

/** Every fixed-seq-len (config, run) with at least one stored result (agentic configs have no lengths). */
export async function availabilityRows(d: Db): Promise<AvailabilityRow[]> {
  const rows = await kysely(d)
    .selectFrom((eb) => eb.selectFrom('results').select(['config_key', 'run_id']).distinct().as('x'))
    .innerJoin('configs as c', 'c.config_key', 'x.config_key')
    .where('c.benchmark_type', '=', 'fixed_seq_len')
    .select([
      'x.config_key',
      'x.run_id',
      'c.model',
      'c.isl',
      'c.osl',
      'c.precision',
      'c.hardware',
      'c.framework',
    ])
    .execute();
  return rows.map((r) => ({
    configKey: r.config_key,
    runId: r.run_id,
    model: r.model,
    isl: r.isl,
    osl: r.osl,
    precision: r.precision,
    hardware: r.hardware,
    framework: r.framework,
  }));
}

type PointRow = Pick<ResultsTable, 'run_id' | 'point_id' | 'attempt' | 'conc' | 'gpus' | 'image'> &
  Pick<ResultsTable, 'run_created_at' | 'valid' | 'simulator' | (typeof HOT_COLUMNS)[number]> &
  ConfigsTable & { result_engine: string };

const toCurvePoint = (r: PointRow): CurvePoint => ({
  runId: r.run_id,
  pointId: r.point_id,
  attempt: r.attempt,
  configKey: r.config_key,
  config: configOf(r),
  engine: engineOf({ engine_kind: r.result_engine, simulator: r.simulator }),
  conc: r.conc,
  gpus: r.gpus,
  image: r.image,
  createdAt: r.run_created_at,
  valid: r.valid === 1,
  metrics: curveMetrics(r),
});

export interface LatestQuery {
  isl?: number | undefined;
  osl?: number | undefined;
  model?: string | undefined;
}

/**
 * The newest result per (config, concurrency) among the runs of one status (what `latest_results` keeps for
 * official runs): newest run creation time, then the larger run id, then point id, as latest_results.
 */
export async function latestPointsOfStatus(
  d: Db,
  status: RunStatus,
  q: LatestQuery = {},
): Promise<CurvePoint[]> {
  const db = kysely(d);
  const ranked = db
    .selectFrom('results as r')
    .innerJoin('runs as u', 'u.run_id', 'r.run_id')
    .innerJoin('configs as c', 'c.config_key', 'r.config_key')
    .select(['r.run_id', 'r.point_id'])
    .select(
      sql<number>`row_number() over (partition by r.config_key, r.conc order by r.run_created_at desc, r.run_id desc, r.point_id desc)`.as(
        'rn',
      ),
    )
    .where('u.status', '=', status)
    .where('c.benchmark_type', '=', 'fixed_seq_len')
    .$if(q.isl !== undefined, (b) => b.where('c.isl', '=', q.isl!).where('c.osl', '=', q.osl!))
    .$if(q.model !== undefined, (b) => b.where('c.model', '=', q.model!));
  const rows = await db
    .selectFrom(ranked.as('k'))
    .innerJoin('results as r', (j) =>
      j.onRef('r.run_id', '=', 'k.run_id').onRef('r.point_id', '=', 'k.point_id'),
    )
    .innerJoin('configs as c', 'c.config_key', 'r.config_key')
    .select([
      'r.run_id',
      'r.point_id',
      'r.attempt',
      'r.conc',
      'r.gpus',
      'r.image',
      'r.run_created_at',
      'r.valid',
      'r.engine_kind as result_engine',
      'r.simulator',
      ...HOT_COLUMNS.map((c) => `r.${c}` as const),
    ])
    .selectAll('c')
    .where('k.rn', '=', 1)
    .orderBy('c.config_key')
    .orderBy('r.conc')
    .orderBy('r.point_id')
    .execute();
  return (rows as PointRow[]).map(toCurvePoint);
}

export type RunPointRow = PointsTable &
  ConfigsTable & { valid: number | null; simulator: string | null; result_engine: string | null };

/**
 * Every planned point of a run with its config and (when a result is stored) its validity and engine, in
 * plan order.
 */
export async function runPointRows(d: Db, runId: string): Promise<RunPointRow[]> {
  const rows = await kysely(d)
    .selectFrom('points as p')
    .innerJoin('configs as c', 'c.config_key', 'p.config_key')
    .leftJoin('results as r', (j) =>
      j.onRef('r.run_id', '=', 'p.run_id').onRef('r.point_id', '=', 'p.point_id'),
    )
    .selectAll('c')
    .selectAll('p')
    .select(['r.valid', 'r.simulator', 'r.engine_kind as result_engine'])
    .where('p.run_id', '=', runId)
    .orderBy('p.point_index')
    .execute();
  return rows as RunPointRow[];
}

/** Every attempt of a run, by point and attempt number. */
export async function runAttempts(d: Db, runId: string): Promise<AttemptsTable[]> {
  return kysely(d)
    .selectFrom('attempts')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('point_id')
    .orderBy('attempt')
    .execute();
}

/** The stored manifest.json of a run (as ingested), or undefined. */
export async function runManifestJson(d: Db, runId: string): Promise<string | undefined> {
  const r = await kysely(d)
    .selectFrom('runs')
    .select('manifest_json')
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return r?.manifest_json;
}

/** One planned point of a run and the numbers of its attempts, or undefined when the run has no such point. */
export async function pointWithAttempts(
  d: Db,
  runId: string,
  pointId: string,
): Promise<{ point: PointsTable; attempts: number[] } | undefined> {
  const db = kysely(d);
  const point = await db
    .selectFrom('points')
    .selectAll()
    .where('run_id', '=', runId)
    .where('point_id', '=', pointId)
    .executeTakeFirst();
  if (point === undefined) return undefined;
  const attempts = await db
    .selectFrom('attempts')
    .select('attempt')
    .where('run_id', '=', runId)
    .where('point_id', '=', pointId)
    .orderBy('attempt')
    .execute();
  return { point, attempts: attempts.map((a) => a.attempt) };
}
