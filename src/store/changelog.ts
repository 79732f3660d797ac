import type { ChangelogEntry } from '../schema/changelog-entry.ts';
import type { ChangeKind } from '../schema/store.ts';
import { bulkWrite } from './bulk.ts';
import type { Store } from './db.ts';
import type { ChangelogEntriesTable } from './tables.ts';

/**
 * The perf-changelog entries that made a run: keyed by (run, entry index), so every entry of a run is kept
 * (the reference keyed them by (run, base ref, head ref) and kept only the first: dashboard-spec §8
 * pitfall 16). Writing the same entries again changes nothing; a changed entry is updated in place.
 */

const PR_LINE = /PR:\s*(https?:\/\/\S+)/;

export function changelogRow(runId: string, index: number, e: ChangelogEntry): ChangelogEntriesTable {
  const description = e.description.join('\n');
  return {
    run_id: runId,
    entry_index: index,
    config_keys: JSON.stringify(e['config-keys']),
    description,
    pr_link: e['pr-link'] || (PR_LINE.exec(description)?.[1] ?? ''),
    entry_json: JSON.stringify(e),
  };
}

/** Stores `entries` for a stored run, in order; returns what changed per entry. */
export async function ingestChangelog(
  store: Store,
  runId: string,
  entries: readonly ChangelogEntry[],
): Promise<Record<ChangeKind, number>> {
  const rows = entries.map((e, i) => changelogRow(runId, i, e));
  return store.db.transaction().execute(async (trx) => {
    const stored = await trx
      .selectFrom('changelog_entries')
      .selectAll()
      .where('run_id', '=', runId)
      .execute();
    const old = new Map(stored.map((r) => [r.entry_index, r.entry_json]));
    const counts = { new: 0, updated: 0, unchanged: 0 };
    const write = rows.filter((r) => {
      const kind = !old.has(r.entry_index)
        ? 'new'
        : old.get(r.entry_index) !== r.entry_json
          ? 'updated'
          : 'unchanged';
      counts[kind]++;
      return kind !== 'unchanged';
    });
    await bulkWrite(
      { db: trx, backend: store.backend, sqlite: store.sqlite },
      'changelog_entries',
      write,
      'update',
    );
    return counts;
  });
}
