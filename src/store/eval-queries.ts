import type { EvalSample, EvalSamplesQuery, EvalsQuery } from '../schema/web-evals.ts';
import { type Db, kysely } from './queries.ts';
import type { ConfigsTable, EvalSamplesTable, PointEvalsTable } from './tables.ts';

/**
 * Reads of the stored eval verdicts and samples for the dashboard's evaluation page: verdicts with their
 * config and run (newest run first), and a page of one verdict's samples by filter.
 */

export interface StoredVerdict {
  row: PointEvalsTable;
  config: ConfigsTable;
  runStatus: string;
  runCreatedAt: string;
}

export async function storedVerdicts(d: Db, q: EvalsQuery & { point?: string }): Promise<StoredVerdict[]> {
  let query = kysely(d)
    .selectFrom('point_evals as e')
    .innerJoin('configs as c', 'c.config_key', 'e.config_key')
    .innerJoin('runs as r', 'r.run_id', 'e.run_id')
    .selectAll('e')
    .select(['r.status as run_status', 'r.created_at as run_created_at'])
    .orderBy('r.created_at', 'desc')
    .orderBy('e.run_id')
    .orderBy('e.point_id');
  if (q.run !== undefined) query = query.where('e.run_id', '=', q.run);
  if (q.point !== undefined) query = query.where('e.point_id', '=', q.point);
  if (q.model !== undefined) query = query.where('c.model', '=', q.model);
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const keys = [...new Set(rows.map((r) => r.config_key))];
  const configs = await kysely(d).selectFrom('configs').selectAll().where('config_key', 'in', keys).execute();
  const byKey = new Map(configs.map((c) => [c.config_key, c]));
  return rows.map(({ run_status, run_created_at, ...row }) => ({
    row: row as PointEvalsTable,
    config: byKey.get(row.config_key)!,
    runStatus: run_status,
    runCreatedAt: run_created_at,
  }));
}

/** A run's stored evals and how many fell below their threshold. */
export async function runEvalCounts(d: Db, runId: string): Promise<{ total: number; below: number }> {
  const rows = await kysely(d)
    .selectFrom('point_evals')
    .select(['pass', (eb) => eb.fn.countAll<number>().as('n')])
    .where('run_id', '=', runId)
    .groupBy('pass')
    .execute();
  let total = 0;
  let below = 0;
  for (const r of rows) {
    total += Number(r.n);
    if (r.pass === 0) below += Number(r.n);
  }
  return { total, below };
}

export async function storedSamples(
  d: Db,
  runId: string,
  pointId: string,
  q: EvalSamplesQuery,
): Promise<{ total: number; samples: EvalSample[] }> {
  let base = kysely(d).selectFrom('eval_samples').where('run_id', '=', runId).where('point_id', '=', pointId);
  if (q.filter === 'wrong')
    base = base.where((eb) => eb.or([eb('strict_correct', '=', 0), eb('flexible_correct', '=', 0)]));
  if (q.filter === 'failed') base = base.where('status', 'in', ['failed', 'empty']);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    base.selectAll().orderBy('doc_id').limit(q.limit).offset(q.offset).execute(),
  ]);
  return { total: Number(count?.n ?? 0), samples: rows.map(toSample) };
}

const toSample = (s: EvalSamplesTable): EvalSample => ({
  docId: s.doc_id,
  status: s.status as EvalSample['status'],
  question: s.question,
  target: s.target,
  response: s.response,
  finishReason: s.finish_reason,
  strictAnswer: s.strict_answer,
  flexibleAnswer: s.flexible_answer,
  strictCorrect: s.strict_correct === 1,
  flexibleCorrect: s.flexible_correct === 1,
  tries: s.tries,
  error: s.error,
});
