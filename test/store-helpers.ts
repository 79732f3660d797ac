import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, it } from 'vitest';
import { openStore, type Store } from '../src/store/db.ts';
import { tmpDir } from './helpers.ts';

/**
 * The store's test backends: a SQLite file per store, and PostgreSQL (INFX_TEST_POSTGRES_URL, default the
 * dev server of scripts/dev-postgres.sh) with a throwaway database per store, dropped after the file. Where
 * PostgreSQL is not reachable its suites skip with a warning, unless INFX_REQUIRE_POSTGRES=1 (CI): then a
 * failing test says so.
 */

export const PG_URL = process.env.INFX_TEST_POSTGRES_URL ?? 'postgres://infx:infx@127.0.0.1:5432/postgres';
const REQUIRED = process.env.INFX_REQUIRE_POSTGRES === '1';

async function probe(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

const pgProblem = await probe();
const shown = PG_URL.replace(/:[^:@/]*@/, ':***@');
if (pgProblem !== null && !REQUIRED)
  console.warn(
    `skipping the PostgreSQL store tests: ${shown} is not reachable (${pgProblem}); ` +
      'start one with `sudo scripts/dev-postgres.sh start` (or set INFX_TEST_POSTGRES_URL)',
  );

/** Under INFX_REQUIRE_POSTGRES=1 an unreachable server is a failure, not a skip. */
export function requirePostgres(): void {
  if (pgProblem !== null && REQUIRED)
    it('reaches PostgreSQL (INFX_REQUIRE_POSTGRES=1)', () => {
      throw new Error(
        `PostgreSQL at ${shown} is not reachable: ${pgProblem} (start one with sudo scripts/dev-postgres.sh start)`,
      );
    });
}

export type BackendName = 'sqlite' | 'postgres';

const created: string[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
  if (created.length === 0) return;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  for (const name of created.splice(0)) await admin.query(`drop database if exists ${name}`);
  await admin.end();
});

/**
 * A fresh, empty, migrated store on `backend` (`upTo`: migrated only that far, for a migration's tests),
 * closed (and dropped) after the test file.
 */
export async function freshStore(
  backend: BackendName,
  opts: { upTo?: string } = {},
): Promise<Store & { rawUrl: string }> {
  let url: string;
  if (backend === 'sqlite') url = join(tmpDir('infx-store-'), 'infx.db');
  else {
    const name = `infx_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    created.push(name);
    const u = new URL(PG_URL);
    u.pathname = `/${name}`;
    url = u.toString();
  }
  const store = await openStore(url, opts);
  stores.push(store);
  return Object.assign(store, { rawUrl: url });
}

/** The backends to run a suite against: SQLite always, PostgreSQL when reachable. */
export const BACKENDS: BackendName[] = pgProblem === null ? ['sqlite', 'postgres'] : ['sqlite'];

/** Rows per table, to show that a second ingest writes nothing. */
export async function tableCounts(store: Store): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of [
    'runs',
    'configs',
    'points',
    'attempts',
    'results',
    'latest_results',
    'changelog_entries',
  ] as const) {
    const r = await store.db
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}
