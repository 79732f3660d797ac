import { parentPort, workerData } from 'node:worker_threads';
import { useUserCatalog } from '../config/user-catalog.ts';
import type {
  FromPredictWorker,
  PredictWorkerInit,
  ToPredictWorker,
} from '../sim/engine/predict-parallel.ts';
import { matrixPoints, predictMatrixPoint } from '../sim/engine/rows.ts';

/** Entry of a `sim predict` thread (bundled as dist/predict-worker.mjs; predict-parallel.ts drives it). */

// The CLI put the user catalog's resolved path in the environment, which a thread inherits.
useUserCatalog(undefined);
const init = workerData as PredictWorkerInit;
const points = matrixPoints(init.doc);
const port = parentPort!;
port.on('message', (m: ToPredictWorker) => {
  if (m.type === 'done') return port.close();
  try {
    const outcomes = m.indices.map((i) => predictMatrixPoint(points[i]!, init.opts));
    port.postMessage({ type: 'outcomes', indices: m.indices, outcomes } satisfies FromPredictWorker);
  } catch (err) {
    port.postMessage({
      type: 'error',
      message: err instanceof Error ? (err.stack ?? err.message) : String(err),
    } satisfies FromPredictWorker);
  }
});
