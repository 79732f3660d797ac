import type { RunnerConfig } from '../schema/runners.ts';
import { decimalFraction } from './decimal.ts';
import { MatrixError } from './errors.ts';

/** The agentic host-DRAM budget for KV offload (matrix-spec §4). */

/** 3 TB (decimal) expressed in MiB: no job is given more host DRAM than this. */
export const DRAM_CAP_MIB = 2_861_022;
const MIB = 1_048_576n;
const GB = 1_000_000_000n;

export interface DramRequest {
  runner: string;
  utilization: number;
  multiNode: boolean;
  /** Parallelism of the point (single-node) or of its prefill worker (multi-node): it uses tp*pp*pcp GPUs. */
  tp: number;
  pp: number;
  pcp: number;
}

function hardwareField(
  runners: RunnerConfig,
  runner: string,
  field: 'available-cpu-dram-mib' | 'gpus-per-node',
): number {
  const value = runners.hardware[runner]?.[field];
  if (value === undefined) {
    const keys = Object.keys(runners.hardware).sort().join(', ');
    throw new MatrixError(
      `Runner '${runner}' requires '${field}' in runner hardware metadata. Available hardware keys: ${keys}`,
    );
  }
  return value;
}

export function totalCpuDramGb(runners: RunnerConfig, req: DramRequest): number {
  const avail = Math.min(hardwareField(runners, req.runner, 'available-cpu-dram-mib'), DRAM_CAP_MIB);
  const perNode = hardwareField(runners, req.runner, 'gpus-per-node');
  const r = req.tp * req.pp * req.pcp;
  let n: number;
  if (!req.multiNode) {
    if (r > perNode) {
      throw new MatrixError(
        `tp=${req.tp} with pp=${req.pp} and pcp-size=${req.pcp} requires ${r} GPUs and exceeds gpus-per-node=${perNode} for runner '${req.runner}'`,
      );
    }
    n = r;
  } else if (r > perNode) {
    if (r % perNode !== 0) {
      throw new MatrixError(
        `worker tp*pp*pcp-size=${r} spans multiple nodes but is not a multiple of gpus-per-node=${perNode}`,
      );
    }
    n = perNode;
  } else {
    if (perNode % r !== 0) {
      throw new MatrixError(`worker tp*pp*pcp-size=${r} does not divide gpus-per-node=${perNode} evenly`);
    }
    n = r;
  }
  const [un, ud] = decimalFraction(req.utilization);
  const num = BigInt(avail) * MIB * un * BigInt(n);
  const den = ud * BigInt(perNode) * GB;
  return Number(num / den);
}
