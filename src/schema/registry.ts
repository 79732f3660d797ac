import * as z from 'zod';
import { AgenticPointsResponseSchema } from './agentic-curve.ts';
import { AgenticTraceSchema } from './agentic-trace.ts';
import { UserCatalogSchema } from './catalog.ts';
import { ChangelogEntrySchema, ChangelogMetadataSchema } from './changelog-entry.ts';
import { CheckReportSchema } from './check-finding.ts';
import { CiPriorityPolicySchema } from './ci-priority.ts';
import { CiLabelOutputSchema, CiMatrixOutputSchema } from './ci-workflow.ts';
import { CompareReportSchema } from './compare-report.ts';
import { DiagnosticSchema } from './diagnostic.ts';
import { EngineLaunchSchema } from './engine-launch.ts';
import {
  EvalResultsSchema,
  EvalSampleRecordSchema,
  SavedResponseSchema,
  ThresholdsFileSchema,
  ValidateReportSchema,
} from './evals.ts';
import { FrontierCompareReportSchema } from './frontier-compare.ts';
import { InferencexRawResultSchema } from './inferencex-result.ts';
import { MasterConfigFileSchema, MasterEntrySchema } from './master-config.ts';
import { MatrixRowSchema, MatrixSchema } from './matrix-row.ts';
import { PointResultSchema } from './point-result.ts';
import { RequestRecordSchema } from './request-record.ts';
import { ReviewReportSchema } from './review.ts';
import { RouterMetricsSchema, RouterOptionsSchema } from './router.ts';
import { PointAttemptSchema, PointSpecSchema, PointStatusSchema, RunManifestSchema } from './run-dir.ts';
import { RunnerConfigSchema } from './runners.ts';
import { ScriptedScriptSchema } from './scripted-script.ts';
import { SessionTimelineSchema } from './session-timeline.ts';
import { SignoffReportSchema } from './signoff.ts';
import {
  IngestReportSchema,
  ReuseVerdictSchema,
  RunAuditSchema,
  StatusChangeReportSchema,
  StoredRunSchema,
  VerifyReportSchema,
} from './store.ts';
import { SweepPlanSchema } from './sweep-plan.ts';
import {
  ApiErrorSchema,
  ComparePointsResponseSchema,
  FiltersResponseSchema,
  PointsResponseSchema,
  RunDetailSchema,
  RunsResponseSchema,
} from './web-api.ts';

/** Every contract that crosses a boundary, by the name `infx schema NAME` exports it under. */
export const SCHEMAS = {
  'master-config': {
    schema: MasterConfigFileSchema,
    io: 'input',
    about: 'a master config file: config key → entry',
  },
  catalog: {
    schema: UserCatalogSchema,
    io: 'input',
    about: 'a user catalog file: accelerators and models to add to the built-in catalog (--catalog FILE)',
  },
  'master-entry': {
    schema: MasterEntrySchema,
    io: 'input',
    about: 'one master config entry (single- or multi-node)',
  },
  runners: {
    schema: RunnerConfigSchema,
    io: 'input',
    about: 'runners.yaml: labels → runner nodes, hardware facts',
  },
  'ci-priority': {
    schema: CiPriorityPolicySchema,
    io: 'input',
    about: 'CI priority policy (ci-priority.yaml)',
  },
  'changelog-entry': { schema: ChangelogEntrySchema, io: 'input', about: 'one perf-changelog.yaml entry' },
  'matrix-row': { schema: MatrixRowSchema, io: 'output', about: 'one row printed by infx matrix' },
  matrix: { schema: MatrixSchema, io: 'output', about: 'the JSON array printed by infx matrix' },
  'sweep-plan': { schema: SweepPlanSchema, io: 'output', about: 'infx matrix plan --format json' },
  'ci-matrix': {
    schema: CiMatrixOutputSchema,
    io: 'output',
    about: "infx ci matrix --format json: a planned run's point jobs for GitHub Actions (canary apart)",
  },
  'ci-labels': {
    schema: CiLabelOutputSchema,
    io: 'output',
    about: "infx ci labels --format json: the sweep gate's decision from the event and the PR's labels",
  },
  'request-record': {
    schema: RequestRecordSchema,
    io: 'output',
    about: 'one line of requests.jsonl written by infx bench: one request, warmup and errors included',
  },
  'point-result': {
    schema: PointResultSchema,
    io: 'output',
    about: 'result.json written by infx bench: every metric of one benchmark point',
  },
  'inferencex-result': {
    schema: InferencexRawResultSchema,
    io: 'output',
    about: "inferencex.json written by infx bench --format inferencex: the reference client's raw result",
  },
  'agentic-trace': {
    schema: AgenticTraceSchema,
    io: 'input',
    about: 'one line of a traces.jsonl corpus (Weka kv-cache-tester format) that infx trace reads',
  },
  'scripted-script': {
    schema: ScriptedScriptSchema,
    io: 'input',
    about: 'the script of infx sim scripted: per-request timing and faults of the scripted test server',
  },
  'check-report': {
    schema: CheckReportSchema,
    io: 'output',
    about: 'infx check --format json: feasibility findings per point',
  },
  'review-report': {
    schema: ReviewReportSchema,
    io: 'output',
    about:
      'infx review --format json: a deterministic review of a config change, one finding per rule and place',
  },
  'signoff-report': {
    schema: SignoffReportSchema,
    io: 'output',
    about: "infx signoff verify --format json: each check of a CODEOWNER's sign-off comment, and the verdict",
  },
  'router-options': {
    schema: RouterOptionsSchema,
    io: 'input',
    about: 'infx router: the policy and its options (SGLang Model Gateway and Dynamo CLI defaults)',
  },
  'router-metrics': {
    schema: RouterMetricsSchema,
    io: 'output',
    about: 'GET /metrics of infx router: per-backend load, requests, estimated hits; requests with no worker',
  },
  'engine-launch': {
    schema: EngineLaunchSchema,
    io: 'output',
    about: 'how the engine of a point starts: processes, argv, env, files (infx recipe render --format json)',
  },
  'run-manifest': {
    schema: RunManifestSchema,
    io: 'output',
    about: 'manifest.json of a run directory: run id, sources and hashes, options, every point planned',
  },
  'point-spec': {
    schema: PointSpecSchema,
    io: 'output',
    about: 'one planned point (points/<id>/spec.json): row, concurrency, client and engine settings',
  },
  'point-attempt': {
    schema: PointAttemptSchema,
    io: 'output',
    about: 'point.json of one attempt: the point spec plus the engine actually launched',
  },
  'point-status': {
    schema: PointStatusSchema,
    io: 'output',
    about:
      'status.json of one attempt: ok or failed, in which phase (setup, warmup, benchmark, teardown) and why',
  },
  'compare-report': {
    schema: CompareReportSchema,
    io: 'output',
    about:
      'infx compare --format json: a run against a baseline at matched interactivity and equal concurrency',
  },
  'frontier-compare-report': {
    schema: FrontierCompareReportSchema,
    io: 'output',
    about:
      "infx compare --against frontier --format json: each config against the baseline's frontier of its model, precision, hardware and workload",
  },
  'reuse-verdict': {
    schema: ReuseVerdictSchema,
    io: 'output',
    about:
      "infx reuse check --format json: whether a stored PR run can stand in for the PR's merge, check by check",
  },
  'status-change': {
    schema: StatusChangeReportSchema,
    io: 'output',
    about:
      'infx stage / unstage / reuse apply --format json: the status change made, as the audit trail has it',
  },
  'run-audit': {
    schema: RunAuditSchema,
    io: 'output',
    about: "infx audit --format json: a run's status, provenance, changelog entries and every status change",
  },
  'changelog-metadata': {
    schema: ChangelogMetadataSchema,
    io: 'input',
    about:
      'the changelog entries that selected a run (infx ingest --changelog, infx reuse apply --changelog)',
  },
  'ingest-report': {
    schema: IngestReportSchema,
    io: 'output',
    about:
      'infx ingest --format json: every planned point with its outcome and attempts, changes, skipped input',
  },
  'verify-report': {
    schema: VerifyReportSchema,
    io: 'output',
    about: 'infx verify --format json: differences between the database and a run directory',
  },
  'stored-run': {
    schema: StoredRunSchema,
    io: 'output',
    about: 'a run as the results store lists it: sources, status, planned/ingested/failed/missing counts',
  },
  'web-filters': {
    schema: FiltersResponseSchema,
    io: 'output',
    about:
      'GET /api/filters (infx serve): the effective selection and the values of each filter that have data',
  },
  'web-points': {
    schema: PointsResponseSchema,
    io: 'output',
    about:
      'GET /api/points (infx serve): the curve points of a selection (latest per config and concurrency, or one run)',
  },
  'web-runs': {
    schema: RunsResponseSchema,
    io: 'output',
    about: 'GET /api/runs (infx serve): stored runs, newest first',
  },
  'web-run': {
    schema: RunDetailSchema,
    io: 'output',
    about:
      'GET /api/runs/:id (infx serve): every planned point with its attempts, failure, engine command and links',
  },
  'web-compare-points': {
    schema: ComparePointsResponseSchema,
    io: 'output',
    about: 'GET /api/compare/points (infx serve): the points of a run and its baseline',
  },
  'web-agentic-points': {
    schema: AgenticPointsResponseSchema,
    io: 'output',
    about:
      'GET /api/agentic-points (infx serve): agentic-coding points with their agentic figures (latest per config and users, or one run)',
  },
  'web-session-timeline': {
    schema: SessionTimelineSchema,
    io: 'output',
    about:
      "GET /api/runs/:id/points/:pointId/timeline (infx serve): one lane of an agentic point's requests over time",
  },
  'web-error': {
    schema: ApiErrorSchema,
    io: 'output',
    about: 'every error of the infx serve API: {error: {code, message, param?}}',
  },
  'eval-results': {
    schema: EvalResultsSchema,
    io: 'output',
    about:
      'results.json written by infx eval run and printed by infx eval score --format json (lm-evaluation-harness layout)',
  },
  'eval-sample': {
    schema: EvalSampleRecordSchema,
    io: 'output',
    about:
      'one line of samples_gsm8k.jsonl written by infx eval run: prompt, response, filtered answers, verdicts',
  },
  'eval-response': {
    schema: SavedResponseSchema,
    io: 'input',
    about: 'one line of the responses file infx eval score grades: doc_id, response (finish_reason optional)',
  },
  'eval-thresholds': {
    schema: ThresholdsFileSchema,
    io: 'input',
    about:
      'the eval thresholds file (reference utils/evals/thresholds.yaml): default and per-model minimum scores',
  },
  'eval-validate-report': {
    schema: ValidateReportSchema,
    io: 'output',
    about: 'infx eval validate --format json: manifest errors, every metric checked against its threshold',
  },
  diagnostic: {
    schema: DiagnosticSchema,
    io: 'output',
    about: 'a validation problem (infx validate --format json)',
  },
} as const;

export type SchemaName = keyof typeof SCHEMAS;

/** JSON Schema (draft 2020-12) of a contract. Cross-field rules are enforced by infx but not expressible here. */
export function jsonSchemaOf(name: SchemaName): Record<string, unknown> {
  const { schema, io, about } = SCHEMAS[name];
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return { $id: `urn:infx:schema:${name}`, title: `infx ${name}`, description: about, ...json };
}
