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
  /** Offsets from the start of the measured phase; null for a closed loop (request rate inf). */
  arrivalOffsetsMs: Float64Array | null;
  signal: AbortSignal;
  onProgress?: (p: LoadProgress) => void;
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
  // One transport for both phases: the connections warmup opened are the ones the measurement uses.
  const transport = pool ? pool : createTransport(opts.transport);
  try {
    const warm = await phase(opts, transport, 'warmup', opts.warmup, clockOriginMs);
    const cpu0 = process.cpuUsage();
    const t0 = monotonicMs();
    const bench = await phase(opts, transport, 'benchmark', opts.requests.length, clockOriginMs);
    const cpu = process.cpuUsage(cpu0);
    const wallMs = monotonicMs() - t0;
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
): Promise<PhaseOutput> {
  if (count === 0 || opts.signal.aborted) return { records: [], texts: [], sendLagsMs: [], threads: [] };
  const offsets = name === 'benchmark' ? opts.arrivalOffsetsMs : null;
  const sink = new PhaseSink(name, count, opts.onProgress);
  if ('workers' in via) {
    return sink.ordered(await runPhaseInWorkers(via, { phase: name, count, offsets }, sink, opts.signal));
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
