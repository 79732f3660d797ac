import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { RequestRecord } from '../schema/request-record.ts';
import { createDriver, type DriverPhases, type DriverSpec, shareSpec } from '../workload/drivers.ts';
import { monotonicMs } from './clock.ts';
import { type ThreadHealth, watchThread } from './health.ts';
import { type LoadOptions, type PhaseOutput, PhaseSink } from './phase-sink.ts';
import { type Phase, type PhaseRun, runPhase } from './runner.ts';
import { createTransport, type Transport } from './transport.ts';
import { type PhaseLockstep, runPhaseInWorkers, startWorkers, type WorkerPool } from './workers.ts';

export type { LoadOptions, LoadProgress, LoadRequest } from './phase-sink.ts';

/**
 * Runs a whole point's load: warmup (fully drained, never timed), then the measured phase, each sent by
 * its workload driver (workload/drivers.ts), in this thread or spread over worker threads that split the
 * concurrency and share one dispatch counter, so the global concurrency (and, for a workload without
 * sessions, the dispatch order) is the same either way.
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
  // Worker threads get the specs with their large parts in shared memory, shared once for the run.
  const phases = pool ? shared(opts.phases) : opts.phases;
  const runTag = randomUUID().slice(0, 8);
  // One transport for both phases: the connections warmup opened are the ones the measurement uses.
  const transport = pool ? pool : createTransport(opts.transport);
  try {
    const warm = await phase(opts, transport, 'warmup', phases.warmup, clockOriginMs, runTag);
    await opts.aroundMeasurement?.before();
    const cpu0 = process.cpuUsage();
    const t0 = monotonicMs();
    const bench = await phase(opts, transport, 'benchmark', phases.benchmark, clockOriginMs, runTag);
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

function shared(p: DriverPhases): DriverPhases {
  return { warmup: p.warmup && shareSpec(p.warmup), benchmark: shareSpec(p.benchmark) };
}

async function phase(
  opts: LoadOptions,
  via: WorkerPool | Transport,
  name: Phase,
  spec: DriverSpec | null,
  clockOriginMs: number,
  runTag: string,
): Promise<PhaseOutput> {
  const total = spec?.total ?? null;
  if (spec === null || total === 0 || opts.signal.aborted)
    return { records: [], texts: [], sendLagsMs: [], threads: [] };
  const sink = new PhaseSink(name, total ?? 0, opts.onProgress);
  let lockstep: PhaseLockstep | null = null;
  if (opts.lockstep) {
    // The engine holds its clock while it is owed a request: it must know how many, and a freed lane
    // must send at once (a turn waiting on another would stop the engine's clock for good).
    if (total === null || !spec.independent)
      throw new Error(
        `lockstep with the simulated engine needs a workload of independent requests, known in advance (not ${spec.kind})`,
      );
    lockstep = { phase: `${runTag}-${name}`, conc: Math.min(opts.concurrency, total), total };
  }
  if ('workers' in via)
    return sink.ordered(await runPhaseInWorkers(via, { phase: name, spec, lockstep }, sink, opts.signal));
  const watch = watchThread();
  const run: PhaseRun = {
    phase: name,
    worker: 0,
    slots: Math.min(opts.concurrency, total ?? Number.POSITIVE_INFINITY),
    driver: createDriver(spec, { phase: name, thread: 0, threads: 1, dispatch: new Int32Array(1) }),
    startMs: monotonicMs(),
    lockstep,
    clockOriginMs,
    signal: opts.signal,
    onRecord: (r, text, lag) => sink.add(r, text, lag),
  };
  await runPhase(run, via);
  return sink.ordered([watch.stop()]);
}
