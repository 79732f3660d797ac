import { type AgenticTrace, isSubagent } from '../../schema/agentic-trace.ts';
import { type CorpusOptions, type CorpusReport, newReport, readCorpus } from './corpus.ts';
import { apiCalls, callsInTimeOrder } from './walk.ts';

/**
 * `infx trace stats`: the shape of a corpus, and the static theoretical prefix-cache hit rate the replay's
 * runtime figure converges to (addendum §1.4). Traces are added one at a time, so a corpus of any size is
 * summarised with memory for two numbers per call.
 */

export interface Distribution {
  min: number;
  median: number;
  p90: number;
  max: number;
}

export interface TraceStats {
  traces: number;
  /** Every `n`/`s` call, the main agents' and those inside subagents. */
  requests: number;
  /** The main agents' calls. */
  topLevelTurns: number;
  subagents: number;
  /** Calls inside subagents. */
  subagentRequests: number;
  inputTokens: Distribution | null;
  outputTokens: Distribution | null;
  /** `max(in + out)` over every call: the context a server needs to serve the whole corpus. */
  maxContext: number;
  /** Σhit / Σlen(hash_ids) over the corpus (a fraction, 0–1); null when no call has a hash id. */
  theoreticalPrefixCacheHitRate: number | null;
  hashBlocks: { hit: number; total: number };
}

/** A percentile by linear interpolation between closest ranks (NumPy's default), `q` in [0, 100]. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = ((sorted.length - 1) * q) / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

function distribution(values: number[]): Distribution | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return {
    min: sorted[0] as number,
    median: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    max: sorted[sorted.length - 1] as number,
  };
}

/**
 * One trace's theoretical prefix-cache blocks: one seen-set over the root and its subagents, calls
 * visited in `(t, outer index, inner index)` order; a call's hit is the leading run of its `hash_ids`
 * already seen (stopping at the first miss: a prefix, not an intersection); then all its ids are seen.
 */
export function tracePrefixHits(trace: AgenticTrace): { hit: number; total: number } {
  const seen = new Set<number>();
  let hit = 0;
  let total = 0;
  for (const { call } of callsInTimeOrder(trace)) {
    const ids = call.hash_ids;
    let run = 0;
    while (run < ids.length && seen.has(ids[run] as number)) run++;
    hit += run;
    total += ids.length;
    for (const id of ids) seen.add(id);
  }
  return { hit, total };
}

export class TraceStatsAccumulator {
  private traces = 0;
  private topLevel = 0;
  private subagents = 0;
  private inner = 0;
  private maxContext = 0;
  private hit = 0;
  private total = 0;
  private readonly inputs: number[] = [];
  private readonly outputs: number[] = [];

  add(trace: AgenticTrace): void {
    this.traces++;
    for (const entry of trace.requests) if (isSubagent(entry)) this.subagents++;
    for (const { call, inner } of apiCalls(trace)) {
      if (inner === -1) this.topLevel++;
      else this.inner++;
      this.inputs.push(call.in);
      this.outputs.push(call.out);
      this.maxContext = Math.max(this.maxContext, call.in + call.out);
    }
    const blocks = tracePrefixHits(trace);
    this.hit += blocks.hit;
    this.total += blocks.total;
  }

  result(): TraceStats {
    return {
      traces: this.traces,
      requests: this.topLevel + this.inner,
      topLevelTurns: this.topLevel,
      subagents: this.subagents,
      subagentRequests: this.inner,
      inputTokens: distribution(this.inputs),
      outputTokens: distribution(this.outputs),
      maxContext: this.maxContext,
      theoreticalPrefixCacheHitRate: this.total === 0 ? null : this.hit / this.total,
      hashBlocks: { hit: this.hit, total: this.total },
    };
  }
}

export function traceStats(traces: Iterable<AgenticTrace>): TraceStats {
  const acc = new TraceStatsAccumulator();
  for (const t of traces) acc.add(t);
  return acc.result();
}

/** Token counts as read: whole numbers, a percentile between two samples to one decimal. */
const tokens = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(1));

const dist = (d: Distribution | null) =>
  d === null
    ? '-'
    : `min ${tokens(d.min)}, median ${tokens(d.median)}, p90 ${tokens(d.p90)}, max ${tokens(d.max)}`;

/** The human-readable summary. */
export function formatTraceStats(s: TraceStats): string {
  const rate = s.theoreticalPrefixCacheHitRate;
  return [
    `traces                 ${s.traces}`,
    `requests               ${s.requests} (${s.topLevelTurns} top-level, ${s.subagentRequests} in subagents)`,
    `top-level turns        ${s.topLevelTurns}`,
    `subagents              ${s.subagents}`,
    `input tokens           ${dist(s.inputTokens)}`,
    `output tokens          ${dist(s.outputTokens)}`,
    `maximum context        ${s.maxContext} tokens (max in + out)`,
    `theoretical prefix-cache hit rate  ${rate === null ? '-' : `${(rate * 100).toFixed(2)}%`} ` +
      `(${s.hashBlocks.hit} of ${s.hashBlocks.total} blocks)`,
    '',
  ].join('\n');
}

/** `infx trace stats --format json`: the corpus's figures, what was read, and what `--max-context` left out. */
export interface CorpusStats extends TraceStats {
  files: string[];
  maxContextFilter: number | null;
  droppedTraces: number;
}

/** Reads `files` one trace at a time and summarises them; `progress` hears the traces read so far. */
export async function corpusStats(
  files: readonly string[],
  options: CorpusOptions = {},
  progress?: (traces: number) => void,
): Promise<{ stats: CorpusStats; report: CorpusReport }> {
  const report = newReport(files, options);
  const acc = new TraceStatsAccumulator();
  for await (const trace of readCorpus(files, options, report)) {
    acc.add(trace);
    progress?.(report.traces);
  }
  const stats = {
    ...acc.result(),
    files: [...files],
    maxContextFilter: report.maxContext,
    droppedTraces: report.dropped.length,
  };
  return { stats, report };
}
