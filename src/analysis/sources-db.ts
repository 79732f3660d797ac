import { existsSync } from 'node:fs';
import type { Store } from '../store/db.ts';
import { SourceError } from './source-error.ts';
import type { LoadOptions, RunCurves } from './source-types.ts';

/**
 * Curves from the results database: a stored run by id, or `official` (the latest official result per config
 * and concurrency, of the configs asked for). The store and its drivers load only when a RUN argument is no
 * directory.
 */

const unique = (xs: readonly string[]) => [...new Set(xs)];

async function open(arg: string, url: string): Promise<Store> {
  const { openStore, parseStoreUrl, StoreError } = await import('../store/db.ts');
  try {
    const parsed = parseStoreUrl(url);
    // Looking up must not create an empty database where none is.
    if (parsed.backend === 'sqlite' && parsed.path !== ':memory:' && !existsSync(parsed.path))
      throw new SourceError(
        `'${arg}' is not a run directory, and there is no results database at ${parsed.path} to look it up ` +
          'in: give a run directory (runs/<run-id>), store runs with `infx ingest runs/<run-id>`, or name ' +
          'the database with --db',
      );
    return await openStore(url);
  } catch (err) {
    if (err instanceof StoreError) throw new SourceError(err.message, err.usage);
    throw err;
  }
}

export async function loadFromStore(arg: string, opts: LoadOptions): Promise<RunCurves> {
  const { defaultDbUrl } = await import('../store/db.ts');
  const { curvePoints, pointOutcomes, runById, runs } = await import('../store/queries.ts');
  const store = await open(arg, opts.db ?? defaultDbUrl());
  try {
    if (arg === 'official') {
      const points = await curvePoints(store, { official: true, configKeys: opts.configKeys });
      return {
        label: 'official',
        source: 'db',
        runIds: unique(points.map((p) => p.runId)),
        points,
        skipped: [],
      };
    }
    if ((await runById(store, arg)) === undefined) {
      const known = (await runs(store)).slice(0, 5).map((r) => r.runId);
      throw new SourceError(
        `'${arg}' is neither a run directory nor a run id in ${store.url} ` +
          `(${known.length > 0 ? `newest runs: ${known.join(', ')}` : 'no runs stored yet'}): give a run ` +
          "directory (runs/<run-id>), a stored run id, or 'official'",
      );
    }
    const points = await curvePoints(store, { runId: arg });
    const skipped = (await pointOutcomes(store, arg))
      .filter((o) => o.outcome !== 'ingested')
      .map((o) => ({ pointId: o.pointId, reason: o.reason ?? o.outcome }));
    return { label: arg, source: 'db', runIds: [arg], points, skipped };
  } finally {
    await store.close();
  }
}
