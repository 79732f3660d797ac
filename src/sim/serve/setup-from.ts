import { readFile } from 'node:fs/promises';
import { InfxError } from '../../schema/errors.ts';
import { type MatrixRow, MatrixRowSchema } from '../../schema/matrix-row.ts';
import { isAggregate, type RowSetup } from '../engine/aggregate.ts';
import type { SimSetup } from '../engine/config.ts';
import { setupOfRow, singleEngineAt } from '../engine/rows.ts';

/** Where an `infx sim serve` setup comes from: command-line flags, or one matrix row (`--point`). */

export class ServeSetupError extends InfxError {}

/**
 * A matrix row as the engine(s) `sim serve` runs (the mapping predict uses too): one engine, a
 * prefill/decode cluster, or an aggregated pool of identical engines (packed TP4) behind one endpoint.
 */
export function setupFromRow(row: MatrixRow): RowSetup {
  // setupOfRow reads any record (infx predict hands it unvalidated JSON); a typed row is one.
  // A script's draft length, token budget and CUDA graphs may depend on the users (spec-recipe.ts,
  // trt-recipe.ts): a point's row has one number, and a single engine then runs as predict runs it.
  const conc = typeof row.conc === 'number' ? row.conc : undefined;
  const setup = setupOfRow(row, {}, 'row', conc);
  if (conc === undefined || 'prefill' in setup || isAggregate(setup)) return setup;
  return singleEngineAt(setup, row, conc, {});
}

/**
 * The engine to serve: a matrix row (`--point`) or a model and hardware, with engine settings from flags
 * laid over it; for a disaggregated row they apply to both pools, for an aggregated one to every engine. `servedName` is the model name clients
 * must send, as vLLM serves what its --model says: the row's `model`, or the --model given.
 */
export async function serveSetup(
  from: { point?: string | undefined; model?: string | undefined; hardware?: string | undefined },
  overrides: Partial<SimSetup>,
): Promise<{ setup: RowSetup; servedName: string }> {
  let base: RowSetup;
  let servedName: string;
  if (from.point) {
    const row = await readPointFile(from.point);
    base = setupFromRow(row);
    servedName = row.model;
  } else if (from.model && from.hardware) {
    base = { model: from.model, hardware: from.hardware };
    servedName = from.model;
  } else throw new ServeSetupError('give --model and --hardware, or --point row.json (a matrix row)');
  if ('prefill' in base)
    return {
      setup: {
        prefill: { ...base.prefill, setup: { ...base.prefill.setup, ...overrides } },
        decode: { ...base.decode, setup: { ...base.decode.setup, ...overrides } },
      },
      servedName,
    };
  if (isAggregate(base)) return { setup: { ...base, setup: { ...base.setup, ...overrides } }, servedName };
  return { setup: { ...base, ...overrides }, servedName };
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
  // A sweep's point.json carries the row under `row`.
  const inner = isPointFile(json) ? json.row : json;
  const row = Array.isArray(inner) && inner.length === 1 ? inner[0] : inner;
  const parsed = MatrixRowSchema.safeParse(row);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ServeSetupError(
      `${path} is not a matrix row (one object as printed by infx matrix): ${first?.path.join('.') || '(root)'}: ${first?.message}`,
    );
  }
  return parsed.data;
}

function isPointFile(json: unknown): json is { row: unknown } {
  return typeof json === 'object' && json !== null && 'pointId' in json && 'row' in json;
}
