import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RequestRecord } from '../schema/request-record.ts';
import type { DriverSpec } from '../workload/drivers.ts';
import type { ThreadHealth } from './health.ts';
import type { LoadOptions, PhaseSink } from './phase-sink.ts';
import type { Phase } from './runner.ts';

/**
 * Worker-thread mode: each thread runs its share of the lanes (together, the concurrency) with its own
 * driver built from the phase's spec (shared memory in it, e.g. pre-built bodies, is never copied per
 * thread), and one atomic counter, shared by all, hands out dispatch indices: a fixed-seq-len phase then
 * goes out in the same order, at the same global concurrency, as from one thread.
 */

export interface WorkerInit {
  transport: {
    baseUrl: string;
    endpoint: 'chat' | 'completions';
    path: string;
    timeoutMs: number;
    apiKey: string | null;
  };
  worker: number;
  /** How many threads run the load (a driver keeps its share of the sessions). */
  threads: number;
  slots: number;
  clockOriginMs: number;
}

export type ToWorker =
  | {
      type: 'phase';
      phase: Phase;
      /** Shared memory in it is shared with every thread, not copied. */
      spec: DriverSpec;
      /** The dispatch counter all threads share (DriverContext.dispatch). */
      dispatch: Int32Array;
      lockstep: PhaseLockstep | null;
      startMs: number;
    }
  | { type: 'abort' };

/** A phase's lockstep tag fields (see runner.ts); arrival offsets then are engine-clock due times. */
export interface PhaseLockstep {
  phase: string;
  conc: number;
  total: number;
}

export type FromWorker =
  | {
      type: 'progress';
      done: number;
      failed: number;
      outputTokens: number;
      /** Engine-clock span of the requests reported (Infinity / -Infinity when none had stamps). */
      engineFirstMs: number;
      engineLastMs: number;
    }
  | {
      type: 'phase-done';
      records: RequestRecord[];
      texts: string[];
      sendLagsMs: number[];
      health: ThreadHealth;
    }
  | { type: 'error'; message: string };

export interface WorkerPool {
  workers: Worker[];
  close(): Promise<void>;
}

/** The bundled worker entry: next to the CLI bundle in dist/, also when the caller runs from sources. */
export function workerScript(): string {
  const override = process.env.INFX_CLIENT_WORKER;
  if (override) return override;
  let dir = dirname(fileURLToPath(import.meta.url));
  const candidates: string[] = [];
  for (let i = 0; i < 4; i++, dir = dirname(dir))
    candidates.push(join(dir, 'client-worker.mjs'), join(dir, 'dist', 'client-worker.mjs'));
  // Bench scripts run from a temporary bundle: fall back to the project's build.
  candidates.push(join(process.cwd(), 'dist', 'client-worker.mjs'));
  for (const candidate of candidates) if (existsSync(candidate)) return candidate;
  throw new Error('dist/client-worker.mjs not found: run `npm run build` first (needed for --workers > 1)');
}

export async function startWorkers(
  opts: LoadOptions,
  count: number,
  clockOriginMs: number,
): Promise<WorkerPool> {
  const script = workerScript();
  const t = opts.transport;
  const workers: Worker[] = [];
  for (let w = 0; w < count; w++) {
    const slots = Math.floor(opts.concurrency / count) + (w < opts.concurrency % count ? 1 : 0);
    const init: WorkerInit = {
      transport: {
        baseUrl: t.baseUrl.href,
        endpoint: t.endpoint,
        path: t.path,
        timeoutMs: t.timeoutMs,
        apiKey: t.apiKey,
      },
      worker: w,
      threads: count,
      slots,
      clockOriginMs,
    };
    workers.push(new Worker(script, { workerData: init }));
  }
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve, reject) => {
          w.once('online', () => resolve());
          w.once('error', reject);
        }),
    ),
  );
  return {
    workers,
    close: async () => {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

export function runPhaseInWorkers(
  pool: WorkerPool,
  spec: { phase: Phase; spec: DriverSpec; lockstep: PhaseLockstep | null },
  sink: PhaseSink,
  signal: AbortSignal,
): Promise<ThreadHealth[]> {
  const msg: ToWorker = {
    type: 'phase',
    phase: spec.phase,
    spec: spec.spec,
    dispatch: new Int32Array(new SharedArrayBuffer(4)),
    lockstep: spec.lockstep,
    startMs: Number(process.hrtime.bigint()) / 1e6,
  };
  const onAbort = () => {
    for (const w of pool.workers) w.postMessage({ type: 'abort' } satisfies ToWorker);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const results = pool.workers.map(
    (w) =>
      new Promise<ThreadHealth>((resolve, reject) => {
        const done = () => {
          w.off('message', onMessage);
          w.off('error', onError);
          w.off('exit', onExit);
        };
        const onError = (err: Error) => {
          done();
          reject(new Error(`client worker ${w.threadId} crashed: ${err.message}`));
        };
        const onExit = (code: number) => {
          done();
          reject(new Error(`client worker ${w.threadId} exited (code ${code}) in the middle of a phase`));
        };
        const onMessage = (m: FromWorker) => {
          if (m.type === 'progress') {
            sink.span.merge(m.engineFirstMs, m.engineLastMs);
            sink.note(m.failed, m.outputTokens, m.done);
          } else if (m.type === 'error') {
            done();
            reject(new Error(`client worker failed: ${m.message}`));
          } else {
            done();
            m.records.forEach((r, i) => {
              sink.records.push(r);
              sink.texts.push(m.texts[i] as string);
              sink.sendLagsMs.push(m.sendLagsMs[i] as number);
            });
            resolve(m.health);
          }
        };
        w.on('message', onMessage);
        w.on('error', onError);
        w.on('exit', onExit);
        w.postMessage(msg);
      }),
  );
  return Promise.all(results).finally(() => signal.removeEventListener('abort', onAbort));
}
