import * as z from 'zod';
import { KV_OFFLOADING } from './enums.ts';
import { isRecord } from './guards.ts';
import {
  boundedInt,
  CONFIG_BOUNDS,
  ComponentMetadataSchema,
  type Ctx,
  checkConcurrency,
  checkDcpDividesTp,
  checkHardwarePair,
  concFields,
  gpus,
  guarded,
  KvOffloadBackendSchema,
  kvP2pTransfer,
  nonEmptyText,
  type Raw,
  seqLen,
  specDecoding,
  text,
} from './master-config-values.ts';
import { always, bool, closed, list, oneOf, report } from './zod-helpers.ts';

/**
 * The search spaces of a master entry's scenarios (matrix-spec §2): single-node and multi-node
 * fixed-seq-len entries, prefill and decode workers, and agentic-coding entries of either shape.
 */

const WORKER_ONLY = 'worker blocks (prefill/decode) are only valid in multinode: true configs';

export const WorkerConfigSchema = closed({
  'num-worker': boundedInt({ min: 0, max: CONFIG_BOUNDS.maxParallelism, unit: 'workers' }).describe(
    'Workers in this pool; decode 0 means an aggregated multinode deployment',
  ),
  tp: gpus(),
  pp: gpus().default(1),
  'dcp-size': gpus().default(1),
  'pcp-size': gpus().default(1),
  ep: gpus(),
  'dp-attn': bool(),
  hardware: nonEmptyText(CONFIG_BOUNDS.maxNameChars)
    .nullish()
    .describe('GPU SKU metadata only; it does not affect scheduling'),
  'additional-settings': list(text())
    .default([])
    .describe('KEY=VALUE strings exported as environment variables'),
}).superRefine(guarded(checkDcpDividesTp), always);

export const SingleNodeSearchSpaceSchema = closed(
  {
    tp: gpus(),
    pp: gpus().default(1),
    'dcp-size': gpus().default(1),
    'pcp-size': gpus().default(1),
    ep: gpus().nullish(),
    'dp-attn': bool().nullish(),
    'spec-decoding': specDecoding(),
    router: ComponentMetadataSchema.nullish(),
    ...concFields,
  },
  {
    'kv-p2p-transfer': 'kv-p2p-transfer is only valid when multinode=true',
    'kv-offloading': 'kv-offloading is only valid in agentic-coding search-space entries',
    'kv-offload-backend': 'kv-offload-backend is only valid in agentic-coding search-space entries',
    prefill: WORKER_ONLY,
    decode: WORKER_ONLY,
  },
)
  .superRefine(guarded(checkConcurrency), always)
  .superRefine(guarded(checkDcpDividesTp), always);

export const MultiNodeSearchSpaceSchema = closed(
  {
    'spec-decoding': specDecoding(),
    prefill: WorkerConfigSchema,
    decode: WorkerConfigSchema,
    router: ComponentMetadataSchema.nullish(),
    'kv-p2p-transfer': kvP2pTransfer().nullish(),
    ...concFields,
  },
  {
    tp: 'multi-node entries set tp inside prefill and decode',
    'kv-offloading': 'kv-offloading is only valid in agentic-coding search-space entries',
  },
)
  .superRefine(guarded(checkConcurrency), always)
  .superRefine(guarded(checkHardwarePair), always);

function checkAgenticEntry(v: Raw, ctx: Ctx): void {
  const single = v.tp != null;
  const hasPrefill = v.prefill != null;
  const hasDecode = v.decode != null;
  if (single ? hasPrefill || hasDecode : !(hasPrefill && hasDecode)) {
    report(ctx, {
      rule: 'agentic.shape',
      message: 'Agentic search-space entries must specify either tp or both prefill and decode',
    });
    return;
  }
  if (single) {
    if (v['kv-offloading'] == null) {
      report(ctx, {
        rule: 'agentic.kv-offloading-required',
        message: 'Single-node agentic search-space entries must specify kv-offloading (none or dram)',
      });
    }
    checkDcpDividesTp(v, ctx);
  } else {
    const explicit = (['pp', 'dcp-size', 'pcp-size'] as const).filter((k) => k in v);
    if (explicit.length > 0) {
      report(ctx, {
        rule: 'agentic.multinode-topology-fields',
        path: [explicit[0]!],
        message:
          "Multinode agentic search-space entries cannot specify 'pp', 'dcp-size', 'pcp-size'; set them inside prefill and decode",
      });
    }
    checkHardwarePair(v, ctx);
  }
  const kv = v['kv-offloading'];
  const backend = v['kv-offload-backend'];
  if (backend != null && kv == null) {
    report(ctx, {
      rule: 'kvoffload.backend-requires-offload',
      path: ['kv-offload-backend'],
      message: 'kv-offload-backend requires kv-offloading',
    });
  } else if (backend != null && kv === 'none') {
    report(ctx, {
      rule: 'kvoffload.backend-with-none',
      path: ['kv-offload-backend'],
      message: "kv-offload-backend can only be set when kv-offloading is not 'none'",
    });
  } else if (backend == null && kv === 'dram') {
    report(ctx, {
      rule: 'kvoffload.backend-required',
      path: ['kv-offloading'],
      message: "kv-offload-backend is required when kv-offloading is 'dram'",
    });
  }
}

export const AgenticSearchSpaceSchema = closed(
  {
    tp: gpus()
      .nullish()
      .describe('Set for the single-node shape; omit and set prefill + decode for multi-node'),
    pp: gpus().optional(),
    'dcp-size': gpus().optional(),
    'pcp-size': gpus().optional(),
    ep: gpus().nullish(),
    'dp-attn': bool().nullish(),
    'spec-decoding': specDecoding(),
    prefill: WorkerConfigSchema.nullish(),
    decode: WorkerConfigSchema.nullish(),
    'kv-offloading': oneOf(KV_OFFLOADING).nullish(),
    'kv-offload-backend': KvOffloadBackendSchema.nullish(),
    router: ComponentMetadataSchema.nullish(),
    'kv-p2p-transfer': kvP2pTransfer().nullish(),
    ...concFields,
  },
  {
    'total-cpu-dram-gb':
      'total-cpu-dram-gb is computed from runners.yaml hardware metadata and dram-utilization',
    duration: 'agentic duration is not configurable in master configs (generated rows use 3600 s)',
  },
)
  .superRefine(guarded(checkConcurrency), always)
  .superRefine(guarded(checkAgenticEntry), always);

export const AgenticCodingConfigSchema = closed(
  {
    'search-space': list(AgenticSearchSpaceSchema),
    'dram-utilization': z
      .number({ error: 'expected a number' })
      .gt(0, { error: 'must be greater than 0' })
      .lte(1, { error: 'must be less than or equal to 1' })
      .nullish()
      .describe('Fraction of the runner host DRAM given to KV offload (0 < x <= 1)'),
  },
  {
    'trace-source': 'the trace corpus is chosen at run time from the model prefix, not in the master config',
    duration: 'agentic duration is not configurable in master configs (generated rows use 3600 s)',
    'gpus-per-node': 'gpus-per-node comes from runners.yaml hardware metadata',
    'available-cpu-dram-mib': 'available-cpu-dram-mib comes from runners.yaml hardware metadata',
    'total-cpu-dram-gb':
      'total-cpu-dram-gb is computed from runners.yaml hardware metadata and dram-utilization',
  },
).superRefine((v: unknown, ctx) => {
  if (!isRecord(v) || v['dram-utilization'] != null || !Array.isArray(v['search-space'])) return;
  const i = v['search-space'].findIndex((e) => isRecord(e) && e['kv-offloading'] === 'dram');
  if (i >= 0) {
    report(ctx, {
      rule: 'agentic.dram-utilization-required',
      path: ['search-space', i, 'kv-offloading'],
      message:
        "kv-offloading='dram' requires dram-utilization with runner hardware metadata (add dram-utilization: 0 < x <= 1 to this agentic-coding item)",
    });
  }
}, always);

const fixedItem = <T extends z.core.$ZodType>(entry: T) =>
  closed({ isl: seqLen(), osl: seqLen(), 'search-space': list(entry) });

export const SingleNodeFixedSeqLenSchema = fixedItem(SingleNodeSearchSpaceSchema);
export const MultiNodeFixedSeqLenSchema = fixedItem(MultiNodeSearchSpaceSchema);
