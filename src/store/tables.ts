/**
 * The stored tables as TypeScript rows (what Kysely types its queries with). Portable column types only:
 * text, integer (booleans as 0/1), bigint, double precision; times are ISO 8601 UTC text (they sort as
 * text); JSON is text. Every unique key is over non-null columns, so re-ingest never duplicates a row.
 */

export interface RunsTable {
  run_id: string;
  created_at: string;
  infx_version: string;
  host: string;
  source_kind: string;
  /** JSON: [{path, sha256}] of the config files (or matrix file) and the runner config. */
  source_files: string;
  executor: string;
  seed: number;
  status: string;
  planned_points: number;
  ingested_points: number;
  failed_points: number;
  missing_points: number;
  ingested_at: string;
  manifest_sha256: string;
  manifest_json: string;
  /** Stored results served by a simulated engine, and by a real one (0002_engine). */
  simulated_results: number;
  real_results: number;
  /** JSON RunProvenance (0004_change_control); null: stored before it was recorded. */
  provenance_json: string | null;
  pr_number: number | null;
  /** 1: the sweep still held sweep.lock when the run directory was ingested. */
  sweep_active: number;
}

export interface AttemptsTable {
  run_id: string;
  point_id: string;
  attempt: number;
  status: string;
  phase: string | null;
  reason: string | null;
  interrupted: number;
  valid: number | null;
  started_at: string | null;
  finished_at: string | null;
  duration_s: number | null;
  host: string | null;
  slurm_job_id: string | null;
  /** SHA-256 of the stored form of a valid result.json; null: none. */
  result_sha256: string | null;
}

export interface ConfigsTable {
  config_key: string;
  model: string;
  hardware: string;
  framework: string;
  precision: string;
  spec_decoding: string;
  disagg: number;
  multi_node: number;
  prefill_tp: number;
  prefill_ep: number;
  prefill_dp_attn: number;
  prefill_pp: number;
  prefill_dcp: number;
  prefill_pcp: number;
  prefill_workers: number;
  prefill_gpus: number;
  decode_tp: number;
  decode_ep: number;
  decode_dp_attn: number;
  decode_pp: number;
  decode_dcp: number;
  decode_pcp: number;
  decode_workers: number;
  decode_gpus: number;
  /** 0 for an agentic_traces config (a replay has no lengths; benchmark_type says so). */
  isl: number;
  osl: number;
  /** fixed_seq_len or agentic_traces (0003_agentic); an agentic config's key ends in its kv offload. */
  benchmark_type: string;
  /** Agentic configs: the KV offload measured (`none`, `dram`, `dram-hicache@1.2`); null for fixed ones. */
  kv_offload: string | null;
  /** simulated or real: what served the results of this key (simulated keys end in `|sim`). */
  engine_kind: string;
}

/** Every planned point of a run, whatever its outcome (failed and missing points carry phase and reason). */
export interface PointsTable {
  run_id: string;
  point_id: string;
  point_index: number;
  config_key: string;
  conc: number;
  gpus: number;
  image: string;
  bucket: string;
  outcome: string;
  chosen_attempt: number | null;
  attempts: number;
  phase: string | null;
  reason: string | null;
}

/** One per ingested point: the hot columns charts read (small rows: many to a page). */
export interface ResultsTable {
  run_id: string;
  point_id: string;
  attempt: number;
  config_key: string;
  conc: number;
  gpus: number;
  image: string;
  run_created_at: string;
  /** simulated or real (result.json's engine.kind); simulator: its version, null for a real engine. */
  engine_kind: string;
  simulator: string | null;
  tput_per_gpu: number | null;
  output_tput_per_gpu: number | null;
  input_tput_per_gpu: number | null;
  intvty_median: number | null;
  intvty_p90: number | null;
  intvty_p99: number | null;
  ttft_median_ms: number | null;
  ttft_p90_ms: number | null;
  ttft_p99_ms: number | null;
  e2el_median_ms: number | null;
  e2el_p90_ms: number | null;
  e2el_p99_ms: number | null;
  /** Null: power was not measured. */
  joules_per_output_token: number | null;
  /** Agentic points only (0003_agentic; null for a fixed-seq-len point): the result's agentic block. */
  e2e_intvty_p50: number | null;
  e2e_intvty_p90: number | null;
  gen_intvty_p90: number | null;
  theoretical_cache_hit_rate: number | null;
  /** Scraped from the server's /metrics; null: not measured. */
  server_cache_hit_rate: number | null;
  /** 0/1; null: not an agentic point. */
  submission_valid: number | null;
  valid: number;
  /** SHA-256 of the stored result.json (result_documents). */
  result_sha256: string;
}

/** The agentic hot columns of `results` (0003_agentic): null for a fixed-seq-len point. */
export const AGENTIC_COLUMNS = [
  'e2e_intvty_p50',
  'e2e_intvty_p90',
  'gen_intvty_p90',
  'theoretical_cache_hit_rate',
  'server_cache_hit_rate',
  'submission_valid',
] as const satisfies readonly (keyof ResultsTable)[];

/** The hot metric columns of `results` (src/store/hot.ts maps them to and from point results). */
export const HOT_COLUMNS = [
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
  ...AGENTIC_COLUMNS,
] as const satisfies readonly (keyof ResultsTable)[];

/** The whole result.json of a result, kept apart so chart queries never read past the hot columns. */
export interface ResultDocumentsTable {
  run_id: string;
  point_id: string;
  result_json: string;
}

/**
 * The newest official result per (config, concurrency), a copy of its hot row kept at ingest: the
 * dashboard's "latest" view (the reference's materialized view), read without touching `results`.
 */
export type LatestResultsTable = ResultsTable;

export interface ChangelogEntriesTable {
  run_id: string;
  entry_index: number;
  /** JSON array of config keys (or patterns). */
  config_keys: string;
  description: string;
  pr_link: string;
  entry_json: string;
  /** The revisions the changelog processor compared (0004_change_control); null for older rows. */
  base_ref: string | null;
  head_ref: string | null;
}

export interface RunStatusEventsTable {
  run_id: string;
  seq: number;
  at: string;
  action: string;
  from_status: string | null;
  to_status: string;
  actor: string;
  reason: string;
}

/** The verdict of a point's accuracy eval (0005_evals): status.json `eval`, stderr from eval/results.json. */
export interface PointEvalsTable {
  run_id: string;
  point_id: string;
  attempt: number;
  config_key: string;
  conc: number;
  task: string;
  /** 1: an eval-only point (no benchmark, no result). */
  eval_only: number;
  strict_match: number;
  strict_match_stderr: number | null;
  flexible_extract: number;
  flexible_extract_stderr: number | null;
  threshold: number;
  /** `models.<key>`, `default` or `min-score`. */
  threshold_source: string;
  threshold_rule: string;
  pass: number;
  /** 1: scored against infx's simulated engine (says nothing about a model). */
  simulated: number;
  samples: number;
  failed_samples: number;
  /** SHA-256 of eval/results.json; null: it was not readable. */
  results_sha256: string | null;
}

/** One graded sample of a point's eval (0005_evals), from eval/samples_gsm8k.jsonl. */
export interface EvalSamplesTable {
  run_id: string;
  point_id: string;
  doc_id: number;
  status: string;
  /** The question asked (the prompt's last user turn). */
  question: string;
  target: string;
  response: string | null;
  finish_reason: string | null;
  strict_answer: string;
  flexible_answer: string;
  strict_correct: number;
  flexible_correct: number;
  /** Requests sent for it (retries included). */
  tries: number;
  error: string | null;
}

export interface Database {
  runs: RunsTable;
  attempts: AttemptsTable;
  configs: ConfigsTable;
  points: PointsTable;
  results: ResultsTable;
  result_documents: ResultDocumentsTable;
  latest_results: LatestResultsTable;
  changelog_entries: ChangelogEntriesTable;
  run_status_events: RunStatusEventsTable;
  point_evals: PointEvalsTable;
  eval_samples: EvalSamplesTable;
}

export type TableName = keyof Database;

/** The columns of a result's hot row, in table order (results and latest_results). */
export const RESULT_COLUMNS = [
  'run_id',
  'point_id',
  'attempt',
  'config_key',
  'conc',
  'gpus',
  'image',
  'run_created_at',
  'engine_kind',
  'simulator',
  ...HOT_COLUMNS,
  'valid',
  'result_sha256',
] as const satisfies readonly (keyof ResultsTable)[];

/** Primary key columns of each table (the conflict target of upserts). */
export const PRIMARY_KEYS: { readonly [T in TableName]: readonly (keyof Database[T] & string)[] } = {
  runs: ['run_id'],
  attempts: ['run_id', 'point_id', 'attempt'],
  configs: ['config_key'],
  points: ['run_id', 'point_id'],
  results: ['run_id', 'point_id'],
  result_documents: ['run_id', 'point_id'],
  latest_results: ['config_key', 'conc'],
  changelog_entries: ['run_id', 'entry_index'],
  run_status_events: ['run_id', 'seq'],
  point_evals: ['run_id', 'point_id'],
  eval_samples: ['run_id', 'point_id', 'doc_id'],
};
