import type { AgenticAccounting } from '../../schema/agentic-metrics.ts';
import type { AgenticRequestRecord } from '../../schema/agentic-record.ts';
import { outcomeOf, tokensOf } from '../records.ts';

/**
 * Which agentic records the metrics use (client-metrics-spec §4.4): the kept ones are profiling-phase
 * records without an error. A cut-off (cancelled) record is an error record in the reference too
 * (`was_cancelled`, code 499), so it is dropped; it is also counted apart.
 */

export const isWarmup = (r: AgenticRequestRecord): boolean => r.phase !== 'benchmark';

/** Failed, cancelled, or with an error attached: the reference's truthy `error`. */
export const isErrorRecord = (r: AgenticRequestRecord): boolean => !r.ok || r.cancelled || r.error !== null;

export const isKept = (r: AgenticRequestRecord): boolean => !isWarmup(r) && !isErrorRecord(r);

export function accountingOf(records: readonly AgenticRequestRecord[]): AgenticAccounting {
  let warmup = 0;
  let errors = 0;
  let kept = 0;
  let cancelled = 0;
  const categories: Record<string, number> = {};
  for (const r of records) {
    const w = isWarmup(r);
    const e = isErrorRecord(r);
    if (w) warmup++;
    if (e) {
      errors++;
      const category = r.error?.category ?? (r.cancelled ? 'cancelled' : 'other');
      categories[category] = (categories[category] ?? 0) + 1;
      if (!w && outcomeOf(r) === 'cancelled') cancelled++;
    }
    if (!w && !e) kept++;
  }
  return {
    recordsTotal: records.length,
    recordsProfiled: kept,
    recordsDroppedTotal: records.length - kept,
    recordsWarmupDropped: warmup,
    recordsErrorDropped: errors,
    recordsCancelled: cancelled,
    errorCategories: categories,
  };
}

/** The per-request values of one kept record (§3.2), ms on the records' clock; null where undefined. */
export interface AgenticMeasure {
  isl: number;
  osl: number;
  expectedOsl: number | null;
  startMs: number;
  endMs: number | null;
  ttftMs: number | null;
  /** Sent → last content token (usage-only chunks excluded). */
  requestLatencyMs: number | null;
  /** (request latency − TTFT) / (OSL − 1); needs OSL ≥ 2. The same quantity as TPOT. */
  itlMs: number | null;
  /** (response end − first token) / (OSL − 1); needs OSL ≥ 2. */
  fullResponseItlMs: number | null;
  /** The latest time the record gave a TTFT or ITL observation (first or last token). */
  observedMs: number | null;
}

export function measureOf(r: AgenticRequestRecord): AgenticMeasure {
  // The server's usage counts, as the reference's --use-server-token-count; the client's when rejected.
  const t = tokensOf(r);
  const ttftMs = r.firstTokenMs === null ? null : r.firstTokenMs - r.sentMs;
  const requestLatencyMs = r.lastTokenMs === null ? null : r.lastTokenMs - r.sentMs;
  const perToken = t.output >= 2 ? t.output - 1 : null;
  const itlMs =
    perToken !== null && ttftMs !== null && requestLatencyMs !== null
      ? (requestLatencyMs - ttftMs) / perToken
      : null;
  const fullResponseItlMs =
    perToken !== null && r.doneMs !== null && r.firstTokenMs !== null
      ? (r.doneMs - r.firstTokenMs) / perToken
      : null;
  const observed = [r.firstTokenMs, r.lastTokenMs].filter((v): v is number => v !== null);
  return {
    isl: t.input,
    osl: t.output,
    expectedOsl: r.agentic.expectedOutputTokens,
    startMs: r.sentMs,
    endMs: r.doneMs,
    ttftMs,
    requestLatencyMs,
    itlMs,
    fullResponseItlMs,
    observedMs: observed.length === 0 ? null : Math.max(...observed),
  };
}
