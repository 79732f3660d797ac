import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { migrateToLatest } from './migrations.ts';
import type { Database } from './tables.ts';

/**
 * Opening the results store: a SQLite file (better-sqlite3, the default `.infx/infx.db`) or PostgreSQL
 * (a `pg` pool), from one `--db` URL. Opening applies pending migrations, so every command sees the
 * current schema. Each driver is loaded only when it is used.
 */

export const DEFAULT_DB = '.infx/infx.db';

export type Backend = 'sqlite' | 'postgres';
export type StoreUrl = { backend: 'sqlite'; path: string } | { backend: 'postgres'; url: string };

/** A store that cannot be opened. `usage`: the URL itself is wrong (exit 2), otherwise the database (exit 1). */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly backend: Backend;
  /** Where the store is, password redacted: safe to print. */
  readonly url: string;
  /** SQLite: the connection Kysely uses, for the bulk-write fast path (src/store/bulk.ts). */
  readonly sqlite?: import('better-sqlite3').Database | undefined;
  close(): Promise<void>;
}

const ACCEPTED =
  'a file path (e.g. .infx/infx.db), sqlite:PATH, or postgres://USER:PASSWORD@HOST:PORT/DATABASE (or postgresql://…)';

/** `--db` default: $INFX_DB, else `.infx/infx.db` in the working directory. */
export const defaultDbUrl = (env: NodeJS.ProcessEnv = process.env): string => env.INFX_DB || DEFAULT_DB;

export function parseStoreUrl(raw: string): StoreUrl {
  const s = raw.trim();
  if (s === '') throw new StoreError(`--db: empty database URL; give ${ACCEPTED}`, true);
  if (/^postgres(ql)?:\/\//i.test(s)) {
    try {
      new URL(s);
    } catch {
      throw new StoreError(`--db: '${redact(s)}' is not a valid URL; give ${ACCEPTED}`, true);
    }
    return { backend: 'postgres', url: s };
  }
  const sqlite = /^sqlite:(?:\/\/)?(.*)$/i.exec(s);
  if (sqlite) {
    const path = sqlite[1] ?? '';
    if (path === '') throw new StoreError(`--db: '${s}' names no file; give ${ACCEPTED}`, true);
    return { backend: 'sqlite', path };
  }
  // Anything else with a scheme (mysql://, file:, http:…) is not a path we should create a file for.
  if (/^[a-z][a-z0-9+.-]+:/i.test(s))
    throw new StoreError(`--db: unsupported database '${redact(s)}'; give ${ACCEPTED}`, true);
  return { backend: 'sqlite', path: s };
}

/** The URL with its password replaced by ***. */
export function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

export const describeStoreUrl = (u: StoreUrl): string =>
  u.backend === 'sqlite' ? `sqlite:${u.path}` : redact(u.url);

async function openSqlite(
  path: string,
): Promise<{ db: Kysely<Database>; sqlite: import('better-sqlite3').Database }> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  let sqlite: InstanceType<typeof SqliteDatabase>;
  try {
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    sqlite = new SqliteDatabase(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 10000');
    sqlite.pragma('cache_size = -65536'); // 64 MiB of pages: a chart's rows and their indexes stay in memory
  } catch (err) {
    throw new StoreError(`cannot open the SQLite database ${path}: ${(err as Error).message}`);
  }
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), sqlite };
}

async function openPostgres(url: string): Promise<Kysely<Database>> {
  const { default: pg } = await import('pg');
  // bigint (int8: COUNT(*), the run seed) as a JS number: every value stored fits in 2^53.
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === pg.types.builtins.INT8 && format !== 'binary'
        ? (v: string) => Number(v)
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: url, max: 8, types });
  // An idle client that loses its server must not crash the process; the next query reports the error.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

function connectionHint(err: Error, u: StoreUrl): string {
  const code = (err as { code?: string }).code;
  if (u.backend !== 'postgres') return '';
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND')
    return ' (is the server running? for a local one: sudo scripts/dev-postgres.sh start)';
  if (code === '28P01') return ' (wrong user or password in the URL)';
  if (code === '3D000') return ' (create the database first, or name an existing one in the URL)';
  if (code === '42501')
    return " (the user may not create tables here: use a database it owns, e.g. the dev server's /infx)";
  return '';
}

/**
 * Opens (creating a SQLite file and its folders when needed, unless `create: false`) and migrates the store
 * at `raw` (see parseStoreUrl). Throws StoreError with what to fix when the URL is wrong or the database unreachable.
 */
export async function openStore(
  raw: string = defaultDbUrl(),
  opts: {
    create?: boolean;
    /** Tests of a migration: stop after this one. */
    upTo?: string;
  } = {},
): Promise<Store> {
  const u = parseStoreUrl(raw);
  const url = describeStoreUrl(u);
  if (opts.create === false && u.backend === 'sqlite' && u.path !== ':memory:' && !existsSync(u.path))
    throw new StoreError(
      `no database at ${u.path}: ingest a run into it first (infx ingest RUN_DIR --db ${u.path})`,
    );
  const { db, sqlite } =
    u.backend === 'sqlite' ? await openSqlite(u.path) : { db: await openPostgres(u.url), sqlite: undefined };
  try {
    await migrateToLatest(db, opts.upTo);
  } catch (err) {
    await db.destroy().catch(() => {});
    const e = err as Error;
    throw new StoreError(`cannot use the database ${url}: ${e.message}${connectionHint(e, u)}`);
  }
  const close = async () => {
    // SQLite: refresh the planner's statistics where they drifted (cheap; what SQLite recommends at close).
    if (u.backend === 'sqlite') await sql`pragma optimize`.execute(db).catch(() => {});
    await db.destroy();
  };
  return { db, backend: u.backend, url, sqlite, close };
}
