import { notRunnable } from '../metrics/aggregate.ts';
import type { EngineKind } from '../schema/curve.ts';
import type { PointEvalOutcome } from '../schema/point-eval.ts';
import type { PointPhase, PointSpec } from '../schema/run-dir.ts';
import type { AttemptSummary, IngestPoint, InputIssue, PointOutcome } from '../schema/store.ts';
import { rowWorkloadKind } from '../schema/workload.ts';
import { offloadLabel, type PointIdentity, pointConfigKey, pointIdentity } from './identity.ts';
import type { AttemptFiles, PointFiles, RunDirContents } from './run-dir-reader.ts';
import type {
  AttemptsTable,
  ConfigsTable,
  EvalSamplesTable,
  PointEvalsTable,
  PointsTable,
  ResultDocumentsTable,
  ResultsTable,
  RunsTable,
} from './tables.ts';

/**
 * What a run directory becomes in the store, as rows: pure, shared by ingest (which writes them) and verify
 * (which compares them with what is stored). The outcome of each planned point is decided here.
 */

export type RunRow = Omit<RunsTable, 'status' | 'ingested_at'>;

export interface RunRows {
  run: RunRow;
  configs: ConfigsTable[];
  points: PointsTable[];
  attempts: AttemptsTable[];
  results: ResultsTable[];
  /** The whole result.json of each result, apart from its hot row. */
  documents: ResultDocumentsTable[];
  /** Every planned point with its outcome; `change` is filled in by the write. */
  details: Omit<IngestPoint, 'change'>[];
  /** Points that cannot be stored at all (no curve identity). */
  issues: InputIssue[];
  /** Planned points by what served (or would have served) them: their result's engine, else the plan's. */
  engines: Record<EngineKind, number>;
  /** Points whose chosen attempt's accuracy eval fell below its threshold (status.json `eval.pass`). */
  evalsBelow: string[];
  /** The eval verdict of each point whose chosen attempt ran one (stderr filled in from its files). */
  evals: PointEvalsTable[];
  /** Their graded samples: read from the eval files at ingest (eval-files.ts), none from runRows. */
  evalSamples: EvalSamplesTable[];
}

interface Choice {
  outcome: PointOutcome;
  attempt: AttemptFiles | null;
  phase: PointPhase | null;
  reason: string | null;
}

/**
 * The newest ok attempt with a valid result (for an eval-only point: with its eval verdict); else why the
 * point has none, from its newest attempt.
 */
export function choosePoint(p: PointFiles): Choice {
  const evalOnly = p.spec.eval?.evalOnly === true;
  const usable = p.attempts
    .filter((a) => a.status?.status === 'ok' && (evalOnly ? a.status.eval != null : a.result !== null))
    .at(-1);
  if (usable) return { outcome: 'ingested', attempt: usable, phase: null, reason: null };
  const last = p.attempts.at(-1);
  if (!last) return { outcome: 'missing', attempt: null, phase: null, reason: 'no attempt was run' };
  const n = `attempt ${last.attempt}`;
  const s = last.status;
  if (!s) return { outcome: 'missing', attempt: null, phase: null, reason: `${n}: ${last.statusProblem}` };
  if (s.interrupted)
    return {
      outcome: 'missing',
      attempt: null,
      phase: s.phase,
      reason: `${n} was interrupted: ${s.reason ?? 'stopped'}`,
    };
  if (s.status === 'failed')
    return { outcome: 'failed', attempt: null, phase: s.phase, reason: `${n}: ${s.reason ?? 'failed'}` };
  return {
    outcome: 'failed',
    attempt: null,
    phase: null,
    reason: evalOnly
      ? `${n}: ok, but its status.json has no eval verdict`
      : last.resultProblem === null
        ? `${n}: ok, but its result.json is missing or invalid`
        : `${n}: ok, but its result.json is unusable: ${last.resultProblem}`,
  };
}

/**
 * What served a point: its chosen result's engine (what the server said it is); without a result, the
 * plan's engine (the simulated engine, or a recipe's real one).
 */
export const pointEngine = (spec: PointSpec, chosen: AttemptFiles | null): EngineKind =>
  chosen?.result?.engine.kind ?? (spec.engine.kind === 'sim' ? 'simulated' : 'real');

/**
 * A planned point's identity, or why it cannot be stored: its kind cannot run (metrics/aggregate.ts says
 * why), or its row and bench disagree on the kind (it names no curve).
 */
function storable(spec: PointSpec): { problem: string } | { identity: PointIdentity } {
  const rowKind = rowWorkloadKind(spec.row);
  const missing = notRunnable(rowKind) ?? notRunnable(spec.bench.kind);
  if (missing) return { problem: missing.store };
  const identity = pointIdentity(spec);
  if (identity === null)
    return { problem: `its row is a ${rowKind} row but its bench a ${spec.bench.kind} one; not stored` };
  return { identity };
}

const bit = (b: boolean) => (b ? 1 : 0);

function configRow(key: string, identity: PointIdentity, engine: EngineKind): ConfigsTable {
  const id = identity.config;
  const pool = (p: 'prefill' | 'decode') => {
    const v = id[p];
    return {
      [`${p}_tp`]: v.tp,
      [`${p}_ep`]: v.ep,
      [`${p}_dp_attn`]: bit(v.dpAttn),
      [`${p}_pp`]: v.pp,
      [`${p}_dcp`]: v.dcp,
      [`${p}_pcp`]: v.pcp,
      [`${p}_workers`]: v.workers,
      [`${p}_gpus`]: v.gpus,
    };
  };
  return {
    config_key: key,
    model: id.model,
    hardware: id.hardware,
    framework: id.framework,
    precision: id.precision,
    spec_decoding: id.specDecoding,
    disagg: bit(id.disagg),
    multi_node: bit(id.multiNode),
    ...pool('prefill'),
    ...pool('decode'),
    // An agentic_traces config has no lengths: 0, with its benchmark type saying why.
    isl: id.isl ?? 0,
    osl: id.osl ?? 0,
    benchmark_type: identity.kind === 'agentic-coding' ? 'agentic_traces' : 'fixed_seq_len',
    kv_offload: identity.kind === 'agentic-coding' ? offloadLabel(identity.config) : null,
    engine_kind: engine,
  } as ConfigsTable;
}

function attemptRow(runId: string, pointId: string, a: AttemptFiles): AttemptsTable {
  const s = a.status;
  return {
    run_id: runId,
    point_id: pointId,
    attempt: a.attempt,
    status: s?.status ?? 'incomplete',
    phase: s?.phase ?? null,
    reason: s ? s.reason : a.statusProblem,
    interrupted: bit(s?.interrupted ?? false),
    valid: s?.valid == null ? null : bit(s.valid),
    started_at: s?.startedAt ?? a.point?.startedAt ?? null,
    finished_at: s?.finishedAt ?? null,
    duration_s: s?.durationS ?? null,
    host: s?.host ?? a.point?.host ?? null,
    slurm_job_id: a.point?.slurmJobId ?? null,
    result_sha256: a.result?.sha256 ?? null,
  };
}

function evalRow(
  runId: string,
  spec: PointSpec,
  attempt: number,
  configKey: string,
  e: PointEvalOutcome,
): PointEvalsTable {
  return {
    run_id: runId,
    point_id: spec.pointId,
    attempt,
    config_key: configKey,
    conc: spec.conc,
    task: e.task,
    eval_only: bit(spec.eval?.evalOnly === true),
    strict_match: e.scores['strict-match'],
    strict_match_stderr: null,
    flexible_extract: e.scores['flexible-extract'],
    flexible_extract_stderr: null,
    threshold: e.threshold,
    threshold_source: e.source,
    threshold_rule: e.rule,
    pass: bit(e.pass),
    simulated: bit(e.simulated),
    samples: e.samples,
    failed_samples: e.failed,
    results_sha256: null,
  };
}

const summary = (a: AttemptFiles): AttemptSummary => ({
  attempt: a.attempt,
  status: a.status?.status ?? 'incomplete',
  phase: a.status?.phase ?? null,
  reason: a.status ? a.status.reason : a.statusProblem,
  interrupted: a.status?.interrupted ?? false,
  result: a.result !== null,
});

export function runRows(c: RunDirContents): RunRows {
  const m = c.manifest;
  const runId = m.runId;
  const source = m.source;
  const sourceFiles =
    source.kind === 'configs' ? [...source.configFiles, source.runnerConfig] : [source.file];
  const out: RunRows = {
    run: {
      run_id: runId,
      created_at: m.createdAt,
      infx_version: m.infxVersion,
      host: m.host.hostname,
      source_kind: source.kind,
      source_files: JSON.stringify(sourceFiles),
      executor: m.options.executor,
      seed: m.seed,
      planned_points: 0,
      ingested_points: 0,
      failed_points: 0,
      missing_points: 0,
      manifest_sha256: c.manifestSha256,
      manifest_json: c.manifestJson,
      simulated_results: 0,
      real_results: 0,
      provenance_json: m.provenance ? JSON.stringify(m.provenance) : null,
      pr_number: m.provenance?.prNumber ?? null,
      sweep_active: c.sweepActive ? 1 : 0,
    },
    configs: [],
    points: [],
    attempts: [],
    results: [],
    documents: [],
    details: [],
    issues: [],
    engines: { simulated: 0, real: 0 },
    evalsBelow: [],
    evals: [],
    evalSamples: [],
  };
  const configs = new Map<string, ConfigsTable>();
  for (const p of c.points) {
    const spec = p.spec;
    const s = storable(spec);
    if ('problem' in s) {
      out.issues.push({
        file: `${c.runDir}/manifest.json`,
        jsonPath: null,
        pointId: spec.pointId,
        attempt: null,
        problem: s.problem,
      });
      continue;
    }
    const { identity } = s;
    const choice = choosePoint(p);
    const chosen = choice.attempt;
    const engine = pointEngine(spec, chosen);
    out.engines[engine]++;
    const key = pointConfigKey(identity, engine);
    const verdict = chosen?.status?.eval;
    if (chosen && verdict) {
      if (!verdict.pass) out.evalsBelow.push(spec.pointId);
      out.evals.push(evalRow(runId, spec, chosen.attempt, key, verdict));
    }
    if (!configs.has(key)) configs.set(key, configRow(key, identity, engine));
    out.points.push({
      run_id: runId,
      point_id: spec.pointId,
      point_index: spec.index,
      config_key: key,
      conc: spec.conc,
      gpus: spec.gpus.total,
      image: spec.row.image,
      bucket: spec.bucket,
      outcome: choice.outcome,
      chosen_attempt: chosen?.attempt ?? null,
      attempts: p.attempts.length,
      phase: choice.phase,
      reason: choice.reason,
    });
    for (const a of p.attempts) out.attempts.push(attemptRow(runId, spec.pointId, a));
    if (chosen?.result) {
      out.results.push({
        run_id: runId,
        point_id: spec.pointId,
        attempt: chosen.attempt,
        config_key: key,
        conc: spec.conc,
        gpus: spec.gpus.total,
        image: spec.row.image,
        run_created_at: m.createdAt,
        engine_kind: chosen.result.engine.kind,
        simulator: chosen.result.engine.simulator,
        ...chosen.result.hot,
        valid: bit(chosen.result.valid),
        result_sha256: chosen.result.sha256,
      });
      out.documents.push({ run_id: runId, point_id: spec.pointId, result_json: chosen.result.json });
      out.run[`${chosen.result.engine.kind}_results`]++;
    }
    const counter = `${choice.outcome}_points` as const;
    out.run[counter]++;
    out.run.planned_points++;
    out.details.push({
      pointId: spec.pointId,
      configKey: key,
      conc: spec.conc,
      outcome: choice.outcome,
      attempt: chosen?.attempt ?? null,
      phase: choice.phase,
      reason: choice.reason,
      attempts: p.attempts.map(summary),
    });
  }
  out.configs = [...configs.values()];
  return out;
}
