import type { RunRows } from '../src/store/rows.ts';

/**
 * Baselines measured in the same run as the store's figures: the plainest way a program could do the same
 * database work, straight on the driver. Ingest: an insert loop of the same rows, one prepared statement per
 * table, one row per execution, in one transaction (no file reading, no validation). Chart: one indexed
 * SELECT of the same rows, the newest run's, without the latest view, Kysely, or building curve points.
 */

type Row = Record<string, unknown>;
const tables = (r: RunRows): [string, Row[]][] => [
  ['runs', [{ ...r.run, status: 'official', ingested_at: r.run.created_at }]],
  ['configs', r.configs as unknown as Row[]],
  ['points', r.points as unknown as Row[]],
  ['attempts', r.attempts as unknown as Row[]],
  ['results', r.results as unknown as Row[]],
];

const insertSql = (table: string, cols: string[], pg: boolean) =>
  `insert into ${table} (${cols.join(', ')}) values (${cols.map((_, i) => (pg ? `$${i + 1}` : '?')).join(', ')})` +
  (table === 'configs' ? ' on conflict do nothing' : '');

/** Seconds to insert `rows` with the raw driver (into a fresh, migrated store). */
export async function rawInsert(rows: RunRows, raw: RawHandle): Promise<number> {
  const t0 = performance.now();
  if (raw.kind === 'sqlite') {
    const db = raw.db;
    db.transaction(() => {
      for (const [table, list] of tables(rows)) {
        if (list.length === 0) continue;
        const cols = Object.keys(list[0]!);
        const stmt = db.prepare(insertSql(table, cols, false));
        for (const row of list) stmt.run(cols.map((c) => row[c]));
      }
    })();
  } else {
    const client = await raw.pool.connect();
    try {
      await client.query('begin');
      for (const [table, list] of tables(rows)) {
        if (list.length === 0) continue;
        const cols = Object.keys(list[0]!);
        const text = insertSql(table, cols, true);
        for (const row of list)
          await client.query({ name: `ins_${table}`, text, values: cols.map((c) => row[c]) });
      }
      await client.query('commit');
    } finally {
      client.release();
    }
  }
  return (performance.now() - t0) / 1000;
}

const CHART_SQL = (pg: boolean) => {
  const p = (i: number) => (pg ? `$${i}` : '?');
  return (
    'select r.run_id, r.point_id, r.conc, r.tput_per_gpu, r.intvty_median, r.ttft_median_ms, r.e2el_median_ms ' +
    `from results r join configs c on c.config_key = r.config_key where r.run_id = ${p(1)} and c.isl = ${p(2)} ` +
    `and c.osl = ${p(3)} and c.model = ${p(4)}`
  );
};

/** One plain indexed SELECT of a chart's rows (the newest run holds them all); returns the row count. */
export async function rawChart(
  raw: RawHandle,
  runId: string,
  isl: number,
  osl: number,
  model: string,
): Promise<number> {
  if (raw.kind === 'sqlite') return raw.chart.all(runId, isl, osl, model).length;
  const r = await raw.pool.query({ name: 'chart', text: CHART_SQL(true), values: [runId, isl, osl, model] });
  return r.rowCount ?? 0;
}

export type RawHandle =
  | {
      kind: 'sqlite';
      db: import('better-sqlite3').Database;
      chart: import('better-sqlite3').Statement<unknown[]>;
    }
  | { kind: 'postgres'; pool: import('pg').Pool };

export async function rawHandle(url: string): Promise<RawHandle> {
  if (!/^postgres(ql)?:/.test(url)) {
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(url);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    return { kind: 'sqlite', db, chart: db.prepare(CHART_SQL(false)) };
  }
  const { default: pg } = await import('pg');
  return { kind: 'postgres', pool: new pg.Pool({ connectionString: url, max: 2 }) };
}

export async function closeRaw(raw: RawHandle): Promise<void> {
  if (raw.kind === 'sqlite') raw.db.close();
  else await raw.pool.end();
}
