import type { PointResult } from '../schema/point-result.ts';

/**
 * What a result.json's schema admits but no measurement can produce, and whether its requests.jsonl is
 * whole: checked by ingest and verify (src/store/run-dir-files.ts) before a result is stored. A result
 * that fails either is not used; the input issue names the file and the JSON path (or line).
 *
 * - Impossible values: a negative throughput, latency, interactivity, duration or token rate; a failure
 *   rate outside 0–1; more completed or failed requests than were scheduled. (Non-finite numbers cannot
 *   be written in JSON; `1e999`, which parses as Infinity, is refused by the schema.)
 * - requests.jsonl, when the attempt has one: every line a JSON object ending in a newline (a last line
 *   without one was cut off), and as many benchmark records as result.json's counts.scheduled, and at
 *   least counts.warmupCompleted + counts.warmupFailed warmup records. A result without a requests.jsonl
 *   is not checked against it (synthetic runs carry none).
 */

export interface ValueProblem {
  jsonPath: string;
  problem: string;
}

/**
 * Subtrees of a result in which every number is a non-negative measurement. (Not queueInclusive: on the
 * engine clock an open-loop request can reach the engine before it is due, a negative queue time.)
 */
const NON_NEGATIVE = [
  'throughput',
  'latency',
  'interactivity',
  'steadyState.throughput',
  'steadyState.latency',
  'steadyState.interactivity',
  'steadyState.durationS',
  'wallClock.throughput',
  'wallClock.latency',
  'wallClock.interactivity',
  'wallClock.durationS',
  'timing.durationS',
  'timing.wallDurationS',
  'client.eventLoopDelayMs',
  'client.eventLoopUtilization',
  'client.cpuPercent',
] as const;

function at(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const k of path.split('.')) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** The first number below zero (or not finite) under `v`, with its path. */
function firstNegative(v: unknown, path: string): ValueProblem | null {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { jsonPath: path, problem: `${v} is not a finite number` };
    if (v < 0) return { jsonPath: path, problem: `${v} is negative, which no measurement can be` };
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  for (const [k, child] of Object.entries(v)) {
    const found = firstNegative(child, Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`);
    if (found) return found;
  }
  return null;
}

/** The first impossible value of a schema-valid result, or null. */
export function impossibleValue(r: PointResult): ValueProblem | null {
  for (const path of NON_NEGATIVE) {
    const found = firstNegative(at(r, path), path);
    if (found) return { jsonPath: found.jsonPath, problem: `${found.jsonPath}: ${found.problem}` };
  }
  const c = r.counts;
  if (!(c.failureRate >= 0 && c.failureRate <= 1))
    return {
      jsonPath: 'counts.failureRate',
      problem: `counts.failureRate: ${c.failureRate} is not between 0 and 1`,
    };
  for (const k of ['completed', 'failed', 'cancelled'] as const)
    if (c[k] > c.scheduled)
      return {
        jsonPath: `counts.${k}`,
        problem: `counts.${k}: ${c[k]} ${k} requests is more than the ${c.scheduled} scheduled`,
      };
  if (c.completed + c.failed + c.cancelled > c.scheduled)
    return {
      jsonPath: 'counts.scheduled',
      problem: `counts.scheduled: ${c.scheduled} scheduled requests cannot have ${c.completed} completed, ${c.failed} failed and ${c.cancelled} cancelled`,
    };
  return null;
}

/** What a requests.jsonl holds, as far as its completeness goes. */
export interface RequestsSummary {
  /** Complete lines (ending in a newline). */
  lines: number;
  benchmark: number;
  warmup: number;
  /** The 1-based number of a last line without its newline (cut off), else null. */
  partialLine: number | null;
  /** The first line that is not a JSON object with a phase, and why; null when all are. */
  bad: { line: number; message: string } | null;
}

/**
 * Summarizes a requests.jsonl. Self-contained (no outside references): the run directory's reader thread
 * (src/store/run-dir-prefetch.ts) runs this very function's source.
 */
export function summarizeRequests(text: string): RequestsSummary {
  // infx writes each record with its keys in schema order, so a whole line it wrote starts like this and
  // ends with '}': those are counted without parsing (a requests.jsonl can hold gigabytes); any other line is
  // parsed to tell a foreign but valid record from a damaged one.
  const written = /^\{"index":\d+,"phase":"(benchmark|warmup)",/;
  const out: RequestsSummary = { lines: 0, benchmark: 0, warmup: 0, partialLine: null, bad: null };
  let start = 0;
  let n = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    n++;
    if (end < 0) {
      out.partialLine = n;
      break;
    }
    const line = text.slice(start, end);
    start = end + 1;
    out.lines++;
    if (out.bad !== null) continue;
    const fast = line.endsWith('}') ? written.exec(line) : null;
    if (fast) {
      if (fast[1] === 'benchmark') out.benchmark++;
      else out.warmup++;
      continue;
    }
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch (err) {
      out.bad = { line: n, message: `not JSON (${(err as Error).message})` };
      continue;
    }
    const phase = typeof rec === 'object' && rec !== null ? (rec as { phase?: unknown }).phase : undefined;
    if (phase === 'benchmark') out.benchmark++;
    else if (phase === 'warmup') out.warmup++;
    else out.bad = { line: n, message: 'not a request record (no phase warmup or benchmark)' };
  }
  return out;
}

/** Why a requests.jsonl does not hold the records its result counts, or null when it does. */
export function requestsProblem(s: RequestsSummary, counts: PointResult['counts']): string | null {
  if (s.partialLine !== null)
    return `line ${s.partialLine} is cut off (the file does not end with a newline): requests.jsonl is truncated`;
  if (s.bad !== null) return `line ${s.bad.line} is ${s.bad.message}: requests.jsonl is damaged`;
  if (s.benchmark !== counts.scheduled)
    return (
      `${s.benchmark} benchmark records (${s.lines} lines), but result.json counts.scheduled says ${counts.scheduled}: ` +
      `requests.jsonl is ${s.benchmark < counts.scheduled ? 'truncated' : 'not the one of this result'}`
    );
  const warm = counts.warmupCompleted + counts.warmupFailed;
  if (s.warmup < warm)
    return `${s.warmup} warmup records, but result.json counts ${warm} warmup requests (counts.warmupCompleted + counts.warmupFailed): requests.jsonl is truncated`;
  return null;
}
