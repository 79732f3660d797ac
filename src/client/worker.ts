import { setMaxListeners } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { createDriver } from '../workload/drivers.ts';
import { monotonicMs } from './clock.ts';
import { watchThread } from './health.ts';
import { type PhaseRun, runPhase } from './runner.ts';
import { createTransport } from './transport.ts';
import type { FromWorker, ToWorker, WorkerInit } from './workers.ts';

/** Entry of a client worker thread (bundled as dist/client-worker.mjs). */

const init = workerData as WorkerInit;
const port = parentPort!;
const transport = createTransport({ ...init.transport, baseUrl: new URL(init.transport.baseUrl) });
let controller = new AbortController();

const PROGRESS_EVERY_MS = 100;

async function onPhase(msg: Extract<ToWorker, { type: 'phase' }>) {
  controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const records: FromWorker & { type: 'phase-done' } = {
    type: 'phase-done',
    records: [],
    texts: [],
    sendLagsMs: [],
    health: { eventLoopDelayMs: { p50: 0, p99: 0, max: 0 }, eventLoopUtilization: 0 },
  };
  const fresh = () => ({
    done: 0,
    failed: 0,
    outputTokens: 0,
    engineFirstMs: Number.POSITIVE_INFINITY,
    engineLastMs: Number.NEGATIVE_INFINITY,
  });
  let pending = fresh();
  let lastSent = monotonicMs();
  const flush = () => {
    if (pending.done === 0) return;
    port.postMessage({ type: 'progress', ...pending } satisfies FromWorker);
    pending = fresh();
    lastSent = monotonicMs();
  };
  const total = msg.spec.total;
  const run: PhaseRun = {
    phase: msg.phase,
    worker: init.worker,
    slots: Math.min(init.slots, total ?? Number.POSITIVE_INFINITY),
    driver: createDriver(msg.spec, {
      phase: msg.phase,
      thread: init.worker,
      threads: init.threads,
      dispatch: msg.dispatch,
    }),
    startMs: msg.startMs,
    lockstep: msg.lockstep,
    clockOriginMs: init.clockOriginMs,
    signal: controller.signal,
    onRecord: (r, text, lag) => {
      records.records.push(r);
      records.texts.push(text);
      records.sendLagsMs.push(lag);
      pending.done++;
      if (!r.ok) pending.failed++;
      pending.outputTokens += r.outputTokens.server ?? 0;
      if (r.engine !== null) {
        pending.engineFirstMs = Math.min(pending.engineFirstMs, r.engine.arrivalMs);
        pending.engineLastMs = Math.max(pending.engineLastMs, r.engine.lastTokenMs ?? r.engine.arrivalMs);
      }
      if (monotonicMs() - lastSent >= PROGRESS_EVERY_MS) flush();
    },
  };
  const watch = watchThread();
  await runPhase(run, transport);
  records.health = watch.stop();
  flush();
  port.postMessage(records);
}

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'abort') controller.abort();
  else
    onPhase(msg).catch((err: unknown) =>
      port.postMessage({
        type: 'error',
        message: err instanceof Error ? err.message : String(err),
      } satisfies FromWorker),
    );
});
