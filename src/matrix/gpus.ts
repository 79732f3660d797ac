import { isMultiNode, type MatrixRow, type RowWorker } from '../schema/matrix-row.ts';

/** GPUs a point occupies (matrix-spec §4): every allocated GPU counts, none twice. */

/** DCP reuses the TP GPUs, so it adds none; PP and PCP multiply. */
export const workerGpus = (w: RowWorker) => w['num-worker'] * w.tp * w.pp * w['pcp-size'];

export function rowGpus(row: MatrixRow): number {
  if (isMultiNode(row)) return workerGpus(row.prefill) + workerGpus(row.decode);
  return row.tp * row.pp * row['pcp-size'];
}
