import * as z from 'zod';
import { ChangelogEntrySchema } from './changelog-entry.ts';
import { POINT_PHASES, RunProvenanceSchema } from './run-dir.ts';

/**
 * What the results store reports (src/store): `infx ingest` (IngestReport), `infx verify` (VerifyReport) and
 * the runs it lists (StoredRun). Failed and missing points are part of every report and every stored run,
 * never silently absent (dashboard-spec §8 pitfall 18).
 */

/** official: the dashboard's default view; unofficial: a PR or dev run; staged: a run awaiting sign-off. */
export const RUN_STATUSES = ['official', 'unofficial', 'staged'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/**
 * What changed a run's status (the audit trail, src/store/run-status.ts): its first ingest, an ingest with
 * --status, `infx stage` (again: restaged), `infx unstage`, and `infx reuse apply` (a pull request's run made
 * the official results of its merge, changelog-pr-spec §5.4, §8.4).
 */
export const RUN_STATUS_ACTIONS = [
  'ingested',
  'status-set',
  'staged',
  'restaged',
  'unstaged',
  'reused',
] as const;
export const RunStatusEventSchema = z.strictObject({
  seq: z.int().positive(),
  at: z.string(),
  action: z.enum(RUN_STATUS_ACTIONS),
  from: RunStatusSchema.nullable(),
  to: RunStatusSchema,
  /** Who asked (--actor, else the OS user); empty for events from before the trail existed. */
  actor: z.string(),
  reason: z.string(),
});
export type RunStatusEvent = z.infer<typeof RunStatusEventSchema>;

/**
 * What served a run's stored results: all simulated (infx's simulated engine or scripted test server), all
 * real, or mixed; null: no result stored.
 */
export const RUN_ENGINES = ['simulated', 'real', 'mixed'] as const;
export const RunEngineSchema = z.strictObject({
  kind: z.enum(RUN_ENGINES).nullable(),
  /** Stored results of each kind. */
  simulated: z.int().nonnegative(),
  real: z.int().nonnegative(),
});
export type RunEngine = z.infer<typeof RunEngineSchema>;

/** An attempt's status.json said ok or failed; incomplete: it has no (readable) status.json. */
export const ATTEMPT_STATUSES = ['ok', 'failed', 'incomplete'] as const;
export const AttemptStatusSchema = z.enum(ATTEMPT_STATUSES);
export type AttemptStatus = z.infer<typeof AttemptStatusSchema>;

/**
 * ingested: its newest ok attempt with a valid result.json is stored as its result; failed: its newest
 * attempt failed (or none of its ok attempts has a valid result); missing: no attempt, or the newest was
 * interrupted or never wrote its status (a resumed sweep runs it again).
 */
export const POINT_OUTCOMES = ['ingested', 'failed', 'missing'] as const;
export const PointOutcomeSchema = z.enum(POINT_OUTCOMES);
export type PointOutcome = z.infer<typeof PointOutcomeSchema>;

/** What a write did to a stored record: added, changed (e.g. a resumed point now has a result), or nothing. */
export const CHANGE_KINDS = ['new', 'updated', 'unchanged'] as const;
export const ChangeKindSchema = z.enum(CHANGE_KINDS);
export type ChangeKind = z.infer<typeof ChangeKindSchema>;

/** A file of the run directory that could not be used, and why (input is never dropped silently). */
export const InputIssueSchema = z.strictObject({
  file: z.string().describe('path of the file or folder'),
  /** JSON path inside the file (e.g. throughput.perGpu.total), when the problem is a value. */
  jsonPath: z.string().nullable(),
  pointId: z.string().nullable(),
  attempt: z.int().positive().nullable(),
  problem: z.string(),
});
export type InputIssue = z.infer<typeof InputIssueSchema>;

export const AttemptSummarySchema = z.strictObject({
  attempt: z.int().positive(),
  status: AttemptStatusSchema,
  phase: z.enum(POINT_PHASES).nullable(),
  reason: z.string().nullable(),
  interrupted: z.boolean(),
  /** result.json is present and valid. */
  result: z.boolean(),
});
export type AttemptSummary = z.infer<typeof AttemptSummarySchema>;

export const IngestPointSchema = z.strictObject({
  pointId: z.string(),
  configKey: z.string(),
  conc: z.int().positive(),
  outcome: PointOutcomeSchema,
  /** The attempt whose result is stored; null unless ingested. */
  attempt: z.int().positive().nullable(),
  /** failed/missing: the phase and reason of the newest attempt (or why none is usable). */
  phase: z.enum(POINT_PHASES).nullable(),
  reason: z.string().nullable(),
  attempts: z.array(AttemptSummarySchema),
  change: ChangeKindSchema,
});
export type IngestPoint = z.infer<typeof IngestPointSchema>;

const counts = z.strictObject({
  new: z.int().nonnegative(),
  updated: z.int().nonnegative(),
  unchanged: z.int().nonnegative(),
});

/** What an ingest did to the run's changelog entries (src/store/changelog.ts). */
export const IngestChangelogSchema = z.strictObject({
  baseRef: z.string(),
  headRef: z.string(),
  entries: z.int().nonnegative(),
  change: z.enum(['new', 'updated', 'unchanged']),
  /** The stored entries came from other revisions and were replaced (a reused run takes its merge's). */
  replaced: z.strictObject({ baseRef: z.string(), headRef: z.string() }).nullable(),
});
export type IngestChangelog = z.infer<typeof IngestChangelogSchema>;

/** A changelog entry that selected a stored run, with the revisions the processor compared. */
export const StoredChangelogEntrySchema = z.strictObject({
  index: z.int().nonnegative(),
  baseRef: z.string().nullable(),
  headRef: z.string().nullable(),
  prLink: z.string(),
  entry: ChangelogEntrySchema,
});
export type StoredChangelogEntry = z.infer<typeof StoredChangelogEntrySchema>;

export const IngestReportSchema = z.strictObject({
  kind: z.literal('ingest-report'),
  runId: z.string(),
  runDir: z.string(),
  /** The database, password redacted. */
  db: z.string(),
  status: RunStatusSchema,
  planned: z.int().nonnegative(),
  ingested: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  missing: z.int().nonnegative(),
  /** Changes to the stored points (with their results) and attempts; a second ingest is all unchanged. */
  points: counts,
  attempts: counts,
  /** The run's stored results by what served them (simulated results are unofficial unless --status says). */
  engine: RunEngineSchema,
  /** The changelog entries that selected the run (manifest or --changelog); null: none given. */
  changelog: IngestChangelogSchema.nullable(),
  /** Things the user should know, e.g. simulated results stored as official. */
  warnings: z.array(z.string()),
  /** Rows the sweep listed as skipped in its manifest (agentic, eval-only): not points, not stored. */
  skippedRows: z.int().nonnegative(),
  /** Input that could not be used: invalid files, attempt folders without status, unplanned folders. */
  issues: z.array(InputIssueSchema),
  /** Every planned point with its outcome and attempts. */
  details: z.array(IngestPointSchema),
  /** Everything planned was ingested and no input was skipped (exit 0). */
  ok: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type IngestReport = z.infer<typeof IngestReportSchema>;

/** One way the database and the run directory disagree. */
export const VerifyDifferenceSchema = z.strictObject({
  table: z.string(),
  /** The record, e.g. the point id, or `point-id#2` for an attempt. */
  key: z.string(),
  /** The column that differs; null when the record is on one side only. */
  column: z.string().nullable(),
  db: z.string().nullable().describe('the stored value (JSON), null: no such record'),
  runDir: z.string().nullable().describe('the value from the run directory (JSON), null: no such record'),
});
export type VerifyDifference = z.infer<typeof VerifyDifferenceSchema>;

export const VerifyReportSchema = z.strictObject({
  kind: z.literal('verify-report'),
  runId: z.string(),
  runDir: z.string(),
  db: z.string(),
  /** Records compared, per table. */
  checked: z.record(z.string(), z.int().nonnegative()),
  differences: z.array(VerifyDifferenceSchema),
  /** Input of the run directory that ingest would skip (reported, not a difference by itself). */
  issues: z.array(InputIssueSchema),
  ok: z.boolean(),
});
export type VerifyReport = z.infer<typeof VerifyReportSchema>;

/** A stored run as queries return it. */
export const StoredRunSchema = z.strictObject({
  runId: z.string(),
  createdAt: z.string(),
  infxVersion: z.string(),
  host: z.string(),
  sourceKind: z.enum(['configs', 'matrix']),
  /** The config files (or matrix file) and runner config, with their SHA-256. */
  sourceFiles: z.array(z.strictObject({ path: z.string(), sha256: z.string() })),
  executor: z.string(),
  seed: z.int(),
  status: RunStatusSchema,
  ingestedAt: z.string(),
  planned: z.int().nonnegative(),
  ingested: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  missing: z.int().nonnegative(),
  /** What served its stored results: simulated, real or mixed. */
  engine: RunEngineSchema,
  /** Where it came from (CI event, pull request, head commit); null: stored before infx recorded it. */
  provenance: RunProvenanceSchema.nullable(),
  /** Its sweep still held the run directory's lock when it was ingested (running, or killed). */
  sweepActive: z.boolean(),
});
export type StoredRun = z.infer<typeof StoredRunSchema>;

/** One check of a reuse decision (changelog-pr-spec §5.5), in the reference's order. */
export const REUSE_CHECKS = [
  'event',
  'labels',
  'completed',
  'conclusion',
  'workflow',
  'head-sha',
  'pr-commit',
  'results',
] as const;
export const ReuseCheckSchema = z.strictObject({
  check: z.enum(REUSE_CHECKS),
  ok: z.boolean(),
  /** Why it failed, in the reference's words; empty when it passed. */
  message: z.string(),
});
export type ReuseCheck = z.infer<typeof ReuseCheckSchema>;

/** `infx reuse check`: may a stored run stand in for a pull request's merge sweep? */
export const ReuseVerdictSchema = z.strictObject({
  kind: z.literal('reuse-verdict'),
  pr: z.int().positive(),
  /** The run was named (failed or cancelled runs allowed); else the newest passing run was looked for. */
  pinned: z.boolean(),
  /** The pull request's commits the run's head was looked up in. */
  commits: z.int().nonnegative(),
  runId: z.string().nullable(),
  reusable: z.boolean(),
  reason: z.string(),
  /** The chosen (or pinned) run's checks; empty when no run was chosen. */
  checks: z.array(ReuseCheckSchema),
  /** Stored runs looked at. */
  considered: z.int().nonnegative(),
});
export type ReuseVerdict = z.infer<typeof ReuseVerdictSchema>;

/** `infx stage`, `infx unstage`, `infx reuse apply`: the status change made, as the audit trail has it. */
export const StatusChangeReportSchema = z.strictObject({
  kind: z.literal('status-change'),
  runId: z.string(),
  db: z.string(),
  event: RunStatusEventSchema,
  /** Things the user should know, e.g. simulated results made official. */
  warnings: z.array(z.string()),
});
export type StatusChangeReport = z.infer<typeof StatusChangeReportSchema>;

/** `infx audit RUN`: a run's status now and every change that led to it. */
export const RunAuditSchema = z.strictObject({
  kind: z.literal('run-audit'),
  runId: z.string(),
  status: RunStatusSchema,
  provenance: RunProvenanceSchema.nullable(),
  changelog: z.array(StoredChangelogEntrySchema),
  events: z.array(RunStatusEventSchema),
});
export type RunAudit = z.infer<typeof RunAuditSchema>;
