import type { ChangelogEntry, ChangelogMetadata } from '../schema/changelog-entry.ts';
import type { IngestChangelog, StoredChangelogEntry } from '../schema/store.ts';
import { bulkWrite, type WriteTarget } from './bulk.ts';
import type { Store } from './db.ts';
import { type Db, kysely } from './queries.ts';
import type { ChangelogEntriesTable } from './tables.ts';

/**
 * The perf-changelog entries that selected a run: keyed by (run, entry index), so every entry of a run is
 * kept (the reference keyed them by (run, base ref, head ref) and kept only the first: dashboard-spec §8
 * pitfall 16), with the revisions the changelog processor compared. Writing the same entries again changes
 * nothing. Other metadata replaces them (changelog-pr-spec §8.4: a reused pull-request run takes its merge
 * run's changelog), and entries beyond the new ones are removed with them.
 */

const PR_LINE = /PR:\s*(https?:\/\/\S+)/;

export function changelogRow(
  runId: string,
  index: number,
  e: ChangelogEntry,
  refs: { base: string; head: string },
): ChangelogEntriesTable {
  const description = e.description.join('\n');
  return {
    run_id: runId,
    entry_index: index,
    config_keys: JSON.stringify(e['config-keys']),
    description,
    pr_link: e['pr-link'] || (PR_LINE.exec(description)?.[1] ?? ''),
    entry_json: JSON.stringify(e),
    base_ref: refs.base,
    head_ref: refs.head,
  };
}

/** Writes `meta` as the run's changelog inside the caller's transaction; says what changed. */
export async function writeChangelog(
  t: WriteTarget,
  runId: string,
  meta: ChangelogMetadata,
): Promise<IngestChangelog> {
  const refs = { base: meta.base_ref, head: meta.head_ref };
  const rows = meta.entries.map((e, i) => changelogRow(runId, i, e, refs));
  const stored = await t.db.selectFrom('changelog_entries').selectAll().where('run_id', '=', runId).execute();
  const old = new Map(stored.map((r) => [r.entry_index, r]));
  const sig = (r: ChangelogEntriesTable) => JSON.stringify([r.entry_json, r.base_ref, r.head_ref]);
  const write = rows.filter((r) => {
    const o = old.get(r.entry_index);
    return o === undefined || sig(o) !== sig(r);
  });
  const removed = stored.filter((r) => r.entry_index >= rows.length).length;
  if (removed > 0)
    await t.db
      .deleteFrom('changelog_entries')
      .where('run_id', '=', runId)
      .where('entry_index', '>=', rows.length)
      .execute();
  await bulkWrite(t, 'changelog_entries', write, 'update');
  const replaced = stored.find((r) => r.base_ref !== refs.base || r.head_ref !== refs.head);
  return {
    baseRef: refs.base,
    headRef: refs.head,
    entries: rows.length,
    change: stored.length === 0 ? 'new' : write.length === 0 && removed === 0 ? 'unchanged' : 'updated',
    replaced:
      replaced === undefined ? null : { baseRef: replaced.base_ref ?? '', headRef: replaced.head_ref ?? '' },
  };
}

/** `meta` as a stored run's changelog, in a transaction of its own. */
export async function ingestChangelog(
  store: Store,
  runId: string,
  meta: ChangelogMetadata,
): Promise<IngestChangelog> {
  return store.db
    .transaction()
    .execute((trx) => writeChangelog({ db: trx, backend: store.backend, sqlite: store.sqlite }, runId, meta));
}

/** A run's changelog entries, in order. */
export async function runChangelog(d: Db, runId: string): Promise<StoredChangelogEntry[]> {
  const rows = await kysely(d)
    .selectFrom('changelog_entries')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('entry_index')
    .execute();
  return rows.map((r) => ({
    index: r.entry_index,
    baseRef: r.base_ref,
    headRef: r.head_ref,
    prLink: r.pr_link,
    entry: JSON.parse(r.entry_json) as ChangelogEntry,
  }));
}
