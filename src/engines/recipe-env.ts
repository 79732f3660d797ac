import { isAgentic, isFixed, type MatrixRow } from '../schema/matrix-row.ts';
import { acceptedDraftTokens, type SpecPlan } from './spec.ts';
import type { PlannedProcess } from './topology.ts';

/** The INFX_* variables a recipe reads (documented in recipes/lib.sh), for one process of a row. */

export interface RecipeEnvContext {
  row: MatrixRow;
  conc: number;
  host: string;
  connectHost: string;
  port: number | null;
  workDir: string;
  gpuMemoryUtilization: number;
  maxModelLen: number | null;
  spec: SpecPlan;
  disagg: boolean;
  /** GPUs of all workers of the row, to split the row's CPU DRAM budget by share. */
  totalGpus: number;
  urls: { prefill: string[]; decode: string[]; server: string[] };
}

const flag = (b: boolean | undefined) => (b ? 'true' : 'false');

export function recipeEnv(proc: PlannedProcess, ctx: RecipeEnvContext): Record<string, string> {
  const { row, spec } = ctx;
  const agentic = isAgentic(row);
  const fixed = isFixed(row) ? row : null;
  const offloading = agentic ? row['kv-offloading'] : 'none';
  const dramGb = agentic ? row['total-cpu-dram-gb'] : 0;
  const p = proc.parallelism;
  const al = spec.acceptanceLength;
  return {
    INFX_RENDER: '1',
    INFX_FRAMEWORK: row.framework,
    INFX_IMAGE: row.image,
    INFX_ROLE: proc.role,
    INFX_INDEX: String(proc.index),
    INFX_MODEL: row.model,
    INFX_SERVED_MODEL_NAME: row.model,
    INFX_PRECISION: row.precision,
    INFX_HOST: ctx.host,
    INFX_PORT: ctx.port === null ? '' : String(ctx.port),
    INFX_CONNECT_HOST: ctx.connectHost,
    INFX_WORK_DIR: ctx.workDir,
    INFX_GPUS: String(proc.gpus),
    INFX_NODES: String(proc.nodes),
    INFX_TP: String(p.tp),
    INFX_PP: String(p.pp),
    INFX_EP: String(p.ep),
    INFX_DP_ATTN: flag(p.dpAttn),
    INFX_DCP_SIZE: String(p.dcp),
    INFX_PCP_SIZE: String(p.pcp),
    INFX_CONC: String(ctx.conc),
    INFX_SCENARIO: agentic ? 'agentic-coding' : 'fixed-seq-len',
    INFX_ISL: fixed ? String(fixed.isl) : '',
    INFX_OSL: fixed ? String(fixed.osl) : '',
    INFX_MAX_MODEL_LEN: ctx.maxModelLen === null ? '' : String(ctx.maxModelLen),
    INFX_GPU_MEMORY_UTILIZATION: String(ctx.gpuMemoryUtilization),
    INFX_SPEC_DECODING: row['spec-decoding'],
    INFX_SPEC_METHOD: spec.method,
    INFX_DRAFT_MODEL: spec.draftModel ?? '',
    INFX_NUM_SPEC_TOKENS: spec.method === 'none' ? '' : String(spec.draftTokens),
    INFX_SPEC_ACCEPTANCE: spec.acceptance,
    INFX_SPEC_ACCEPTANCE_LENGTH: al === null ? '' : String(al),
    INFX_SPEC_ACCEPTED_DRAFT_TOKENS: al === null ? '' : String(acceptedDraftTokens(al)),
    INFX_KV_OFFLOADING: offloading,
    INFX_KV_OFFLOAD_BACKEND: (agentic && row['kv-offload-backend']?.name) || '',
    // The budget is proportional to allocated GPUs (matrix-spec §4), so each engine gets its GPUs' share.
    INFX_KV_OFFLOAD_GB:
      offloading === 'dram' && ctx.totalGpus > 0
        ? String(Math.floor((dramGb * proc.gpus) / ctx.totalGpus))
        : '0',
    INFX_DISAGG: flag(ctx.disagg),
    INFX_KV_TRANSFER: ('kv-p2p-transfer' in row && row['kv-p2p-transfer']) || '',
    INFX_ROUTER_NAME: row.router?.name ?? '',
    INFX_ROUTER_VERSION: row.router?.version ?? '',
    INFX_PREFILL_URLS: ctx.urls.prefill.join(' '),
    INFX_DECODE_URLS: ctx.urls.decode.join(' '),
    INFX_SERVER_URLS: ctx.urls.server.join(' '),
    INFX_EVAL_ONLY: flag(row['eval-only']),
  };
}
