import { type Kysely, sql } from 'kysely';
import type { AgenticCurvePoint } from '../schema/agentic-curve.ts';
import type { CurveMetrics } from '../schema/curve.ts';
import type { RunStatus } from '../schema/store.ts';
import { agenticMetrics, curveMetrics } from './hot.ts';
import { configOf, type Db, engineOf } from './queries.ts';
import type { ConfigsTable, Database, ResultsTable } from './tables.ts';

/**
 * Agentic-coding points for the dashboard: from the hot columns (result.json is not read), with their
 * agentic_traces config. The fixed-seq-len queries (queries.ts, web-queries.ts) leave these configs out.
 */

const kysely = (d: Db): Kysely<Database> => ('db' in d ? d.db : d);

/** A run's agentic points, or the newest per (config, users) among the runs of one status. */
export type AgenticQuery = { runId: string } | { status: RunStatus; model?: string | undefined };

type Row = ResultsTable & ConfigsTable & { result_engine: string };

export function toAgenticPoint(r: Row): AgenticCurvePoint {
  const { isl: _isl, osl: _osl, ...deployment } = configOf(r);
  return {
    runId: r.run_id,
    pointId: r.point_id,
    attempt: r.attempt,
    configKey: r.config_key,
    config: { ...deployment, benchmarkType: 'agentic_traces', kvOffload: r.kv_offload ?? 'none' },
    engine: engineOf({ engine_kind: r.result_engine, simulator: r.simulator }),
    users: r.conc,
    gpus: r.gpus,
    image: r.image,
    createdAt: r.run_created_at,
    valid: r.valid === 1,
    metrics: agenticMetrics(r),
  };
}

export async function agenticPoints(d: Db, q: AgenticQuery): Promise<AgenticCurvePoint[]> {
  const db = kysely(d);
  let keys = db
    .selectFrom('results as r')
    .innerJoin('configs as c', 'c.config_key', 'r.config_key')
    .select(['r.run_id', 'r.point_id'])
    .where('c.benchmark_type', '=', 'agentic_traces');
  if ('runId' in q) keys = keys.where('r.run_id', '=', q.runId);
  const ranked =
    'runId' in q
      ? keys.select(sql<number>`1`.as('rn'))
      : keys
          .innerJoin('runs as u', 'u.run_id', 'r.run_id')
          .where('u.status', '=', q.status)
          .$if(q.model !== undefined, (b) => b.where('c.model', '=', q.model!))
          .select(
            sql<number>`row_number() over (partition by r.config_key, r.conc order by r.run_created_at desc, r.run_id desc, r.point_id desc)`.as(
              'rn',
            ),
          );
  const rows = await db
    .selectFrom(ranked.as('k'))
    .innerJoin('results as r', (j) =>
      j.onRef('r.run_id', '=', 'k.run_id').onRef('r.point_id', '=', 'k.point_id'),
    )
    .innerJoin('configs as c', 'c.config_key', 'r.config_key')
    .selectAll('c')
    .selectAll('r')
    .select('r.engine_kind as result_engine')
    .where('k.rn', '=', 1)
    .orderBy('c.config_key')
    .orderBy('r.conc')
    .orderBy('r.point_id')
    .execute();
  return (rows as unknown as Row[]).map(toAgenticPoint);
}

/**
 * The headline metrics (as any point's, from the hot columns) of a run's agentic points, by point id: what
 * the run page's table shows beside its fixed-seq-len points. Throughput per GPU and TTFT p90 are the
 * agentic block's (src/store/hot.ts).
 */
export async function agenticRunMetrics(d: Db, runId: string): Promise<Map<string, CurveMetrics>> {
  const rows = await kysely(d)
    .selectFrom('results as r')
    .innerJoin('configs as c', 'c.config_key', 'r.config_key')
    .selectAll('r')
    .where('r.run_id', '=', runId)
    .where('c.benchmark_type', '=', 'agentic_traces')
    .execute();
  return new Map(rows.map((r) => [r.point_id, curveMetrics(r)]));
}
