import { existsSync } from 'node:fs';
import type { CurvePoint } from '../schema/curve.ts';
import type { Store } from '../store/db.ts';
import type { Db } from '../store/queries.ts';
import { SourceError } from './source-error.ts';

/**
 * Repeats for `infx compare`'s run-to-run spread: every stored run's results of some configs (any status),
 * apart from the runs named (the run compared), from which compare-noise.ts measures the spread.
 */

/** Every stored result of `configKeys` in runs other than `excludeRunIds`: one query (store's configResults). */
export async function storedRepeats(
  d: Db,
  configKeys: readonly string[],
  excludeRunIds: readonly string[],
): Promise<CurvePoint[]> {
  const { configResults } = await import('../store/queries.ts');
  return configResults(d, { configKeys, excludeRunIds });
}

/**
 * The repeats in the database at `url` (default $INFX_DB, else .infx/infx.db), or null where it names a
 * SQLite file that does not exist (a lookup never creates one). A bad URL is a usage error.
 */
export async function loadStoredRepeats(
  url: string | undefined,
  configKeys: readonly string[],
  excludeRunIds: readonly string[],
): Promise<CurvePoint[] | null> {
  const { defaultDbUrl, openStore, parseStoreUrl, StoreError } = await import('../store/db.ts');
  const u = url ?? defaultDbUrl();
  let store: Store;
  try {
    const parsed = parseStoreUrl(u);
    if (parsed.backend === 'sqlite' && parsed.path !== ':memory:' && !existsSync(parsed.path)) return null;
    store = await openStore(u);
  } catch (err) {
    if (err instanceof StoreError) throw new SourceError(err.message, err.usage);
    throw err;
  }
  try {
    return await storedRepeats(store, configKeys, excludeRunIds);
  } finally {
    await store.close();
  }
}
