import { type Kysely, sql } from 'kysely';
import { insertRows, q, type WriteTarget } from './bulk.ts';
import type { Database, ResultsTable } from './tables.ts';

/**
 * `latest_results`: the newest official result per (config, concurrency) — a copy of its hot row — kept up
 * to date at ingest, so the dashboard's default chart reads configs and this table only (the reference's
 * `latest_benchmarks` materialized view). Newest means the latest run creation time; ties go to the larger
 * run id, then point id. A stale point stays latest until its config is measured again (dashboard-spec §8
 * pitfall 19): charts can filter by date.
 */

const newer = (a: ResultsTable, b: ResultsTable) =>
  a.run_created_at !== b.run_created_at
    ? a.run_created_at > b.run_created_at
    : a.run_id !== b.run_id
      ? a.run_id > b.run_id
      : a.point_id > b.point_id;

/** Offers results of an official run as the latest of their (config, concurrency); newer ones stay. */
export async function offerLatest(t: WriteTarget, results: readonly ResultsTable[]): Promise<void> {
  // One row per key per statement: PostgreSQL refuses to update the same row twice in one upsert.
  const best = new Map<string, ResultsTable>();
  for (const r of results) {
    const key = `${r.config_key}\u0000${r.conc}`;
    const seen = best.get(key);
    if (!seen || newer(r, seen)) best.set(key, r);
  }
  const first = results[0];
  if (!first) return;
  const cols = Object.keys(first) as (keyof ResultsTable & string)[];
  const l = 'latest_results';
  const set = cols
    .filter((c) => c !== 'config_key' && c !== 'conc')
    .map((c) => `${q(c)} = excluded.${q(c)}`)
    .join(', ');
  const tail =
    ` on conflict (config_key, conc) do update set ${set}` +
    ` where excluded.run_created_at > ${l}.run_created_at` +
    ` or (excluded.run_created_at = ${l}.run_created_at and (excluded.run_id > ${l}.run_id` +
    ` or (excluded.run_id = ${l}.run_id and excluded.point_id >= ${l}.point_id)))`;
  // Key order: concurrent ingests take the rows' locks in the same order (see writeRun).
  const rows = [...best.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  await insertRows(t, l, cols, rows, tail);
}

/**
 * Recomputes the latest result of every (config, concurrency) the run measured, from all official runs:
 * after a run's status changed (e.g. staged → official, or official → unofficial).
 */
export async function rebuildLatestFor(
  db: Kysely<Database>,
  runId: string,
  columns: readonly string[],
): Promise<void> {
  const cols = sql.raw(columns.map(q).join(', '));
  await sql`
    delete from latest_results where exists (
      select 1 from results x
      where x.run_id = ${runId} and x.config_key = latest_results.config_key and x.conc = latest_results.conc)
  `.execute(db);
  await sql`
    insert into latest_results (${cols})
    select ${cols} from (
      select r.*,
        row_number() over (
          partition by r.config_key, r.conc
          order by r.run_created_at desc, r.run_id desc, r.point_id desc) as rn
      from results r join runs u on u.run_id = r.run_id
      where u.status = 'official' and exists (
        select 1 from results x where x.run_id = ${runId} and x.config_key = r.config_key and x.conc = r.conc)
    ) ranked
    where rn = 1
  `.execute(db);
}
