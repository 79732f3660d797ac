import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { RequestRecord } from '../schema/request-record.ts';
import { monotonicMs } from './clock.ts';
import { type ThreadHealth, watchThread } from './health.ts';
import { type Phase, type PhaseRun, runPhase } from './runner.ts';
import { createTransport, type Transport, type TransportConfig } from './transport.ts';
import { runPhaseInWorkers, startWorkers, type WorkerPool } from './workers.ts';

/**
 * Runs a whole point's load: warmup (all reusing prompt 0, fully drained, never timed), then the
 * measured phase, in this thread or spread over worker threads that share one dispatch counter, so the
 * global concurrency and the dispatch order are the same either way.
 */

export interface LoadRequest {
  body: Buffer;
  maxTokens: number;
  targetInputTokens: number;
  clientInputTokens: number;
}

export interface LoadOptions {
  transport: TransportConfig;
  /** One per prompt; the measured phase sends request i with prompt i. */
  requests: readonly LoadRequest[];
  warmup: number;
  concurrency: number;
  workers: number;
  /**
   * Offsets from the start of the measured phase; null for a closed loop (request rate inf). With
   * lockstep they are on the engine clock (the engine holds each request until it is due).
   */
  arrivalOffsetsMs: Float64Array | null;
  /** Lockstep with a simulated engine that announced the engine-clock protocol (schema/sim-protocol.ts). */
  lockstep: boolean;
  signal: AbortSignal;
  onProgress?: (p: LoadProgress) => void;
  /** Awaited just before the measured phase starts and just after it ends (e.g. to read engine counters). */
  aroundMeasurement?: { before(): Promise<void>; after(): Promise<void> };
}

export interface LoadProgress {
  phase: Phase;
  done: number;
  failed: number;
  total: number;
  /** Output tokens reported by the server so far in this phase. */
  outputTokens: number;
  /** Since the phase started. */
  elapsedMs: number;
  /** Engine time the phase's finished requests span (engine clock), or null without engine stamps. */
  engineElapsedMs: number | null;
}

/** The engine-clock span of a phase's finished requests: first arrival to last token. */
export class EngineSpan {
  first = Number.POSITIVE_INFINITY;
  last = Number.NEGATIVE_INFINITY;
  add(r: RequestRecord): void {
    const e = r.engine;
    if (e === null) return;
    this.first = Math.min(this.first, e.arrivalMs);
    this.last = Math.max(this.last, e.lastTokenMs ?? e.arrivalMs);
  }
  merge(first: number, last: number): void {
    this.first = Math.min(this.first, first);
    this.last = Math.max(this.last, last);
  }
  get ms(): number | null {
    return this.last >= this.first ? this.last - this.first : null;
  }
}

export interface LoadResult {
  records: RequestRecord[];
  /** Generated text of each record, same order, for the client-side token count. */
  texts: string[];
  threads: ThreadHealth[];
  sendLagsMs: number[];
  /** Process CPU over the measured phase, % of one core (all client threads). */
  cpuPercent: number | null;
  clockOriginMs: number;
  clockOriginUnixMs: number;
}

/** Collects the records of one phase and reports progress. */
export class PhaseSink {
  readonly records: RequestRecord[] = [];
  readonly texts: string[] = [];
  readonly sendLagsMs: number[] = [];
  private doneCount = 0;
  private failed = 0;
  private outputTokens = 0;
  private readonly started = monotonicMs();
  readonly span = new EngineSpan();
  constructor(
    private readonly phase: Phase,
    private readonly total: number,
    private readonly onProgress?: (p: LoadProgress) => void,
  ) {}

  /** Records in dispatch order (threads and lanes finish in any order). */
  ordered(threads: ThreadHealth[]): PhaseOutput {
    const order = this.records
      .map((_, i) => i)
      .sort((a, b) => this.records[a]!.index - this.records[b]!.index);
    return {
      records: order.map((i) => this.records[i]!),
      texts: order.map((i) => this.texts[i]!),
      sendLagsMs: order.map((i) => this.sendLagsMs[i]!),
      threads,
    };
  }

  add(record: RequestRecord, text: string, sendLagMs: number) {
    this.records.push(record);
    this.texts.push(text);
    this.sendLagsMs.push(sendLagMs);
    this.span.add(record);
    this.note(record.ok ? 0 : 1, record.outputTokens.server ?? 0);
  }

  note(failed: number, outputTokens: number, done = 1) {
    this.failed += failed;
    this.outputTokens += outputTokens;
    this.doneCount += done;
    this.onProgress?.({
      phase: this.phase,
      done: this.doneCount,
      failed: this.failed,
      total: this.total,
      outputTokens: this.outputTokens,
      elapsedMs: monotonicMs() - this.started,
      engineElapsedMs: this.span.ms,
    });
  }
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  // Every in-flight request listens for the end of the run: thousands at high concurrency.
  setMaxListeners(0, opts.signal);
  const workers = Math.max(1, Math.min(opts.workers, opts.concurrency));
  const clockOriginUnixMs = Date.now();
  const clockOriginMs = monotonicMs();
  const pool = workers > 1 ? await startWorkers(opts, workers, clockOriginMs) : null;
  const runTag = randomUUID().slice(0, 8);
  // One transport for both phases: the connections warmup opened are the ones the measurement uses.
  const transport = pool ? pool : createTransport(opts.transport);
  try {
    const warm = await phase(opts, transport, 'warmup', opts.warmup, clockOriginMs, runTag);
    await opts.aroundMeasurement?.before();
    const cpu0 = process.cpuUsage();
    const t0 = monotonicMs();
    const bench = await phase(opts, transport, 'benchmark', opts.requests.length, clockOriginMs, runTag);
    const cpu = process.cpuUsage(cpu0);
    const wallMs = monotonicMs() - t0;
    await opts.aroundMeasurement?.after();
    return {
      records: [...warm.records, ...bench.records],
      texts: [...warm.texts, ...bench.texts],
      threads: bench.threads,
      sendLagsMs: bench.sendLagsMs,
      cpuPercent: wallMs > 0 ? ((cpu.user + cpu.system) / 1000 / wallMs) * 100 : null,
      clockOriginMs,
      clockOriginUnixMs,
    };
  } finally {
    if (pool) await pool.close();
    else (transport as Transport).close();
  }
}

interface PhaseOutput {
  records: RequestRecord[];
  texts: string[];
  sendLagsMs: number[];
  threads: ThreadHealth[];
}

async function phase(
  opts: LoadOptions,
  via: WorkerPool | Transport,
  name: Phase,
  count: number,
  clockOriginMs: number,
  runTag: string,
): Promise<PhaseOutput> {
  if (count === 0 || opts.signal.aborted) return { records: [], texts: [], sendLagsMs: [], threads: [] };
  const offsets = name === 'benchmark' ? opts.arrivalOffsetsMs : null;
  const sink = new PhaseSink(name, count, opts.onProgress);
  const lockstep = opts.lockstep
    ? { phase: `${runTag}-${name}`, conc: Math.min(opts.concurrency, count), total: count }
    : null;
  if ('workers' in via) {
    return sink.ordered(
      await runPhaseInWorkers(via, { phase: name, count, offsets, lockstep }, sink, opts.signal),
    );
  }
  const watch = watchThread();
  let next = 0;
  const startMs = monotonicMs();
  const run: PhaseRun = {
    phase: name,
    worker: 0,
    slots: Math.min(opts.concurrency, count),
    claim: () => (next < count ? next++ : null),
    arrivalMs: offsets ? (i) => startMs + (offsets[i] as number) : () => null,
    lockstep: lockstep && {
      ...lockstep,
      engineDueMs: offsets ? (i: number) => offsets[i] as number : null,
    },
    ...promptAccess(opts.requests, name),
    clockOriginMs,
    signal: opts.signal,
    onRecord: (r, text, lag) => sink.add(r, text, lag),
  };
  await runPhase(run, via);
  return sink.ordered([watch.stop()]);
}

/** Warmup sends prompt 0 every time, as the reference does; the measured phase sends prompt i. */
export function promptAccess(requests: readonly LoadRequest[], phase: Phase) {
  const at = (i: number) => requests[phase === 'warmup' ? 0 : i] as LoadRequest;
  return {
    promptIndex: (i: number) => (phase === 'warmup' ? 0 : i),
    body: (i: number) => at(i).body,
    maxTokens: (i: number) => at(i).maxTokens,
    inputTokens: (i: number) => ({ target: at(i).targetInputTokens, client: at(i).clientInputTokens }),
  };
}
