import type { KvOffloadBackend } from '../schema/master-config.ts';
import type { RowWorker } from '../schema/matrix-row.ts';

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
