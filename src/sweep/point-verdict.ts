import type { PointResult } from '../schema/point-result.ts';
import type { PointPhase } from '../schema/run-dir.ts';

/**
 * What a finished measurement says of its point, one judgement for every way a point is measured: a
 * sweep's attempt with the engine it started (point-run.ts) and `infx bench` against a running server
 * (bench-sweep.ts).
 */

export interface PointFailure {
  phase: PointPhase;
  reason: string;
  /** The engine went away on its own: the cause is in its log (src/engines/log-tail.ts). */
  engineGone?: boolean;
}

function summarizeErrors(result: PointResult, warmup: boolean): string {
  const by = warmup ? result.errors.warmupByCategory : result.errors.byCategory;
  const parts = Object.entries(by).map(([k, n]) => `${n} ${k}`);
  const sample = result.errors.samples[0];
  return `${parts.join(', ') || 'no details'}${sample ? `; e.g. ${sample.message}` : ''}`;
}

/**
 * Where a finished benchmark failed, if it did: nothing came back from warmup, the engine died (`engineDied`,
 * its cause), the gate failed, or the run was stopped before its end (`stopped`).
 */
export function judge(result: PointResult, engineDied: string | null, stopped = false): PointFailure | null {
  const c = result.counts;
  if (c.warmupCompleted === 0 && c.warmupFailed > 0)
    return { phase: 'warmup', reason: `every warmup request failed (${summarizeErrors(result, true)})` };
  if (engineDied) return { phase: 'benchmark', reason: engineDied, engineGone: true };
  if (!result.gate.passed) return { phase: 'benchmark', reason: result.gate.reason ?? 'the gate failed' };
  if (stopped) return { phase: 'benchmark', reason: 'stopped before the end' };
  return null;
}

/** Why a result that ran to its end is not valid (who set the pace). */
export function invalidReason(r: PointResult): string {
  const why = [
    // An agentic point: why the reference would not take it as a submission.
    ...(r.agentic && !r.agentic.submissionValid
      ? [`not a valid submission: ${r.agentic.submissionInvalidReasons.join(', ')}`]
      : []),
    ...(r.engine.engineLimited ? r.engine.reasons.map((x) => `engine-limited: ${x}`) : []),
    ...(r.client.clientLimited ? r.client.reasons.map((x) => `client-limited: ${x}`) : []),
  ];
  return why.join('; ') || 'the client or the engine set the pace';
}
