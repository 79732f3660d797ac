import { type Migration, sql } from 'kysely';
import { RUN_STATUS_ACTIONS } from '../schema/store.ts';
import { type AnyDb, bool, columns, oneOf } from './migration-helpers.ts';

/**
 * Change control on the store (changelog-pr-spec §5.5, §6, §8.4): where a run came from (CI event, pull
 * request, head commit, workflow, labels), whether its sweep was still running when it was ingested, the
 * revisions whose changelog entries selected it, and an audit trail of every status a run has had and who
 * gave it. Runs stored before this migration are local runs of unknown commit, and their trail starts at
 * the status they have now.
 */
export const changeControl: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('runs').addColumn('provenance_json', 'text').execute();
    await db.schema.alterTable('runs').addColumn('pr_number', 'integer').execute();
    await db.schema
      .alterTable('runs')
      .addColumn('sweep_active', 'integer', (c) => c.notNull().defaultTo(0).check(bool('sweep_active')))
      .execute();
    await db.schema.createIndex('runs_pr').on('runs').column('pr_number').execute();
    for (const col of ['base_ref', 'head_ref'])
      await db.schema.alterTable('changelog_entries').addColumn(col, 'text').execute();
    await columns(db.schema.createTable('run_status_events'), [
      ['run_id', 'text'],
      ['seq', 'integer'],
      ['at', 'text'],
      ['action', 'text'],
      ['from_status', 'text', 'null'],
      ['to_status', 'text'],
      ['actor', 'text'],
      ['reason', 'text'],
    ])
      .addPrimaryKeyConstraint('run_status_events_pk', ['run_id', 'seq'])
      .addForeignKeyConstraint('run_status_events_run', ['run_id'], 'runs', ['run_id'])
      .addCheckConstraint('run_status_events_action', oneOf('action', RUN_STATUS_ACTIONS))
      .execute();
    await sql`
      insert into run_status_events (run_id, seq, at, action, from_status, to_status, actor, reason)
      select run_id, 1, ingested_at, 'ingested', null, status, '',
        'stored before infx kept an audit trail (migration 0004): the status it had then'
      from runs
    `.execute(db);
  },
};
