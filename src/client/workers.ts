import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RequestRecord } from '../schema/request-record.ts';
import type { ThreadHealth } from './health.ts';
import type { LoadOptions, PhaseSink } from './phase-sink.ts';
import type { Phase } from './runner.ts';

/**
 * Worker-thread mode: request bodies and per-prompt facts live in shared memory (a 400 KB prompt is
 * never copied per thread), and one atomic counter hands out request indices so the threads together
 * dispatch in the same order, at the same global concurrency, as one thread would.
 */

export interface SharedPrompts {
  bodies: SharedArrayBuffer;
  /** offsets[i]..offsets[i+1] is prompt i's body. */
  offsets: Float64Array;
  maxTokens: Int32Array;
  targetInputTokens: Int32Array;
  clientInputTokens: Int32Array;
}

export interface WorkerInit {
  transport: {
    baseUrl: string;
    endpoint: 'chat' | 'completions';
    path: string;
    timeoutMs: number;
    apiKey: string | null;
  };
  prompts: SharedPrompts;
  worker: number;
  slots: number;
  clockOriginMs: number;
}

export type ToWorker =
  | {
      type: 'phase';
      phase: Phase;
      count: number;
      counter: Int32Array;
      offsets: Float64Array | null;
      lockstep: PhaseLockstep | null;
      startMs: number;
    }
  | { type: 'abort' };

/** A phase's lockstep tag fields (see runner.ts); offsets then are engine-clock due times. */
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

export function sharePrompts(requests: LoadOptions['requests']): SharedPrompts {
  const n = requests.length;
  const offsets = new Float64Array(new SharedArrayBuffer(8 * (n + 1)));
  let size = 0;
  requests.forEach((r, i) => {
    offsets[i] = size;
    size += r.body.length;
  });
  offsets[n] = size;
  const bodies = new SharedArrayBuffer(size);
  const view = new Uint8Array(bodies);
  const ints = () => new Int32Array(new SharedArrayBuffer(4 * n));
  const maxTokens = ints();
  const targetInputTokens = ints();
  const clientInputTokens = ints();
  requests.forEach((r, i) => {
    view.set(r.body, offsets[i] as number);
    maxTokens[i] = r.maxTokens;
    targetInputTokens[i] = r.targetInputTokens;
    clientInputTokens[i] = r.clientInputTokens;
  });
  return { bodies, offsets, maxTokens, targetInputTokens, clientInputTokens };
}

export async function startWorkers(
  opts: LoadOptions,
  count: number,
  clockOriginMs: number,
): Promise<WorkerPool> {
  const script = workerScript();
  const prompts = sharePrompts(opts.requests);
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
      prompts,
      worker: w,
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
  spec: { phase: Phase; count: number; offsets: Float64Array | null; lockstep: PhaseLockstep | null },
  sink: PhaseSink,
  signal: AbortSignal,
): Promise<ThreadHealth[]> {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  let offsets: Float64Array | null = null;
  if (spec.offsets) {
    offsets = new Float64Array(new SharedArrayBuffer(8 * spec.offsets.length));
    offsets.set(spec.offsets);
  }
  const msg: ToWorker = {
    type: 'phase',
    phase: spec.phase,
    count: spec.count,
    counter,
    offsets,
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
