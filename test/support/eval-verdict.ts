import type { PointEvalsTable } from '../../src/store/tables.ts';

/** A stored eval verdict for tests, with what a test changes. */
export const verdict = (over: Partial<PointEvalsTable> = {}): PointEvalsTable => ({
  run_id: 'r1',
  point_id: 'p1',
  attempt: 1,
  config_key: 'k',
  conc: 2,
  task: 'gsm8k',
  eval_only: 0,
  strict_match: 0.5,
  strict_match_stderr: null,
  flexible_extract: 0.5,
  flexible_extract_stderr: null,
  threshold: 0.9,
  threshold_source: 'default',
  threshold_rule: 'default',
  pass: 0,
  simulated: 1,
  samples: 3,
  failed_samples: 0,
  results_sha256: null,
  ...over,
});
