import { readFile } from 'node:fs/promises';
import type { Precision } from '../../schema/catalog.ts';
import { type MatrixRow, MatrixRowSchema } from '../../schema/matrix-row.ts';
import type { SimSetup } from '../engine/config.ts';
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

/** A single-node matrix row as the engine it describes (multi-node rows need the disaggregated front). */
export function setupFromRow(row: MatrixRow): SimSetup {
  if (!('tp' in row)) {
    throw new ServeSetupError(
      'this is a multi-node (prefill/decode) row: infx sim serve --point takes single-node rows for now',
    );
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
