import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { InfxError } from '../schema/errors.ts';
import { changeControl } from './migration-change-control.ts';
import { evals } from './migration-evals.ts';
import { type AnyDb, bool, type Col, columns, oneOf } from './migration-helpers.ts';

/**
 * The schema, as Kysely migrations defined in code: the same statements for SQLite and PostgreSQL (portable
 * types: text, integer with 0/1 for booleans, bigint, double precision). Migrations are append-only: never
 * edit one that has shipped; add the next.
 */

const pool = (p: 'prefill' | 'decode'): Col[] =>
  ['tp', 'ep', 'dp_attn', 'pp', 'dcp', 'pcp', 'workers', 'gpus'].map((f) => [`${p}_${f}`, 'integer']);

/** The hot row of a result: `results`, and its copy in `latest_results`. */
const RESULT_COLUMNS: Col[] = [
  ['run_id', 'text'],
  ['point_id', 'text'],
  ['attempt', 'integer'],
  ['config_key', 'text'],
  ['conc', 'integer'],
  ['gpus', 'integer'],
  ['image', 'text'],
  ['run_created_at', 'text'],
  ...[
    'tput_per_gpu',
    'output_tput_per_gpu',
    'input_tput_per_gpu',
    'intvty_median',
    'intvty_p90',
    'intvty_p99',
    'ttft_median_ms',
    'ttft_p90_ms',
    'ttft_p99_ms',
    'e2el_median_ms',
    'e2el_p90_ms',
    'e2el_p99_ms',
    'joules_per_output_token',
  ].map((c): Col => [c, 'double precision', 'null']),
  ['valid', 'integer'],
  ['result_sha256', 'text'],
];

const initial: Migration = {
  async up(db: AnyDb) {
    await columns(db.schema.createTable('runs'), [
      ['run_id', 'text'],
      ['created_at', 'text'],
      ['infx_version', 'text'],
      ['host', 'text'],
      ['source_kind', 'text'],
      ['source_files', 'text'],
      ['executor', 'text'],
      ['seed', 'bigint'],
      ['status', 'text'],
      ['planned_points', 'integer'],
      ['ingested_points', 'integer'],
      ['failed_points', 'integer'],
      ['missing_points', 'integer'],
      ['ingested_at', 'text'],
      ['manifest_sha256', 'text'],
      ['manifest_json', 'text'],
    ])
      .addPrimaryKeyConstraint('runs_pk', ['run_id'])
      .addCheckConstraint('runs_status', oneOf('status', ['official', 'unofficial', 'staged']))
      .execute();
    await db.schema.createIndex('runs_created').on('runs').columns(['created_at', 'run_id']).execute();

    await columns(db.schema.createTable('configs'), [
      ['config_key', 'text'],
      ['model', 'text'],
      ['hardware', 'text'],
      ['framework', 'text'],
      ['precision', 'text'],
      ['spec_decoding', 'text'],
      ['disagg', 'integer'],
      ['multi_node', 'integer'],
      ...pool('prefill'),
      ...pool('decode'),
      ['isl', 'integer'],
      ['osl', 'integer'],
    ])
      .addPrimaryKeyConstraint('configs_pk', ['config_key'])
      .addCheckConstraint('configs_disagg', bool('disagg'))
      .addCheckConstraint('configs_multi_node', bool('multi_node'))
      .execute();
    await db.schema
      .createIndex('configs_workload')
      .on('configs')
      .columns(['isl', 'osl', 'model', 'config_key'])
      .execute();

    await columns(db.schema.createTable('points'), [
      ['run_id', 'text'],
      ['point_id', 'text'],
      ['point_index', 'integer'],
      ['config_key', 'text'],
      ['conc', 'integer'],
      ['gpus', 'integer'],
      ['image', 'text'],
      ['bucket', 'text'],
      ['outcome', 'text'],
      ['chosen_attempt', 'integer', 'null'],
      ['attempts', 'integer'],
      ['phase', 'text', 'null'],
      ['reason', 'text', 'null'],
    ])
      .addPrimaryKeyConstraint('points_pk', ['run_id', 'point_id'])
      .addForeignKeyConstraint('points_run', ['run_id'], 'runs', ['run_id'])
      .addForeignKeyConstraint('points_config', ['config_key'], 'configs', ['config_key'])
      .addCheckConstraint('points_outcome', oneOf('outcome', ['ingested', 'failed', 'missing']))
      .execute();
    await db.schema.createIndex('points_config').on('points').columns(['config_key', 'conc']).execute();

    await columns(db.schema.createTable('attempts'), [
      ['run_id', 'text'],
      ['point_id', 'text'],
      ['attempt', 'integer'],
      ['status', 'text'],
      ['phase', 'text', 'null'],
      ['reason', 'text', 'null'],
      ['interrupted', 'integer'],
      ['valid', 'integer', 'null'],
      ['started_at', 'text', 'null'],
      ['finished_at', 'text', 'null'],
      ['duration_s', 'double precision', 'null'],
      ['host', 'text', 'null'],
      ['slurm_job_id', 'text', 'null'],
      ['result_sha256', 'text', 'null'],
    ])
      .addPrimaryKeyConstraint('attempts_pk', ['run_id', 'point_id', 'attempt'])
      .addForeignKeyConstraint('attempts_point', ['run_id', 'point_id'], 'points', ['run_id', 'point_id'])
      .addCheckConstraint('attempts_status', oneOf('status', ['ok', 'failed', 'incomplete']))
      .addCheckConstraint('attempts_interrupted', bool('interrupted'))
      .execute();

    await columns(db.schema.createTable('results'), RESULT_COLUMNS)
      .addPrimaryKeyConstraint('results_pk', ['run_id', 'point_id'])
      .addForeignKeyConstraint('results_point', ['run_id', 'point_id'], 'points', ['run_id', 'point_id'])
      .addForeignKeyConstraint('results_attempt', ['run_id', 'point_id', 'attempt'], 'attempts', [
        'run_id',
        'point_id',
        'attempt',
      ])
      .addCheckConstraint('results_valid', bool('valid'))
      .execute();
    await db.schema
      .createIndex('results_config_conc')
      .on('results')
      .columns(['config_key', 'conc', 'run_created_at'])
      .execute();

    // result.json apart from the hot row: the chart query's rows stay small (many per page).
    await columns(db.schema.createTable('result_documents'), [
      ['run_id', 'text'],
      ['point_id', 'text'],
      ['result_json', 'text'],
    ])
      .addPrimaryKeyConstraint('result_documents_pk', ['run_id', 'point_id'])
      .addForeignKeyConstraint('result_documents_result', ['run_id', 'point_id'], 'results', [
        'run_id',
        'point_id',
      ])
      .execute();

    // A copy of the latest result's hot row: the dashboard's default chart reads this table and configs only.
    await columns(db.schema.createTable('latest_results'), RESULT_COLUMNS)
      .addPrimaryKeyConstraint('latest_results_pk', ['config_key', 'conc'])
      .addForeignKeyConstraint('latest_results_result', ['run_id', 'point_id'], 'results', [
        'run_id',
        'point_id',
      ])
      .execute();
    await db.schema
      .createIndex('latest_results_run')
      .on('latest_results')
      .columns(['run_id', 'point_id'])
      .execute();

    await columns(db.schema.createTable('changelog_entries'), [
      ['run_id', 'text'],
      ['entry_index', 'integer'],
      ['config_keys', 'text'],
      ['description', 'text'],
      ['pr_link', 'text'],
      ['entry_json', 'text'],
    ])
      .addPrimaryKeyConstraint('changelog_entries_pk', ['run_id', 'entry_index'])
      .addForeignKeyConstraint('changelog_entries_run', ['run_id'], 'runs', ['run_id'])
      .execute();
  },
  async down(db: AnyDb) {
    for (const t of [
      'changelog_entries',
      'latest_results',
      'result_documents',
      'results',
      'attempts',
      'points',
      'configs',
      'runs',
    ])
      await db.schema.dropTable(t).execute();
  },
};

/** The identity columns of a config row (0001), besides its key. */
const CONFIG_IDENTITY = [
  'model',
  'hardware',
  'framework',
  'precision',
  'spec_decoding',
  'disagg',
  'multi_node',
  ...pool('prefill').map(([name]) => name),
  ...pool('decode').map(([name]) => name),
  'isl',
  'osl',
];

const ENGINE_KINDS = ['simulated', 'real'];
const SIM = sql.lit('|sim');

/**
 * What served each result (point-result schema 2's `engine`), kept apart so simulated and real results of
 * one deployment are two curves: `engine_kind` and `simulator` on results and latest_results, the kind on
 * configs, per-run counts. Simulated results move to their own config key (the real key + `|sim`, see
 * src/store/identity.ts), so they never merge with, or stand in latest_results for, a real result.
 *
 * Results stored before it are labelled from their stored result.json: schema 1 recorded the time scale a
 * simulated engine announced (`target.timeScale`), so a schema-1 result with a non-null one is simulated and
 * one with null is real; a schema-2 result says so itself. Their simulator version was not recorded (null).
 * Failed and missing points move with their run when every stored result of the run is simulated.
 */
const engine: Migration = {
  async up(db: AnyDb) {
    for (const table of ['results', 'latest_results']) {
      await db.schema
        .alterTable(table)
        .addColumn('engine_kind', 'text', (c) =>
          c.notNull().defaultTo('real').check(oneOf('engine_kind', ENGINE_KINDS)),
        )
        .execute();
      await db.schema.alterTable(table).addColumn('simulator', 'text').execute();
    }
    await db.schema
      .alterTable('configs')
      .addColumn('engine_kind', 'text', (c) =>
        c.notNull().defaultTo('real').check(oneOf('engine_kind', ENGINE_KINDS)),
      )
      .execute();
    for (const col of ['simulated_results', 'real_results'])
      await db.schema
        .alterTable('runs')
        .addColumn(col, 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

    // Label what is stored. Stored documents are compact JSON in the file's key order.
    await sql`
      update results set engine_kind = 'simulated' where exists (
        select 1 from result_documents d
        where d.run_id = results.run_id and d.point_id = results.point_id and (
          d.result_json like ${'%"engine":{"kind":"simulated"%'}
          or (d.result_json like ${'{"schemaVersion":1,%'} and d.result_json not like ${'%"timeScale":null%'})))
    `.execute(db);

    // Failed and missing points of runs whose stored results are all simulated.
    const simRunPoint = (p: string) => sql`(
      ${sql.ref(`${p}.outcome`)} <> 'ingested'
      and exists (select 1 from results r where r.run_id = ${sql.ref(`${p}.run_id`)} and r.engine_kind = 'simulated')
      and not exists (select 1 from results r where r.run_id = ${sql.ref(`${p}.run_id`)} and r.engine_kind = 'real'))`;
    const simResult = (p: string) => sql`exists (
      select 1 from results r
      where r.run_id = ${sql.ref(`${p}.run_id`)} and r.point_id = ${sql.ref(`${p}.point_id`)}
        and r.engine_kind = 'simulated')`;
    const identity = sql.join(CONFIG_IDENTITY.map((c) => sql.ref(c)));
    const fromC = sql.join(CONFIG_IDENTITY.map((c) => sql.ref(`c.${c}`)));
    await sql`
      insert into configs (config_key, ${identity}, engine_kind)
      select c.config_key || ${SIM}, ${fromC}, 'simulated' from configs c
      where exists (
        select 1 from points p
        where p.config_key = c.config_key and (${simResult('p')} or ${simRunPoint('p')}))
    `.execute(db);
    await sql`
      update points set config_key = config_key || ${SIM}
      where ${simResult('points')} or ${simRunPoint('points')}
    `.execute(db);
    await sql`update results set config_key = config_key || ${SIM} where engine_kind = 'simulated'`.execute(
      db,
    );
    await sql`
      delete from configs where not exists (select 1 from points p where p.config_key = configs.config_key)
    `.execute(db);

    // The latest official result per (config, concurrency), again: a simulated result may have stood for
    // a real one.
    const cols = sql.join(
      [...RESULT_COLUMNS.map(([name]) => name), 'engine_kind', 'simulator'].map((c) => sql.ref(c)),
    );
    await sql`delete from latest_results`.execute(db);
    await sql`
      insert into latest_results (${cols})
      select ${cols} from (
        select r.*, row_number() over (
          partition by r.config_key, r.conc
          order by r.run_created_at desc, r.run_id desc, r.point_id desc) as rn
        from results r join runs u on u.run_id = r.run_id
        where u.status = 'official'
      ) ranked
      where rn = 1
    `.execute(db);

    await sql`
      update runs set
        simulated_results = (
          select count(*) from results r where r.run_id = runs.run_id and r.engine_kind = 'simulated'),
        real_results = (select count(*) from results r where r.run_id = runs.run_id and r.engine_kind = 'real')
    `.execute(db);
  },
  // No down: the split of simulated from real keys is not undone.
};

/**
 * Agentic points (client-metrics §4.4, §7.6): a config's benchmark type (`agentic_traces` configs have no
 * lengths: isl and osl 0) and its KV offload, and the agentic metrics as hot columns of results and
 * latest_results, null for fixed-seq-len points. What is stored is fixed-seq-len: the defaults label it.
 */
const agentic: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable('configs')
      .addColumn('benchmark_type', 'text', (c) =>
        c
          .notNull()
          .defaultTo('fixed_seq_len')
          .check(oneOf('benchmark_type', ['fixed_seq_len', 'agentic_traces'])),
      )
      .execute();
    await db.schema.alterTable('configs').addColumn('kv_offload', 'text').execute();
    for (const table of ['results', 'latest_results']) {
      for (const col of [
        'e2e_intvty_p50',
        'e2e_intvty_p90',
        'gen_intvty_p90',
        'theoretical_cache_hit_rate',
        'server_cache_hit_rate',
      ])
        await db.schema.alterTable(table).addColumn(col, 'double precision').execute();
      await db.schema
        .alterTable(table)
        .addColumn('submission_valid', 'integer', (c) =>
          c.check(sql`submission_valid is null or ${bool('submission_valid')}`),
        )
        .execute();
    }
  },
};

/** Every migration, by name; names sort in the order they apply. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_engine': engine,
  '0003_agentic': agentic,
  '0004_change_control': changeControl,
  '0005_evals': evals,
};

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

export class MigrationError extends InfxError {}

/**
 * Applies the migrations the database has not seen yet (up to `upTo`, for tests of a migration: a store
 * left at an older schema); returns their names.
 */
export async function migrateToLatest(db: AnyDb, upTo?: string): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await (upTo === undefined
    ? migrator.migrateToLatest()
    : migrator.migrateTo(upTo));
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // No migration ran: the database itself failed (connection, permissions); keep its error and code.
    if (failed === undefined) throw error;
    throw new MigrationError(
      `migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Names of the migrations the database has not applied yet (read only: nothing is created). */
export async function pendingMigrations(db: AnyDb): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}
