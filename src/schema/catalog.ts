import * as z from 'zod';

/**
 * The model and accelerator catalog (src/catalog): public facts the simulated engine, the predictor and
 * the feasibility check compute with. Every entry cites its sources; a value that is not public is
 * listed by field name in `estimated`.
 */

export const PRECISIONS = ['bf16', 'fp8', 'fp4'] as const;
export const PrecisionSchema = z.enum(PRECISIONS);
export type Precision = z.infer<typeof PrecisionSchema>;

const source = z.object({ url: z.string(), note: z.string().optional() });

export const AcceleratorSpecSchema = z.strictObject({
  /** Base hardware name as the master configs spell it: h100, h200, b200, b300, gb200, gb300, mi300x, … */
  id: z.string(),
  vendor: z.enum(['nvidia', 'amd']),
  name: z.string(),
  memoryGiB: z.number().positive(),
  /** HBM bandwidth, TB/s (10^12 bytes per second). */
  memoryBandwidthTBs: z.number().positive(),
  /** Dense (no sparsity) tensor throughput, TFLOP/s; null where the chip has no such format. */
  denseTflops: z.strictObject({
    bf16: z.number().positive(),
    fp8: z.number().positive().nullable(),
    fp4: z.number().positive().nullable(),
  }),
  /** Scale-up domain (NVLink / Infinity Fabric): GPUs in one domain and per-GPU unidirectional GB/s. */
  scaleUp: z.strictObject({ domainGpus: z.int().positive(), bandwidthGBs: z.number().positive() }),
  /** Scale-out network per GPU (InfiniBand / RoCE), unidirectional GB/s: disaggregated KV transfers use it. */
  scaleOutGBs: z.number().positive(),
  /** Board power (TDP), W. */
  powerW: z.number().positive(),
  /** Rental price, $ per GPU-hour (an estimate by nature: list or market price at the cited source). */
  pricePerGpuHour: z.number().positive(),
  sources: z.array(source).min(1),
  /** Fields whose values are estimates, not published figures. */
  estimated: z.array(z.string()),
});
export type AcceleratorSpec = z.infer<typeof AcceleratorSpecSchema>;

export const AttentionSchema = z.discriminatedUnion('kind', [
  /** Multi-head / grouped-query attention: KV per token per layer = 2 · kvHeads · headDim elements. */
  z.strictObject({
    kind: z.enum(['MHA', 'GQA']),
    heads: z.int().positive(),
    kvHeads: z.int().positive(),
    headDim: z.int().positive(),
  }),
  /** Multi-head latent attention: KV per token per layer = kvLoraRank + ropeHeadDim elements. */
  z.strictObject({
    kind: z.literal('MLA'),
    heads: z.int().positive(),
    kvLoraRank: z.int().positive(),
    ropeHeadDim: z.int().positive(),
  }),
]);
export type Attention = z.infer<typeof AttentionSchema>;

export const ModelSpecSchema = z.strictObject({
  /** Canonical Hugging Face id of the unquantized model. */
  id: z.string(),
  /** Master-config model prefixes (dsr1, qwen3.5, …) and other ids (quantized checkpoints) naming it. */
  aliases: z.array(z.string()),
  totalParamsB: z.number().positive(),
  activeParamsB: z.number().positive(),
  layers: z.int().positive(),
  hiddenSize: z.int().positive(),
  attention: AttentionSchema,
  /**
   * Layers that keep a KV cache growing with context (full attention). Hybrid models (linear attention,
   * sliding windows) have fewer; their other layers hold a fixed-size state counted in `stateBytesPerSeq`.
   */
  kvLayers: z.int().nonnegative(),
  /** Fixed per-sequence state of non-KV layers (linear attention, SSM), bytes at bf16; 0 when none. */
  stateBytesPerSeq: z.number().nonnegative(),
  /** Sparse attention reads only this many past tokens per query (DSA-style top-k); null: all. */
  sparseAttentionTopK: z.int().positive().nullable(),
  moe: z
    .strictObject({
      experts: z.int().positive(),
      activeExperts: z.int().positive(),
      sharedExperts: z.int().nonnegative(),
    })
    .nullable(),
  maxContext: z.int().positive(),
  /**
   * Engram lookup tables, GiB for the whole model: row-sharded over the TP ranks when GPU-resident, none on
   * the GPU when held in host memory (vLLM `--engram-config '{"cpu_offload":true}'`). Absent: no such tables.
   */
  engramTablesGiB: z.number().positive().optional(),
  sources: z.array(source).min(1),
  estimated: z.array(z.string()),
});
export type ModelSpec = z.infer<typeof ModelSpecSchema>;

/**
 * A user catalog file (`--catalog FILE`, `$INFX_CATALOG` or `.infx/catalog.yaml`): accelerators and models of
 * one's own, with the built-in entries' fields; an entry with a built-in id replaces it.
 */
export const UserCatalogSchema = z.strictObject({
  accelerators: z.array(AcceleratorSpecSchema).default([]),
  models: z.array(ModelSpecSchema).default([]),
});
export type UserCatalog = z.infer<typeof UserCatalogSchema>;
