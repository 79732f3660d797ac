import type { EngineRole } from '../schema/engine-launch.ts';
import { isMultiNode, type MatrixRow, type RowWorker } from '../schema/matrix-row.ts';
import { RecipeError } from './frameworks.ts';

/**
 * The processes a row starts: one per engine worker (a single-node row is one server; a multi-node row one
 * per worker of each pool), then, last, a router when the client needs one front: in front of prefill and
 * decode workers, of several aggregated servers, of Dynamo workers (which serve no HTTP), or wherever the
 * row names a router.
 */

export interface Parallelism {
  tp: number;
  pp: number;
  ep: number;
  dpAttn: boolean;
  dcp: number;
  pcp: number;
}

export interface PlannedProcess {
  role: EngineRole;
  /** Index among the processes of its role. */
  index: number;
  /** The engine's parallelism; a router carries the first worker's (vllm-router sizes DP from it). */
  parallelism: Parallelism;
  gpus: number;
  nodes: number;
  listens: boolean;
}

export interface TopologyOptions {
  /** Whether engine workers serve HTTP themselves (not Dynamo's). */
  workersListen: boolean;
  gpusPerNode: number;
}

const fromWorker = (w: RowWorker): Parallelism => ({
  tp: w.tp,
  pp: w.pp,
  ep: w.ep,
  dpAttn: w['dp-attn'],
  dcp: w['dcp-size'],
  pcp: w['pcp-size'],
});

/** GPUs of one engine (matrix-spec §4): DCP reuses the TP GPUs; PP and PCP multiply. */
const gpusOf = (p: Parallelism) => p.tp * p.pp * p.pcp;

export interface Topology {
  processes: PlannedProcess[];
  /** Prefill and decode run apart (a row marked disagg with one empty pool runs aggregated). */
  disagg: boolean;
}

export function planProcesses(row: MatrixRow, opts: TopologyOptions): Topology {
  const worker = (role: EngineRole, index: number, parallelism: Parallelism): PlannedProcess => {
    const gpus = gpusOf(parallelism);
    return {
      role,
      index,
      parallelism,
      gpus,
      nodes: Math.max(1, Math.ceil(gpus / opts.gpusPerNode)),
      listens: opts.workersListen,
    };
  };
  const pool = (role: EngineRole, w: RowWorker, from = 0) =>
    Array.from({ length: Math.max(0, w['num-worker']) }, (_, i) => worker(role, from + i, fromWorker(w)));

  let workers: PlannedProcess[];
  let disagg = false;
  if (isMultiNode(row)) {
    // Reference configs mark some aggregated recipes disagg with an empty decode pool: one pool is no split.
    disagg = row.disagg && row.prefill['num-worker'] > 0 && row.decode['num-worker'] > 0;
    if (disagg) {
      workers = [...pool('prefill', row.prefill), ...pool('decode', row.decode)];
    } else {
      const prefill = pool('server', row.prefill);
      workers = [...prefill, ...pool('server', row.decode, prefill.length)];
    }
  } else {
    workers = [
      worker('server', 0, {
        tp: row.tp,
        pp: row.pp,
        ep: row.ep,
        dpAttn: row['dp-attn'],
        dcp: row['dcp-size'],
        pcp: row['pcp-size'],
      }),
    ];
  }
  if (workers.length === 0)
    throw new RecipeError(`row ${row['exp-name']} has no workers (every pool has num-worker 0)`);
  const first = workers[0] as PlannedProcess;
  const needsRouter = disagg || !opts.workersListen || workers.length > 1 || row.router !== undefined;
  if (!needsRouter) return { processes: workers, disagg };
  const router: PlannedProcess = {
    role: 'router',
    index: 0,
    parallelism: first.parallelism,
    gpus: 0,
    nodes: 1,
    listens: true,
  };
  return { processes: [...workers, router], disagg };
}
