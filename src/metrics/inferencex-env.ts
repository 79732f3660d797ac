import { InfxError } from '../schema/errors.ts';
/**
 * The job environment that the reference's process_result.py reads (spec §4.3, §7.2), as a typed
 * object. Fields a job does not set are undefined; the aggregation says which variables are missing,
 * by their environment names, exactly as the reference does.
 */
export interface InferencexAggregateEnv {
  /** RUNNER_TYPE */
  hw: string;
  image: string;
  /** MODEL_PREFIX, written as infmax_model_prefix. */
  modelPrefix: string;
  framework: string;
  precision: string;
  specDecoding: string;
  /** Configured lengths (not measured ones). */
  isl: number;
  osl: number;
  disagg: boolean;
  isMultinode: boolean;
  recipeFingerprint?: string;
  /** ROUTER_METADATA as given: JSON text of {name, version}. */
  routerMetadata?: string;
  kvP2pTransfer?: string;
  // Single node.
  tp?: number;
  pp?: number;
  dcpSize?: number;
  pcpSize?: number;
  ep?: number;
  /** Kept as the string given ("true"/"false"), as the reference does. */
  dpAttention?: string;
  // Multi node.
  prefillGpus?: number;
  decodeGpus?: number;
  prefillNumWorkers?: number;
  prefillTp?: number;
  prefillPp?: number;
  prefillDcpSize?: number;
  prefillPcpSize?: number;
  prefillEp?: number;
  prefillDpAttention?: string;
  decodeNumWorkers?: number;
  decodeTp?: number;
  decodePp?: number;
  decodeDcpSize?: number;
  decodePcpSize?: number;
  decodeEp?: number;
  decodeDpAttention?: string;
  prefillHardware?: string;
  decodeHardware?: string;
}

/** A process_result.py condition, with the reference's message. */
export class InferencexAggregateError extends InfxError {
  override name = 'InferencexAggregateError';
}

/** The environment variable behind each field. */
export const ENV_VAR = {
  hw: 'RUNNER_TYPE',
  image: 'IMAGE',
  modelPrefix: 'MODEL_PREFIX',
  framework: 'FRAMEWORK',
  precision: 'PRECISION',
  specDecoding: 'SPEC_DECODING',
  isl: 'ISL',
  osl: 'OSL',
  disagg: 'DISAGG',
  isMultinode: 'IS_MULTINODE',
  recipeFingerprint: 'RECIPE_FINGERPRINT',
  routerMetadata: 'ROUTER_METADATA',
  kvP2pTransfer: 'KV_P2P_TRANSFER',
  tp: 'TP',
  pp: 'PP_SIZE',
  dcpSize: 'DCP_SIZE',
  pcpSize: 'PCP_SIZE',
  ep: 'EP_SIZE',
  dpAttention: 'DP_ATTENTION',
  prefillGpus: 'PREFILL_GPUS',
  decodeGpus: 'DECODE_GPUS',
  prefillNumWorkers: 'PREFILL_NUM_WORKERS',
  prefillTp: 'PREFILL_TP',
  prefillPp: 'PREFILL_PP_SIZE',
  prefillDcpSize: 'PREFILL_DCP_SIZE',
  prefillPcpSize: 'PREFILL_PCP_SIZE',
  prefillEp: 'PREFILL_EP',
  prefillDpAttention: 'PREFILL_DP_ATTN',
  decodeNumWorkers: 'DECODE_NUM_WORKERS',
  decodeTp: 'DECODE_TP',
  decodePp: 'DECODE_PP_SIZE',
  decodeDcpSize: 'DECODE_DCP_SIZE',
  decodePcpSize: 'DECODE_PCP_SIZE',
  decodeEp: 'DECODE_EP',
  decodeDpAttention: 'DECODE_DP_ATTN',
  prefillHardware: 'PREFILL_HARDWARE',
  decodeHardware: 'DECODE_HARDWARE',
} as const satisfies Record<keyof InferencexAggregateEnv, string>;

type Field = keyof InferencexAggregateEnv;
const BASE: readonly Field[] = [
  'hw',
  'framework',
  'precision',
  'specDecoding',
  'isl',
  'osl',
  'disagg',
  'modelPrefix',
  'image',
];
const NUMERIC = new Set<Field>([
  'isl',
  'osl',
  'tp',
  'pp',
  'dcpSize',
  'pcpSize',
  'ep',
  'prefillGpus',
  'decodeGpus',
  'prefillNumWorkers',
  'prefillTp',
  'prefillPp',
  'prefillDcpSize',
  'prefillPcpSize',
  'prefillEp',
  'decodeNumWorkers',
  'decodeTp',
  'decodePp',
  'decodeDcpSize',
  'decodePcpSize',
  'decodeEp',
]);

/** Python's int() on a string: optional sign, digits (underscores between them), surrounding spaces. */
function parseInt10(name: string, text: string): number {
  if (!/^\s*[+-]?\d+(_\d+)*\s*$/.test(text)) {
    throw new InferencexAggregateError(`${name} must be an integer, got '${text}'`);
  }
  return Number(text.replaceAll('_', ''));
}

/**
 * Reads the typed env from environment variables (e.g. `process.env` in a reference workflow job).
 * The base variables are required up front, as in the reference; the others are checked when the
 * aggregation needs them.
 */
export function inferencexEnvFromVariables(
  vars: Readonly<Record<string, string | undefined>>,
): InferencexAggregateEnv {
  const missing = BASE.filter((f) => vars[ENV_VAR[f]] === undefined).map((f) => ENV_VAR[f]);
  if (missing.length > 0) {
    throw new InferencexAggregateError(`Missing required environment variables: ${missing.join(', ')}`);
  }
  const env: Record<string, unknown> = {};
  for (const [field, name] of Object.entries(ENV_VAR) as [Field, string][]) {
    const text = vars[name];
    if (text === undefined) continue;
    if (field === 'disagg' || field === 'isMultinode') env[field] = text.toLowerCase() === 'true';
    else env[field] = NUMERIC.has(field) ? parseInt10(name, text) : text;
  }
  env.isMultinode ??= false;
  return env as unknown as InferencexAggregateEnv;
}
