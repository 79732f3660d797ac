import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { RequestRecord } from '../schema/request-record.ts';
import { monotonicMs } from './clock.ts';
import { type ThreadHealth, watchThread } from './health.ts';
import { type LoadOptions, type LoadRequest, type PhaseOutput, PhaseSink } from './phase-sink.ts';
import { type Phase, type PhaseRun, runPhase } from './runner.ts';
import { createTransport, type Transport } from './transport.ts';
import { runPhaseInWorkers, startWorkers, type WorkerPool } from './workers.ts';

export type { LoadOptions, LoadProgress, LoadRequest } from './phase-sink.ts';

/**
 * Runs a whole point's load: warmup (all reusing prompt 0, fully drained, never timed), then the
 * measured phase, in this thread or spread over worker threads that share one dispatch counter, so the
 * global concurrency and the dispatch order are the same either way.
 */

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
