import {
  type ColumnDataType,
  type CreateTableBuilder,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';

/**
 * The schema, as Kysely migrations defined in code: the same statements for SQLite and PostgreSQL (portable
 * types: text, integer with 0/1 for booleans, bigint, double precision). Migrations are append-only: never
 * edit one that has shipped; add the next.
 */

type Col = [name: string, type: ColumnDataType, nullable?: 'null'];

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and independently of) the typed schema.
type AnyDb = Kysely<any>;
// biome-ignore lint/suspicious/noExplicitAny: the builder's table and column types are not tracked here.
type Builder = CreateTableBuilder<any, any>;

function columns(builder: Builder, cols: readonly Col[]): Builder {
  let b = builder;
  for (const [name, type, nullable] of cols) b = b.addColumn(name, type, (c) => (nullable ? c : c.notNull()));
  return b;
}

const bool = (col: string) => sql`${sql.ref(col)} in (0, 1)`;
const oneOf = (col: string, values: readonly string[]) =>
  sql`${sql.ref(col)} in (${sql.join(values.map((v) => sql.lit(v)))})`;

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

/** Every migration, by name; names sort in the order they apply. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = { '0001_initial': initial };

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

export class MigrationError extends Error {}

/** Applies the migrations the database has not seen yet; returns their names. */
export async function migrateToLatest(db: AnyDb): Promise<string[]> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
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
