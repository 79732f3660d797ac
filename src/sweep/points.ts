import { rowGpus, workerGpus } from '../matrix/gpus.ts';
import { resultName, seqLenName } from '../matrix/naming.ts';
import { notRunnable } from '../metrics/aggregate.ts';
import { InfxError } from '../schema/errors.ts';
import { isFixed, isMultiNode, type MatrixRow } from '../schema/matrix-row.ts';
import {
  type BenchDefaults,
  referencePromptCount,
  referenceWarmupCount,
} from '../schema/reference-client.ts';
import type { PointEngine, PointSpec, SimFault, SkippedRow } from '../schema/run-dir.ts';
import { pointIdProblem, RUN_DIR_SCHEMA_VERSION, runIdProblem } from '../schema/run-dir.ts';
import type { TraceCorpus } from '../schema/workload.ts';
import { rowWorkloadKind } from '../schema/workload.ts';
import { type EvalPlanDefaults, evalSpecOf } from './point-eval-plan.ts';

/**
 * Matrix rows → benchmark points: one per row and concurrency (a multi-node row carries a list), each
 * with a stable id (the reference's result file name), its fail-fast bucket, its GPUs and everything the
 * client and engine need. Rows a sweep cannot run yet are listed with the reason.
 */

export class SweepPlanError extends InfxError {}

/** A fault for the points whose id contains `match` (or the n-th point with `#n`). */
export interface FaultRule {
  match: string;
  fault: SimFault;
}

export interface PlanPointsOptions {
  runId: string;
  canary: boolean;
  bench: BenchDefaults;
  engine: Omit<PointEngine, 'faults'>;
  faults: readonly FaultRule[];
  /** The trace corpus agentic-coding rows replay; absent or null: those rows are listed as not run. */
  agentic?: AgenticPlanDefaults | null;
  /** `run-eval` rows' eval settings (`--eval-dataset`, `--accuracy`); absent: those rows are not run. */
  eval?: EvalPlanDefaults | null;
}

/** What an agentic point takes from the sweep rather than its row: the corpus and the replay's settings. */
export interface AgenticPlanDefaults {
  /** `infx sweep --traces`: the corpus of every agentic row; null: each row's public corpus (`publicCorpora`). */
  traces: TraceCorpus | null;
  /**
   * Without --traces: by model prefix, the public corpus found in the local Hugging Face cache, or why none
   * was (agentic-corpus.ts withPublicCorpora fills it); a prefix not here is not run.
   */
  publicCorpora?: ReadonlyMap<string, TraceCorpus | string>;
  maxContextTokens: number | null;
  /** agentx-fast (`--agentx-fast`): 1200 s, one warmup request per lane. */
  fast: boolean;
  /** `--agentic-duration`: the profiling phase instead of the row's (under 900 s no point is a valid submission). */
  durationS: number | null;
}

/** The reference's agentic settings (client-metrics §2.5–2.7): agentx-fast is a run of 1200 s or less. */
export const AGENTIC_REFERENCE = {
  fastDurationS: 1200,
  warmupRequestsPerLane: 10,
  fastWarmupRequestsPerLane: 1,
  warmupGraceS: 1800,
  failedRequestThreshold: 0.1,
} as const;

export const NO_CORPUS_REASON =
  'agentic-coding rows need a trace corpus: give infx sweep --traces FILE (infx trace synth writes one)';

/** The corpus an agentic row replays, or why it has none. */
function corpusOf(row: MatrixRow, agentic: AgenticPlanDefaults | null | undefined): TraceCorpus | string {
  if (!agentic) return NO_CORPUS_REASON;
  if (agentic.traces) return agentic.traces;
  return agentic.publicCorpora?.get(row['model-prefix']) ?? NO_CORPUS_REASON;
}

function bucketOf(row: MatrixRow): string {
  const side = isMultiNode(row) ? 'multi-node' : 'single-node';
  return isFixed(row) ? `${side} ${seqLenName(row.isl, row.osl)}` : `${side} agentic`;
}

function unsupported(row: MatrixRow): string | null {
  const missing = notRunnable(rowWorkloadKind(row));
  if (missing) return missing.plan;
  if (row['eval-only'] === true && row['run-eval'] !== true)
    return 'an eval-only row without run-eval has nothing to run (no benchmark, no eval): set run-eval: true';
  if (row['eval-only'] === true && !isFixed(row))
    return 'eval-only agentic rows are not run: infx runs its GSM8K eval on fixed-length rows only';
  return null;
}

function benchOf(
  row: MatrixRow,
  conc: number,
  opts: PlanPointsOptions,
  traces: TraceCorpus | null,
): PointSpec['bench'] {
  const { numPrompts, warmup, randomRangeRatio, endpoint, ...client } = opts.bench;
  if (isFixed(row))
    return {
      kind: 'fixed-seq-len',
      ...opts.bench,
      isl: row.isl,
      osl: row.osl,
      numPrompts: numPrompts ?? referencePromptCount(conc),
      warmup: warmup ?? referenceWarmupCount(conc),
    };
  const agentic = opts.agentic as AgenticPlanDefaults;
  const fast = agentic.fast;
  return {
    kind: 'agentic-coding',
    traces: traces as TraceCorpus,
    durationS: agentic.durationS ?? (fast ? AGENTIC_REFERENCE.fastDurationS : row.duration),
    warmup: {
      startMinRatio: 0.25,
      startMaxRatio: 0.75,
      requestsPerLane: fast
        ? AGENTIC_REFERENCE.fastWarmupRequestsPerLane
        : AGENTIC_REFERENCE.warmupRequestsPerLane,
      graceS: AGENTIC_REFERENCE.warmupGraceS,
    },
    maxContextTokens: agentic.maxContextTokens,
    fast,
    endpoint: 'chat',
    ...client,
    maxFailureRate: AGENTIC_REFERENCE.failedRequestThreshold,
  };
}

/** Parses `--sim-fault SELECTOR=KIND[:N][@ATTEMPT,...]`, e.g. `conc4=no-start@1`, `#2=crash-after:10`. */
export function parseFaultRule(text: string): FaultRule {
  const m = /^(.+?)=(no-start|hang|crash-after)(?::(\d+))?(?:@(\d+(?:,\d+)*))?$/.exec(text);
  if (!m)
    throw new SweepPlanError(
      `--sim-fault '${text}': expected SELECTOR=no-start|hang|crash-after:N[@ATTEMPTS], e.g. conc8=crash-after:20@1`,
    );
  const [, match, kind, n, attempts] = m as unknown as [string, string, SimFault['kind'], string?, string?];
  if (kind === 'crash-after' && !n)
    throw new SweepPlanError(`--sim-fault '${text}': crash-after needs a request count, e.g. crash-after:20`);
  return {
    match,
    fault: {
      kind,
      requests: kind === 'crash-after' ? Number(n) : null,
      attempts: attempts ? attempts.split(',').map(Number) : null,
    },
  };
}

function matches(rule: FaultRule, pointId: string, index: number): boolean {
  return rule.match.startsWith('#')
    ? Number(rule.match.slice(1)) === index + 1
    : pointId.includes(rule.match);
}

/** The reference's canary: the lowest-concurrency single-node 1k1k point, then 8k1k; first on ties. */
function canaryIndex(points: readonly PointSpec[]): number {
  let best = -1;
  for (const bucket of ['single-node 1k1k', 'single-node 8k1k']) {
    points.forEach((p, i) => {
      if (p.bucket !== bucket || p.row['run-eval'] === true) return;
      const current = points[best];
      if (best < 0 || (current && p.conc < current.conc)) best = i;
    });
  }
  return best;
}

export function planPoints(
  rows: readonly MatrixRow[],
  opts: PlanPointsOptions,
): { points: PointSpec[]; skipped: SkippedRow[] } {
  const skipped: SkippedRow[] = [];
  const points: PointSpec[] = [];
  const seen = new Map<string, number>();
  const runIdBad = runIdProblem(opts.runId);
  if (runIdBad) throw new SweepPlanError(runIdBad);
  rows.forEach((row, index) => {
    const corpus = isFixed(row) ? null : corpusOf(row, opts.agentic);
    const evalSpec = evalSpecOf(row, opts.eval, opts.engine.kind);
    const reason =
      unsupported(row) ??
      (typeof corpus === 'string' ? corpus : null) ??
      (typeof evalSpec === 'string' ? evalSpec : null);
    if (reason) {
      skipped.push({ index, expName: row['exp-name'], reason });
      return;
    }
    const concs = Array.isArray(row.conc) ? row.conc : [row.conc];
    for (const conc of concs) {
      // An eval-only point is the eval of a benchmark point's row: its own name, as the reference's eval_ artifacts.
      const base = `${row['eval-only'] === true ? 'eval_' : ''}${resultName(row, [conc])}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      const split = isMultiNode(row) && row.prefill['num-worker'] > 0 && row.decode['num-worker'] > 0;
      const pointId = n === 1 ? base : `${base}~${n}`;
      // The point id names a folder: a row whose names would climb out of the run directory is refused.
      const bad = pointIdProblem(pointId);
      if (bad)
        throw new SweepPlanError(
          `matrix row ${index} (exp-name ${JSON.stringify(row['exp-name'])}, model-prefix ` +
            `${JSON.stringify((row as { 'model-prefix'?: unknown })['model-prefix'] ?? null)}, runner ${JSON.stringify(row.runner)}): ${bad}; ` +
            'fix the names in the config or matrix file (model-prefix, exp-name, precision, framework, runner)',
        );
      points.push({
        schemaVersion: RUN_DIR_SCHEMA_VERSION,
        runId: opts.runId,
        pointId,
        index: points.length,
        bucket: bucketOf(row),
        canary: false,
        conc,
        row,
        // The prefill/decode split exists where both pools do; an aggregated pool's GPUs all serve both.
        gpus: {
          total: rowGpus(row),
          prefill: split ? workerGpus(row.prefill) : null,
          decode: split ? workerGpus(row.decode) : null,
        },
        bench: benchOf(row, conc, opts, corpus as TraceCorpus | null),
        engine: { ...opts.engine, faults: [] },
        ...(evalSpec !== null && typeof evalSpec !== 'string' ? { eval: evalSpec } : {}),
      });
    }
  });
  if (opts.canary) {
    const i = canaryIndex(points);
    if (i >= 0) {
      const [canary] = points.splice(i, 1) as [PointSpec];
      points.unshift({ ...canary, canary: true });
    }
  }
  points.forEach((p, i) => {
    p.index = i;
    p.engine.faults = opts.faults.filter((r) => matches(r, p.pointId, i)).map((r) => r.fault);
  });
  for (const rule of opts.faults)
    if (!points.some((p, i) => matches(rule, p.pointId, i)))
      throw new SweepPlanError(`--sim-fault '${rule.match}' matches no point of this sweep`);
  return { points, skipped };
}
