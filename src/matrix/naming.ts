import type { KvOffloadBackend } from '../schema/master-config.ts';
import { isMultiNode, type MatrixRow, type RowWorker } from '../schema/matrix-row.ts';

/** Names the reference gives to sequence families and experiments (matrix-spec §0, §6). */

export const SEQ_LENS = { '1k1k': [1024, 1024], '8k1k': [8192, 1024] } as const;
export type SeqLenName = keyof typeof SEQ_LENS;
export const SEQ_LEN_NAMES = Object.keys(SEQ_LENS) as SeqLenName[];

export function seqLenName(isl: number, osl: number): string {
  for (const name of SEQ_LEN_NAMES) {
    const [i, o] = SEQ_LENS[name];
    if (isl === i && osl === o) return name;
  }
  return `${isl}_${osl}`;
}

/** `max-model-len` leaves 256 tokens of headroom over the request. */
export const maxModelLen = (isl: number, osl: number) => isl + osl + 256;

const kvTag = (kv: string, backend: KvOffloadBackend | null | undefined) =>
  kv === 'none' ? 'kvnone' : `kv${kv}-${backend?.name ?? ''}`;

export function singleNodeAgenticExpName(
  prefix: string,
  tp: number,
  conc: number,
  kv: string,
  backend: KvOffloadBackend | null | undefined,
  spec: string,
): string {
  const name = `${prefix}_tp${tp}_conc${conc}_${kvTag(kv, backend)}`;
  return spec === 'none' ? name : `${name}_spec-${spec}`;
}

function workerTag(role: 'p' | 'd', w: RowWorker): string {
  return `${role}${w['num-worker']}x${w.tp}${w.ep !== 1 ? `ep${w.ep}` : ''}${w['dp-attn'] ? 'dpa' : ''}`;
}

export function multiNodeAgenticExpName(
  prefix: string,
  prefill: RowWorker,
  decode: RowWorker,
  concs: readonly number[],
  kv: string,
  backend: KvOffloadBackend | null | undefined,
): string {
  const name = `${prefix}_${workerTag('p', prefill)}_${workerTag('d', decode)}_conc${concs.join('x')}`;
  return kv === 'none' ? name : `${name}_${kvTag(kv, backend)}`;
}

const topology = (w: { tp: number; pp: number; 'dcp-size': number; 'pcp-size': number; ep: number }) =>
  `tp${w.tp}-pp${w.pp}-dcp${w['dcp-size']}-pcp${w['pcp-size']}-ep${w.ep}`;

/**
 * The reference's RESULT_FILENAME for a fixed-seq-len row at the given concurrencies (matrix-spec §6.6):
 * experiment, precision, framework, topology, disagg, spec method, concurrency, runner, and the recipe
 * fingerprint's first 16 hex digits when the row has one.
 */
export function resultName(row: MatrixRow, concs: readonly number[]): string {
  const head = `${row['exp-name']}_${row.precision}_${row.framework}`;
  const disagg = 'disagg' in row ? row.disagg : false;
  const topo = isMultiNode(row)
    ? `prefill-${topology(row.prefill)}-dp${row.prefill['dp-attn']}-nw${row.prefill['num-worker']}_decode-${topology(row.decode)}-dp${row.decode['dp-attn']}-nw${row.decode['num-worker']}`
    : `${topology(row)}-dpa${row['dp-attn']}`;
  const fp = row['recipe-fingerprint'];
  return `${head}_${topo}_disagg-${disagg}_spec-${row['spec-decoding']}_conc${concs.join('x')}_${row.runner}${fp ? `_recipe-${fp.slice(0, 16)}` : ''}`;
}
