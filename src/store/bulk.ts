import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Backend } from './db.ts';
import { type Database, PRIMARY_KEYS, type TableName } from './tables.ts';

/**
 * Bulk inserts and upserts for ingest. PostgreSQL: multi-row statements of a few hundred rows each, so a
 * 10,000-point run is a few dozen round trips. SQLite (in process, no round trips): one cached prepared
 * statement per table, run once per row on the connection itself — faster than preparing and binding
 * large multi-row statements. The SQL is written here, not built by Kysely's builder, whose per-value node
 * objects cost more than the insert itself at this volume.
 */

/** Where writes go: a Kysely handle (a transaction's, usually) and, on SQLite, the same connection raw. */
export interface WriteTarget {
  db: Kysely<Database>;
  backend: Backend;
  sqlite?: SqliteConnection | undefined;
}

/** Bound parameters per PostgreSQL statement: well below its limit of 65,535. */
const MAX_PARAMS = 30_000;

export type OnConflict = 'update' | 'nothing' | 'error';

export const q = (name: string) => `"${name}"`;

const statements = new WeakMap<SqliteConnection, Map<string, Statement<unknown[]>>>();

function prepared(sqlite: SqliteConnection, text: string): Statement<unknown[]> {
  let cache = statements.get(sqlite);
  if (!cache) {
    cache = new Map();
    statements.set(sqlite, cache);
  }
  let stmt = cache.get(text);
  if (!stmt) {
    stmt = sqlite.prepare<unknown[]>(text);
    cache.set(text, stmt);
  }
  return stmt;
}

export async function bulkWrite<T extends TableName>(
  t: WriteTarget,
  table: T,
  rows: readonly Database[T][],
  onConflict: OnConflict,
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const cols = Object.keys(first) as (keyof Database[T] & string)[];
  const pk = PRIMARY_KEYS[table] as readonly string[];
  const update = cols.filter((c) => !pk.includes(c));
  const tail =
    onConflict === 'error'
      ? ''
      : ` on conflict (${pk.map(q).join(', ')}) do ${
          onConflict === 'nothing' || update.length === 0
            ? 'nothing'
            : `update set ${update.map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')}`
        }`;
  await insertRows(t, table, cols, rows, tail);
}

/** `insert into TABLE (COLS) values (…)` + `tail` for every row (see the file comment for how). */
export async function insertRows<T extends TableName>(
  t: WriteTarget,
  table: T,
  cols: readonly (keyof Database[T] & string)[],
  rows: readonly Database[T][],
  tail: string,
): Promise<void> {
  if (rows.length === 0) return;
  const head = `insert into ${q(table)} (${cols.map(q).join(', ')}) values `;
  if (t.backend === 'sqlite' && t.sqlite) {
    const stmt = prepared(t.sqlite, `${head}(${cols.map(() => '?').join(', ')})${tail}`);
    const params: unknown[] = new Array(cols.length);
    for (const row of rows) {
      for (let i = 0; i < cols.length; i++) params[i] = row[cols[i]!];
      stmt.run(params);
    }
    return;
  }
  // At most 1,000 rows a statement too, so a batch of large values (result.json text) stays a few MB.
  const perBatch = Math.max(1, Math.min(1000, Math.floor(MAX_PARAMS / cols.length)));
  for (let start = 0; start < rows.length; start += perBatch) {
    const batch = rows.slice(start, start + perBatch);
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (const row of batch) {
      const marks: string[] = [];
      for (const c of cols) {
        params.push(row[c]);
        marks.push(t.backend === 'postgres' ? `$${params.length}` : '?');
      }
      tuples.push(`(${marks.join(', ')})`);
    }
    await t.db.executeQuery(CompiledQuery.raw(head + tuples.join(', ') + tail, params));
  }
}
