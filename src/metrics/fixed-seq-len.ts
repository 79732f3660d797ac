import { POINT_RESULT_SCHEMA_VERSION, type PointResult, type PointResultOf } from '../schema/point-result.ts';
import type { ErrorCategory, RequestRecord } from '../schema/request-record.ts';
import type { FixedSeqLenWorkload, Workload } from '../schema/workload.ts';
import { engineTimed, engineView, scaledView } from './clock-view.ts';
import { assessEngine } from './engine-gate.ts';
import { type Gpus, interactivityOf, latencyOf, throughputOf } from './measure.ts';
import type { PointInput } from './point-input.ts';
import { benchmarkRecords, endOf, outcomeOf, type TokenSource, tokensOf } from './records.ts';
import { steadyStateMetrics, steadyStateWindow, type WindowMetrics } from './steady-state.ts';

/** The input of the fixed-seq-len aggregator. */
export type AggregateInput = PointInput<FixedSeqLenWorkload>;

/** Messages kept per error category in `errors.samples`. */
export const ERROR_SAMPLES_PER_CATEGORY = 3;

type Counts = PointResult['counts'];
type Errors = PointResult['errors'];
type Gate = PointResult['gate'];

function countBy(records: readonly RequestRecord[]): Partial<Record<ErrorCategory, number>> {
  const out: Partial<Record<ErrorCategory, number>> = {};
  for (const r of records) {
    const c = r.error?.category ?? 'other';
    out[c] = (out[c] ?? 0) + 1;
  }
  return out;
}

/** Benchmark failures first, then warmup ones; distinct messages only, so samples tell different stories. */
function errorSamples(failures: readonly RequestRecord[]): Errors['samples'] {
  const seen = new Map<ErrorCategory, Set<string>>();
  const samples: Errors['samples'] = [];
  for (const r of failures) {
    const category = r.error?.category ?? 'other';
    const message = r.error?.message ?? '(the client recorded no error message)';
    const set = seen.get(category) ?? new Set<string>();
    seen.set(category, set);
    if (set.size >= ERROR_SAMPLES_PER_CATEGORY || set.has(message)) continue;
    set.add(message);
    samples.push({ category, message });
  }
  return samples;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * The failure gate. The reference fails a point when 1 − completed/num_prompts > 0.05; infx compares
 * failed/scheduled (cancellations at the end of the run are not the server's failures) with the same
 * inclusive bound, and also fails a point where nothing completed, which would otherwise pass with
 * every latency unmeasured.
 */
function gateOf(counts: Counts, maxFailureRate: number): Gate {
  const fail = (reason: string): Gate => ({ maxFailureRate, passed: false, reason });
  if (counts.scheduled === 0) return fail('no benchmark request was sent');
  if (counts.completed === 0) {
    return fail(
      `no request completed (${counts.failed} failed, ${counts.cancelled} cancelled of ${counts.scheduled})`,
    );
  }
  if (counts.failureRate > maxFailureRate) {
    return fail(
      `request failure rate ${pct(counts.failureRate)} > ${pct(maxFailureRate)} ` +
        `(${counts.failed} of ${counts.scheduled} failed)`,
    );
  }
  const flagged = counts.usageFlagged ?? 0;
  if (flagged / counts.scheduled > maxFailureRate) {
    return fail(
      `the server's token counts failed the usage check on ${pct(flagged / counts.scheduled)} of requests > ` +
        `${pct(maxFailureRate)} (${flagged} of ${counts.scheduled}; the client's counts were used for them)`,
    );
  }
  return { maxFailureRate, passed: true, reason: null };
}

function combinedSource(sources: ReadonlySet<TokenSource>): PointResult['tokens']['source'] {
  if (sources.size === 0) return 'none';
  if (sources.size === 1) {
    const [only] = sources;
    return only === 'none' ? 'none' : only!;
  }
  return 'mixed';
}

/**
 * Aggregates one fixed-seq-len point (spec §4.2) from its request records, on the clock `input.clock`
 * says (the engine's stamps, or the client's wall clock).
 *
 * Only successful benchmark-phase requests feed latency, throughput and token totals; warmup never
 * does. The measured window runs from the first benchmark request sent to the last one finished, drain
 * tail included, as the reference's `duration` does (warmup is outside it).
 *
 * `counts.failureRate` = failed / scheduled, where scheduled counts every benchmark request (cancelled
 * ones too) and failed excludes cancellations; it is 0 when nothing was scheduled (the gate fails that
 * point on its own).
 */
export function aggregatePoint(input: AggregateInput): PointResultOf<'fixed-seq-len'> {
  return { ...aggregateRecords(input, input.workload.ignoreEos), workload: input.workload };
}

/**
 * Every field of a result but the workload, from the records of a point of any kind: what the client
 * measured of its benchmark phase. `ignoreEos`: whether a short output means the stream was cut.
 */
export function aggregateRecords(
  input: PointInput<Workload>,
  ignoreEos: boolean,
): Omit<PointResult, 'workload'> {
  // The figures' view of the records: the engine's stamps, or wall times (× the time scale of a
  // simulated engine measured on the wall clock, so they read as simulated time).
  const scale = input.engine.timeScale ?? 1;
  const view = (r: RequestRecord) => (input.clock === 'engine' ? engineView(r) : scaledView(r, scale));
  const bench = benchmarkRecords(input.records).map(view);
  const warmup = input.records.filter((r) => r.phase === 'warmup').sort((a, b) => a.index - b.index);
  // On the engine clock, a request that never reached the engine (refused, reset) has no engine time.
  const timed = input.clock === 'engine' ? bench.filter(engineTimed) : bench;
  const successes: RequestRecord[] = [];
  const failures: RequestRecord[] = [];
  let cancelled = 0;
  for (const r of bench) {
    const o = outcomeOf(r);
    if (o === 'completed') successes.push(r);
    else if (o === 'failed') failures.push(r);
    else cancelled++;
  }
  const warmupFailures = warmup.filter((r) => outcomeOf(r) === 'failed');

  const inputTokens: number[] = [];
  const outputTokens: number[] = [];
  const sources = new Set<TokenSource>();
  const mismatch = { input: 0, output: 0 };
  const flagged = { input: 0, output: 0 };
  let usageFlagged = 0;
  let shortOutput = 0;
  for (const r of successes) {
    const t = tokensOf(r);
    if (r.usageFlag) {
      usageFlagged++;
      if (r.usageFlag.input) flagged.input++;
      if (r.usageFlag.output) flagged.output++;
    }
    inputTokens.push(t.input);
    outputTokens.push(t.output);
    sources.add(t.inputSource).add(t.outputSource);
    if (t.inputSource === 'server' && t.input !== r.inputTokens.client) mismatch.input++;
    const { client, requested } = r.outputTokens;
    if (t.outputSource === 'server' && client !== null && t.output !== client) mismatch.output++;
    // Without ignore_eos a short answer is a normal stop; with it, the stream was cut.
    if (ignoreEos && t.outputSource !== 'none' && t.output < requested) shortOutput++;
  }
  const totalInput = inputTokens.reduce((a, b) => a + b, 0);
  const totalOutput = outputTokens.reduce((a, b) => a + b, 0);

  const { startMs, endMs } = windowOf(timed);
  const durationS = (endMs - startMs) / 1000;
  const wallRecords = benchmarkRecords(input.records);
  const wall = windowOf(wallRecords);
  const wallDurationS = (wall.endMs - wall.startMs) / 1000;

  const counts: Counts = {
    scheduled: bench.length,
    completed: successes.length,
    failed: failures.length,
    cancelled,
    failureRate: bench.length > 0 ? failures.length / bench.length : 0,
    warmupCompleted: warmup.filter((r) => outcomeOf(r) === 'completed').length,
    warmupFailed: warmupFailures.length,
    shortOutput,
    usageFlagged,
  };
  const { latency, queueInclusive } = latencyOf(successes, outputTokens);
  const window = steadyStateWindow(timed, input.load.concurrency);
  const gate = gateOf(counts, input.maxFailureRate);
  const engine = assessEngine(input.engine, input.clock, wallDurationS * 1000, input.engineNotes);

  return {
    schemaVersion: POINT_RESULT_SCHEMA_VERSION,
    kind: 'point-result',
    tool: input.tool,
    createdAt: input.createdAt,
    seed: input.seed,
    target: input.target,
    engine,
    load: input.load,
    gpus: input.gpus,
    timing: {
      clockOriginUnixMs: input.clockOriginUnixMs,
      startMs,
      endMs,
      durationS,
      wallStartMs: wall.startMs,
      wallEndMs: wall.endMs,
      wallDurationS,
      startUnixMs: input.clockOriginUnixMs + wall.startMs,
      endUnixMs: input.clockOriginUnixMs + wall.endMs,
    },
    counts,
    tokens: { totalInput, totalOutput, source: combinedSource(sources), mismatch, flagged },
    errors: {
      byCategory: countBy(failures),
      warmupByCategory: countBy(warmupFailures),
      samples: errorSamples([...failures, ...warmupFailures]),
    },
    throughput: throughputOf(successes.length, totalInput, totalOutput, durationS, input.gpus),
    latency,
    queueInclusive,
    interactivity: interactivityOf(latency.tpotMs),
    steadyState: window && steadyStateMetrics(window, successes, inputTokens, outputTokens, input.gpus),
    wallClock:
      input.clock === 'engine'
        ? wallClockFigures(
            wallRecords.map((r) => scaledView(r, scale)),
            inputTokens,
            outputTokens,
            input.gpus,
          )
        : null,
    client: input.client,
    gate,
    valid: gate.passed && !input.client.clientLimited && !engine.engineLimited,
  };
}

/** From the first request sent to the last one finished (drain tail included). */
function windowOf(records: readonly RequestRecord[]): { startMs: number; endMs: number } {
  if (records.length === 0) return { startMs: 0, endMs: 0 };
  // Loops, not Math.min(...spread): a point can hold more records than a call has argument slots.
  let startMs = Number.POSITIVE_INFINITY;
  let endMs = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    startMs = Math.min(startMs, r.sentMs);
    endMs = Math.max(endMs, endOf(r));
  }
  return { startMs, endMs };
}

/**
 * The whole-window figures again from the client's own clock (simulated ms: wall × time scale). The
 * successes are the same requests in the same order as the engine-clock figures', so their token counts
 * carry over.
 */
function wallClockFigures(
  bench: readonly RequestRecord[],
  inputTokens: readonly number[],
  outputTokens: readonly number[],
  gpus: Gpus,
): WindowMetrics {
  const successes = bench.filter((r) => outcomeOf(r) === 'completed');
  const { startMs, endMs } = windowOf(bench);
  const durationS = (endMs - startMs) / 1000;
  const { latency } = latencyOf(successes, outputTokens);
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    startMs,
    endMs,
    durationS,
    completed: successes.length,
    throughput: throughputOf(successes.length, sum(inputTokens), sum(outputTokens), durationS, gpus),
    latency,
    interactivity: interactivityOf(latency.tpotMs),
  };
}
