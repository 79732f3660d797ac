import * as z from 'zod';
import {
  ComponentMetadataSchema,
  KV_OFFLOADING,
  KvOffloadBackendSchema,
  SPEC_DECODING,
} from './master-config.ts';

/**
 * Matrix rows: what `infx matrix` prints and what a sweep consumes. Byte-for-byte the reference
 * generator's rows (matrix-spec §6); key order is fixed by the generator, not by these schemas.
 */

const posInt = () => z.int().gt(0);
const fingerprint = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .describe('SHA-256 of the row without conc and exp-name');

const identity = {
  image: z.string(),
  model: z.string(),
  'model-prefix': z.string(),
  precision: z.string(),
  framework: z.string(),
  runner: z.string().describe('A runners.yaml label, or a concrete node with --runner-node-filter'),
};

export const RowWorkerSchema = z.strictObject({
  'num-worker': z.int(),
  tp: z.int(),
  ep: z.int(),
  'dp-attn': z.boolean(),
  pp: posInt(),
  'dcp-size': posInt(),
  'pcp-size': posInt(),
  hardware: z.string().min(1).nullish(),
  'additional-settings': z.array(z.string()).optional(),
});

export const SingleNodeFixedRowSchema = z.strictObject({
  ...identity,
  isl: z.int(),
  osl: z.int(),
  tp: z.int(),
  pp: posInt(),
  'dcp-size': posInt(),
  'pcp-size': posInt(),
  conc: z.union([z.int(), z.array(z.int())]),
  'max-model-len': z.int(),
  ep: z.int(),
  'dp-attn': z.boolean(),
  'spec-decoding': z.enum(SPEC_DECODING),
  'exp-name': z.string(),
  disagg: z.literal(false),
  'run-eval': z.boolean(),
  'eval-only': z.boolean().optional(),
  router: ComponentMetadataSchema.optional(),
  'recipe-fingerprint': fingerprint.optional(),
});

export const MultiNodeFixedRowSchema = z
  .strictObject({
    ...identity,
    isl: z.int(),
    osl: z.int(),
    'spec-decoding': z.enum(SPEC_DECODING),
    prefill: RowWorkerSchema,
    decode: RowWorkerSchema,
    conc: z.array(z.int()),
    'max-model-len': z.int(),
    'exp-name': z.string(),
    disagg: z.boolean(),
    'run-eval': z.boolean(),
    'eval-only': z.boolean().optional(),
    'eval-conc': z.int().optional(),
    'eval-all-concs': z.boolean().optional(),
    router: ComponentMetadataSchema.optional(),
    'kv-p2p-transfer': z.string().min(1).optional(),
    'recipe-fingerprint': fingerprint.optional(),
  })
  .refine((r) => !r.disagg || r['kv-p2p-transfer'] !== undefined, {
    message: 'disagg=true requires kv-p2p-transfer',
  });

const agentic = {
  'kv-offloading': z.enum(KV_OFFLOADING),
  'total-cpu-dram-gb': z.int().gte(0),
  duration: z.int(),
  'exp-name': z.string(),
  'scenario-type': z.literal('agentic-coding'),
  'kv-offload-backend': KvOffloadBackendSchema.optional(),
  router: ComponentMetadataSchema.optional(),
  'run-eval': z.boolean().optional(),
  'eval-only': z.boolean().optional(),
  'recipe-fingerprint': fingerprint.optional(),
};

export const SingleNodeAgenticRowSchema = z.strictObject({
  ...identity,
  tp: z.int(),
  pp: posInt(),
  'dcp-size': posInt(),
  'pcp-size': posInt(),
  ep: z.int(),
  'dp-attn': z.boolean(),
  'spec-decoding': z.enum(SPEC_DECODING),
  conc: z.int(),
  ...agentic,
});

export const MultiNodeAgenticRowSchema = z.strictObject({
  ...identity,
  'spec-decoding': z.enum(SPEC_DECODING),
  prefill: RowWorkerSchema,
  decode: RowWorkerSchema,
  conc: z.array(z.int()),
  ...agentic,
  disagg: z.boolean(),
  'kv-p2p-transfer': z.string().min(1).optional(),
  'eval-conc': z.int().optional(),
});

export const MatrixRowSchema = z.union([
  SingleNodeFixedRowSchema,
  MultiNodeFixedRowSchema,
  SingleNodeAgenticRowSchema,
  MultiNodeAgenticRowSchema,
]);
export const MatrixSchema = z.array(MatrixRowSchema);

export type RowWorker = z.infer<typeof RowWorkerSchema>;
export type SingleNodeFixedRow = z.infer<typeof SingleNodeFixedRowSchema>;
export type MultiNodeFixedRow = z.infer<typeof MultiNodeFixedRowSchema>;
export type SingleNodeAgenticRow = z.infer<typeof SingleNodeAgenticRowSchema>;
export type MultiNodeAgenticRow = z.infer<typeof MultiNodeAgenticRowSchema>;
export type MatrixRow = SingleNodeFixedRow | MultiNodeFixedRow | SingleNodeAgenticRow | MultiNodeAgenticRow;

// ---- Telling rows apart ----
//
// A row's kind follows from its keys: multi-node rows have worker pools (`prefill`, `decode`) where
// single-node rows have `tp`; agentic rows say `scenario-type: agentic-coding` where fixed rows have `isl`
// and `osl`. These guards narrow the union so that no caller needs a cast or an ad-hoc key test.

export type FixedRow = SingleNodeFixedRow | MultiNodeFixedRow;
export type AgenticRow = SingleNodeAgenticRow | MultiNodeAgenticRow;
export type SingleNodeRow = SingleNodeFixedRow | SingleNodeAgenticRow;
export type MultiNodeRow = MultiNodeFixedRow | MultiNodeAgenticRow;
export type RowKind = 'single-node-fixed' | 'multi-node-fixed' | 'single-node-agentic' | 'multi-node-agentic';

export const isMultiNode = (r: MatrixRow): r is MultiNodeRow => 'prefill' in r && r.prefill != null;
export const isSingleNode = (r: MatrixRow): r is SingleNodeRow => !isMultiNode(r);
export const isAgentic = (r: MatrixRow): r is AgenticRow =>
  'scenario-type' in r && r['scenario-type'] === 'agentic-coding';
export const isFixed = (r: MatrixRow): r is FixedRow => !isAgentic(r);

export function rowKind(r: MatrixRow): RowKind {
  return `${isMultiNode(r) ? 'multi' : 'single'}-node-${isAgentic(r) ? 'agentic' : 'fixed'}`;
}

/** A row's concurrencies: single-node rows mostly hold one, multi-node rows a list. */
export const rowConcs = (r: MatrixRow): number[] => (Array.isArray(r.conc) ? r.conc : [r.conc]);

/**
 * The identical engines of a multi-node row that serves aggregated (no decode pool), which a router
 * balances (packed TP4: two TP4 servers on one 8-GPU node); 1 for every other row.
 */
export const aggregatedWorkers = (r: MatrixRow): number =>
  isMultiNode(r) && r.decode['num-worker'] === 0 ? Math.max(1, r.prefill['num-worker']) : 1;

/**
 * The row as a record of its fields by name, for code that treats every field alike (canonical keys,
 * key-by-key comparison). The same object, not a copy: writes through it change the row.
 */
export const rowFields = (r: MatrixRow): Record<string, unknown> => r;
