import type { Migration } from 'kysely';
import { type AnyDb, bool, columns, oneOf } from './migration-helpers.ts';

/**
 * Accuracy evals in the store (issue 19): the verdict of each point's eval (both filters' exact_match with
 * their stderr, the threshold, which rule chose it, pass or not, simulated or not) and its graded samples
 * for the dashboard's drill-down (the question asked, the response, what each filter extracted). A point
 * is keyed as in `points`; an eval-only point has a verdict and no result.
 */
export const evals: Migration = {
  async up(db: AnyDb) {
    await columns(db.schema.createTable('point_evals'), [
      ['run_id', 'text'],
      ['point_id', 'text'],
      ['attempt', 'integer'],
      ['config_key', 'text'],
      ['conc', 'integer'],
      ['task', 'text'],
      ['eval_only', 'integer'],
      ['strict_match', 'double precision'],
      ['strict_match_stderr', 'double precision', 'null'],
      ['flexible_extract', 'double precision'],
      ['flexible_extract_stderr', 'double precision', 'null'],
      ['threshold', 'double precision'],
      ['threshold_source', 'text'],
      ['threshold_rule', 'text'],
      ['pass', 'integer'],
      ['simulated', 'integer'],
      ['samples', 'integer'],
      ['failed_samples', 'integer'],
      ['results_sha256', 'text', 'null'],
    ])
      .addPrimaryKeyConstraint('point_evals_pk', ['run_id', 'point_id'])
      .addForeignKeyConstraint('point_evals_point', ['run_id', 'point_id'], 'points', ['run_id', 'point_id'])
      .addCheckConstraint('point_evals_pass', bool('pass'))
      .addCheckConstraint('point_evals_simulated', bool('simulated'))
      .addCheckConstraint('point_evals_eval_only', bool('eval_only'))
      .addCheckConstraint(
        'point_evals_rule',
        oneOf('threshold_rule', ['model', 'family', 'default', 'min-score']),
      )
      .execute();
    await db.schema.createIndex('point_evals_config').on('point_evals').column('config_key').execute();
    await columns(db.schema.createTable('eval_samples'), [
      ['run_id', 'text'],
      ['point_id', 'text'],
      ['doc_id', 'integer'],
      ['status', 'text'],
      ['question', 'text'],
      ['target', 'text'],
      ['response', 'text', 'null'],
      ['finish_reason', 'text', 'null'],
      ['strict_answer', 'text'],
      ['flexible_answer', 'text'],
      ['strict_correct', 'integer'],
      ['flexible_correct', 'integer'],
      ['tries', 'integer'],
      ['error', 'text', 'null'],
    ])
      .addPrimaryKeyConstraint('eval_samples_pk', ['run_id', 'point_id', 'doc_id'])
      .addForeignKeyConstraint('eval_samples_eval', ['run_id', 'point_id'], 'point_evals', [
        'run_id',
        'point_id',
      ])
      .addCheckConstraint('eval_samples_status', oneOf('status', ['ok', 'empty', 'truncated', 'failed']))
      .addCheckConstraint('eval_samples_strict', bool('strict_correct'))
      .addCheckConstraint('eval_samples_flexible', bool('flexible_correct'))
      .execute();
  },
};
