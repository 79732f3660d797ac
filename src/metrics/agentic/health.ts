import type {
  AgenticCoverage,
  AgenticErrorGate,
  AgenticHealth,
  SubmissionInvalidReason,
} from '../../schema/agentic-metrics.ts';
import type { AgenticRequestRecord } from '../../schema/agentic-record.ts';
import { outcomeOf, tokensOf } from '../records.ts';
import { isKept, isWarmup } from './records.ts';

/** Health counters and validity gates of an agentic point (client-metrics-spec §2.8, §2.10; addendum §1.11). */

/** AIPerf agentx-v1.0.4: observations must reach through this fraction of the profiling phase. */
export const REQUIRED_COVERAGE = 0.98;
/** Over this share of profiling requests overflowing the context, a run is not a valid submission. */
export const MAX_CONTEXT_OVERFLOW_RATE = 0.01;
/** `--failed-request-threshold` / AIPERF_FAILED_REQUEST_THRESHOLD. */
export const FAILED_REQUEST_THRESHOLD = 0.1;
/** The shortest profiling phase of a valid submission, s. */
export const MIN_SUBMISSION_DURATION_S = 900;

export function healthOf(records: readonly AgenticRequestRecord[], creditDropCount: number): AgenticHealth {
  const profiling = records.filter((r) => !isWarmup(r));
  let overflow = 0;
  let oslMismatch = 0;
  let cancelled = 0;
  const children = new Map<string, { errored: boolean; truncated: boolean }>();
  for (const r of profiling) {
    const outcome = outcomeOf(r);
    if (r.error?.category === 'context_overflow') overflow++;
    if (outcome === 'cancelled') cancelled++;
    const expected = r.agentic.expectedOutputTokens;
    if (isKept(r) && expected !== null && tokensOf(r).output !== expected) oslMismatch++;
    if (r.agentic.branch.kind !== 'root') {
      const c = children.get(r.agentic.correlationId) ?? { errored: false, truncated: false };
      if (outcome === 'failed') c.errored = true;
      if (outcome === 'cancelled') c.truncated = true;
      children.set(r.agentic.correlationId, c);
    }
  }
  const list = [...children.values()];
  return {
    contextOverflowCount: overflow,
    contextOverflowRate: profiling.length === 0 ? null : overflow / profiling.length,
    oslMismatchCount: oslMismatch,
    creditDropCount,
    cancelledCount: cancelled,
    branchStats: {
      childrenSpawned: list.length,
      childrenErrored: list.filter((c) => c.errored).length,
      childrenTruncated: list.filter((c) => c.truncated).length,
    },
  };
}

/**
 * The coverage gate: the latest TTFT/ITL observation of a kept record must lie at or past 98% of the
 * profiling phase `[startMs, endMs]`. A phase of no length has nothing to cover and passes.
 */
export function coverageOf(
  observedMs: readonly (number | null)[],
  phase: { startMs: number; endMs: number },
): AgenticCoverage {
  const seen = observedMs.filter((v): v is number => v !== null);
  const last = seen.length === 0 ? null : Math.max(...seen);
  const length = phase.endMs - phase.startMs;
  const fraction =
    last === null ? null : length > 0 ? Math.min(1, Math.max(0, (last - phase.startMs) / length)) : 1;
  return {
    phaseStartMs: phase.startMs,
    phaseEndMs: phase.endMs,
    lastObservationMs: last,
    fraction,
    required: REQUIRED_COVERAGE,
    passed: length <= 0 || (fraction !== null && fraction >= REQUIRED_COVERAGE),
  };
}

const pct = (v: number) => `${(100 * v).toFixed(3)}%`;

/**
 * validate_agentic_result's error gate, inclusive: errors / completed ≤ threshold, where errors are the
 * failed profiling requests and completed the failed plus the successful (cancellations are neither).
 */
export function errorGateOf(
  records: readonly AgenticRequestRecord[],
  threshold: number = FAILED_REQUEST_THRESHOLD,
): AgenticErrorGate {
  let errors = 0;
  let ok = 0;
  for (const r of records) {
    if (isWarmup(r)) continue;
    const o = outcomeOf(r);
    if (o === 'failed') errors++;
    else if (o === 'completed') ok++;
  }
  const completed = ok + errors;
  if (completed <= 0)
    return { errors, completed, threshold, passed: false, message: 'no completed profiling requests' };
  const rate = errors / completed;
  return rate <= threshold
    ? { errors, completed, threshold, passed: true, message: null }
    : {
        errors,
        completed,
        threshold,
        passed: false,
        message: `aiperf request error rate exceeded the benchmark limit: ${errors}/${completed} = ${pct(rate)} > ${pct(threshold)}`,
      };
}

export interface ValidityFacts {
  coverage: AgenticCoverage;
  health: AgenticHealth;
  errorGate: AgenticErrorGate;
  /** The live error gate stopped the replay (AIPerf cancelled the run). */
  runCancelled: boolean;
  durationS: number;
  kept: number;
}

/** `submission_valid` and why not, in a fixed order. */
export function submissionValidity(f: ValidityFacts): {
  valid: boolean;
  reasons: SubmissionInvalidReason[];
} {
  const reasons: SubmissionInvalidReason[] = [];
  if (f.kept === 0) reasons.push('no_successful_requests');
  if (!f.coverage.passed) reasons.push('insufficient_profile_metric_coverage');
  const overflow = f.health.contextOverflowRate;
  if (overflow !== null && overflow > MAX_CONTEXT_OVERFLOW_RATE)
    reasons.push('context_overflow_rate_exceeded');
  if (f.runCancelled) reasons.push('run_cancelled');
  if (!f.errorGate.passed) reasons.push('error_rate_exceeded');
  if (f.durationS < MIN_SUBMISSION_DURATION_S) reasons.push('duration_below_submission_minimum');
  return { valid: reasons.length === 0, reasons };
}
