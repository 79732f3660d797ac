import { readFile } from 'node:fs/promises';
import type * as z from 'zod';
import type { Precision } from '../../schema/catalog.ts';
import { type MatrixRow, MatrixRowSchema, type RowWorkerSchema } from '../../schema/matrix-row.ts';

type RowWorker = z.infer<typeof RowWorkerSchema>;

import type { SimSetup } from '../engine/config.ts';
import type { DisaggSetup } from '../engine/disagg.ts';
import type { SpecDecodingConfig } from '../engine/spec-decode.ts';

/** Where an `infx sim serve` setup comes from: command-line flags, or one matrix row (`--point`). */

export class ServeSetupError extends Error {}

/**
 * Golden mean acceptance lengths for 3 draft tokens, thinking on (client-metrics-spec §6), by model
 * prefix; the reference pins AgentX throughput runs to these. Other models fall back to 2.5.
 */
const GOLDEN_AL_3: Readonly<Record<string, number>> = {
  dsv4: 2.49,
  'glm5.2': 2.99,
  'qwen3.5': 3.39,
  minimaxm3: 2.78,
  kimik3: 2.87,
};
const DEFAULT_AL_3 = 2.5;

export function specFromRow(row: MatrixRow): SpecDecodingConfig | null {
  const kind = row['spec-decoding'];
  if (kind === 'none') return null;
  const method = kind === 'mtp' ? 'mtp' : 'draft_model';
  return { method, draftTokens: 3, acceptanceLength: GOLDEN_AL_3[row['model-prefix']] ?? DEFAULT_AL_3 };
}

/**
 * A matrix row as the engine it describes: a single-node row is one engine; a multi-node row with a
 * decode pool is a disaggregated cluster (each pool with its own workers and parallelism); a multi-node
 * row without one (decode num-worker 0) is one aggregated engine with the prefill entry's parallelism.
 */
export function setupFromRow(row: MatrixRow): SimSetup | DisaggSetup {
  const common = {
    model: row.model,
    precision: row.precision as Precision,
    spec: specFromRow(row),
  };
  if ('prefill' in row) {
    const pool = (w: RowWorker) => ({
      ...common,
      hardware: w.hardware ?? row.runner,
      tp: w.tp,
      pp: w.pp,
      ep: w.ep,
      dpAttn: w['dp-attn'],
    });
    if (row.decode['num-worker'] === 0) {
      if (row.prefill['num-worker'] !== 1)
        throw new ServeSetupError('an aggregated multi-node row with several workers is not supported yet');
      return pool(row.prefill);
    }
    return {
      prefill: { workers: row.prefill['num-worker'], setup: pool(row.prefill) },
      decode: { workers: row.decode['num-worker'], setup: pool(row.decode) },
    };
  }
  return {
    model: row.model,
    hardware: row.runner,
    precision: row.precision as Precision,
    tp: row.tp,
    ep: row.ep,
    dpAttn: row['dp-attn'],
    spec: specFromRow(row),
  };
}

export async function readPointFile(path: string): Promise<MatrixRow> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ServeSetupError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ServeSetupError(`${path} is not JSON: ${(err as Error).message}`);
  }
  const row = Array.isArray(json) && json.length === 1 ? json[0] : json;
  const parsed = MatrixRowSchema.safeParse(row);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ServeSetupError(
      `${path} is not a matrix row (one object as printed by infx matrix): ${first?.path.join('.') || '(root)'}: ${first?.message}`,
    );
  }
  return parsed.data;
}
