import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { EXIT_INPUT, EXIT_USAGE, InfxError } from '../schema/errors.ts';
import { migrateToLatest, pendingMigrations } from './migrations.ts';
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
export class StoreError extends InfxError {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message, { exitCode: usage ? EXIT_USAGE : EXIT_INPUT });
  }
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly backend: Backend;
  /** Where the store is, password redacted: safe to print. */
  readonly url: string;
  /** SQLite: the connection Kysely uses, for the bulk-write fast path (src/store/bulk.ts). */
  readonly sqlite?: import('better-sqlite3').Database | undefined;
  /** Opened read-only (infx serve): every write fails in the database itself. */
  readonly readOnly: boolean;
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

/** How long a SQLite statement waits for another process's lock before it fails (then it is retried). */
const SQLITE_BUSY_TIMEOUT_MS = 30_000;

async function openSqlite(
  path: string,
  readOnly: boolean,
): Promise<{ db: Kysely<Database>; sqlite: import('better-sqlite3').Database }> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  let sqlite: InstanceType<typeof SqliteDatabase>;
  try {
    if (!readOnly && path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    // The busy timeout first: switching a fresh file to WAL takes a lock other processes may hold.
    sqlite = new SqliteDatabase(path, {
      timeout: SQLITE_BUSY_TIMEOUT_MS,
      ...(readOnly ? { readonly: true, fileMustExist: true } : {}),
    });
    sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    if (readOnly) sqlite.pragma('query_only = ON');
    else {
      withSqliteBusyRetry(() => sqlite.pragma('journal_mode = WAL'));
      sqlite.pragma('synchronous = NORMAL');
    }
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('cache_size = -65536'); // 64 MiB of pages: a chart's rows and their indexes stay in memory
  } catch (err) {
    throw new StoreError(`cannot open the SQLite database ${path}: ${(err as Error).message}`);
  }
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), sqlite };
}

async function openPostgres(url: string, readOnly: boolean): Promise<Kysely<Database>> {
  const { default: pg } = await import('pg');
  // bigint (int8: COUNT(*), the run seed) as a JS number: every value stored fits in 2^53.
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === pg.types.builtins.INT8 && format !== 'binary'
        ? (v: string) => Number(v)
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: 8,
    types,
    // Read-only: every transaction of every session is read-only, so a write fails in the server.
    ...(readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // An idle client that loses its server must not crash the process; the next query reports the error.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

const SQLITE_BUSY = /^SQLITE_(BUSY|LOCKED)/;
/** PostgreSQL: deadlock victim, serialization failure, lock not available. */
const PG_RETRY = new Set(['40P01', '40001', '55P03']);

/** Whether an error says "another writer was in the way": worth trying again. */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (SQLITE_BUSY.test(code) || PG_RETRY.has(code));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const backoff = (i: number) => Math.min(2000, 25 * 2 ** i) * (0.5 + Math.random());

/** Runs `fn` again (up to `tries` times, with a growing random pause) while it fails with a busy error. */
export async function withRetry<T>(fn: () => Promise<T>, tries = 8): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i + 1 >= tries || !isBusyError(err)) throw err;
      await sleep(backoff(i));
    }
  }
}

function withSqliteBusyRetry<T>(fn: () => T, tries = 8): T {
  for (let i = 0; ; i++) {
    try {
      return fn();
    } catch (err) {
      if (i + 1 >= tries || !isBusyError(err)) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, backoff(i));
    }
  }
}

/**
 * One write transaction. SQLite: BEGIN IMMEDIATE, so the write lock is taken (waiting out other writers)
 * before anything is read — a deferred transaction that read first fails at once with "database is locked"
 * when another process wrote in between. PostgreSQL: an ordinary transaction.
 */
export async function writeTransaction<T>(
  store: Store,
  fn: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (store.backend === 'postgres') return store.db.transaction().execute(fn);
  return store.db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const out = await fn(conn);
      await sql`commit`.execute(conn);
      return out;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}

/** Key of the session-level advisory lock PostgreSQL migrations run under (not Kysely's own key). */
const PG_MIGRATION_LOCK = 0x696e6678; // 'infx'

/**
 * Migrations, one process at a time. SQLite: inside one exclusive transaction (two processes opening a
 * fresh file at once would both create the tables: "table runs already exists"). PostgreSQL: under an
 * advisory lock held by a connection of its own, so concurrent openers wait and then find them applied.
 */
async function migrateLocked(
  db: Kysely<Database>,
  backend: Backend,
  upTo: string | undefined,
): Promise<void> {
  if (backend === 'postgres') {
    await db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${PG_MIGRATION_LOCK})`.execute(conn);
      try {
        await migrateToLatest(db, upTo);
      } finally {
        await sql`select pg_advisory_unlock(${PG_MIGRATION_LOCK})`.execute(conn).catch(() => {});
      }
    });
    return;
  }
  // Already current (the usual case): no write lock at all.
  if (upTo === undefined && (await pendingMigrations(db)).length === 0) return;
  await withRetry(() =>
    db.connection().execute(async (conn) => {
      await sql`begin exclusive`.execute(conn);
      try {
        await migrateToLatest(conn, upTo);
        await sql`commit`.execute(conn);
      } catch (err) {
        await sql`rollback`.execute(conn).catch(() => {});
        throw err;
      }
    }),
  );
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
 * `readOnly` (infx serve): the database is opened so that it cannot be written (SQLite read-only mode and
 * query_only; PostgreSQL sessions whose transactions are read-only); pending migrations are applied first
 * through a short writable connection, which is closed before the read-only one opens.
 */
export async function openStore(
  raw: string = defaultDbUrl(),
  opts: {
    create?: boolean;
    /** Tests of a migration: stop after this one. */
    upTo?: string;
    readOnly?: boolean;
  } = {},
): Promise<Store> {
  const u = parseStoreUrl(raw);
  const url = describeStoreUrl(u);
  const readOnly = opts.readOnly === true && !(u.backend === 'sqlite' && u.path === ':memory:');
  if (
    (opts.create === false || readOnly) &&
    u.backend === 'sqlite' &&
    u.path !== ':memory:' &&
    !existsSync(u.path)
  )
    throw new StoreError(
      `no database at ${u.path}: ingest a run into it first (infx ingest RUN_DIR --db ${u.path})`,
    );
  const open = (ro: boolean) =>
    u.backend === 'sqlite'
      ? openSqlite(u.path, ro)
      : openPostgres(u.url, ro).then((db) => ({ db, sqlite: undefined }));
  const { db, sqlite } = await open(readOnly);
  try {
    if (readOnly) {
      if ((await pendingMigrations(db)).length > 0) {
        const rw = await open(false);
        try {
          await migrateLocked(rw.db, u.backend, undefined);
        } finally {
          await rw.db.destroy();
        }
      }
    } else await migrateLocked(db, u.backend, opts.upTo);
  } catch (err) {
    await db.destroy().catch(() => {});
    const e = err as Error;
    throw new StoreError(`cannot use the database ${url}: ${e.message}${connectionHint(e, u)}`);
  }
  const close = async () => {
    // SQLite: refresh the planner's statistics where they drifted (cheap; what SQLite recommends at close).
    if (u.backend === 'sqlite' && !readOnly) await sql`pragma optimize`.execute(db).catch(() => {});
    await db.destroy();
  };
  return { db, backend: u.backend, url, sqlite, readOnly, close };
}
