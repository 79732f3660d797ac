import { readFile } from 'node:fs/promises';
import type * as z from 'zod';
import {
  type MatrixRow,
  MultiNodeAgenticRowSchema,
  MultiNodeFixedRowSchema,
  SingleNodeAgenticRowSchema,
  SingleNodeFixedRowSchema,
} from '../schema/matrix-row.ts';
import { RecipeError } from './frameworks.ts';

/** Reads one matrix row (as `infx matrix` prints it) from a JSON file: a row, or an array of exactly one. */

const HOW = 'pass one row as printed by infx matrix (an object, or an array holding one)';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema of the row kind the object claims to be, so the error names the field that is wrong. */
function schemaFor(row: Record<string, unknown>): { schema: z.ZodType<MatrixRow>; kind: string } {
  const agentic = row['scenario-type'] === 'agentic-coding';
  const multi = 'prefill' in row;
  if (multi)
    return agentic
      ? { schema: MultiNodeAgenticRowSchema as z.ZodType<MatrixRow>, kind: 'multi-node agentic' }
      : { schema: MultiNodeFixedRowSchema as z.ZodType<MatrixRow>, kind: 'multi-node fixed-seq-len' };
  return agentic
    ? { schema: SingleNodeAgenticRowSchema as z.ZodType<MatrixRow>, kind: 'single-node agentic' }
    : { schema: SingleNodeFixedRowSchema as z.ZodType<MatrixRow>, kind: 'single-node fixed-seq-len' };
}

export function parseMatrixRow(json: unknown, source: string): MatrixRow {
  let row = json;
  if (Array.isArray(json)) {
    if (json.length !== 1)
      throw new RecipeError(
        `${source} holds ${json.length} rows: ${HOW} (e.g. jq '.[0]' ${source} > row.json)`,
      );
    row = json[0];
  }
  if (!isObject(row)) throw new RecipeError(`${source} is not a matrix row: ${HOW}`);
  const { schema, kind } = schemaFor(row);
  const parsed = schema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(row)';
    throw new RecipeError(`${source} is not a valid ${kind} matrix row: ${where}: ${issue?.message}; ${HOW}`);
  }
  return parsed.data;
}

export async function readMatrixRowFile(path: string): Promise<MatrixRow> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new RecipeError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new RecipeError(`${path} is not JSON (${(err as Error).message}): ${HOW}`);
  }
  return parseMatrixRow(json, path);
}

/** The concurrency to render: the one asked for, else the row's first; with a note when that is a choice. */
export function pickConc(row: MatrixRow, requested?: number): { conc: number; note: string | null } {
  const concs = Array.isArray(row.conc) ? row.conc : [row.conc];
  if (requested !== undefined)
    return {
      conc: requested,
      note: concs.includes(requested)
        ? null
        : `--conc ${requested} is not among the row's concurrencies (${concs.join(', ')})`,
    };
  const first = concs[0];
  if (first === undefined) throw new RecipeError('the row has no concurrency: pass --conc N');
  return {
    conc: first,
    note:
      concs.length > 1
        ? `the row lists concurrencies ${concs.join(', ')}: rendering conc ${first} (pick one with --conc)`
        : null,
  };
}
