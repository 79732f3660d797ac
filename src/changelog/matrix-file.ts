import { readInputText } from '../config/read.ts';
import { type ChangelogMetadata, ChangelogMetadataSchema } from '../schema/changelog-entry.ts';
import { ChangelogError } from './errors.ts';

/**
 * `infx changelog matrix` output read back as the input of a sweep: its throughput rows (the single-node
 * and multi-node buckets, in the order printed), then the rows of its eval lists (each marked `eval-only`:
 * the eval runs instead of a benchmark, as the reference's eval jobs do), and the `changelog_metadata` that
 * says which entries selected them, so that ingest can link the run to those entries.
 */

export interface ChangelogMatrixFile {
  /** Throughput rows, then eval rows. */
  rows: unknown[];
  /** How many of `rows` came from the eval lists. */
  evalRows: number;
  metadata: ChangelogMetadata;
}

const EVAL_LISTS = ['evals', 'agentic_evals', 'multinode_evals', 'multinode_agentic_evals'] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The processor's object form; null when `json` is not one (a plain matrix is a list of rows). */
export function readChangelogMatrix(json: unknown, file: string): ChangelogMatrixFile | null {
  if (!isObject(json) || !('changelog_metadata' in json)) return null;
  const meta = ChangelogMetadataSchema.safeParse(json.changelog_metadata);
  if (!meta.success) {
    const issue = meta.error.issues[0];
    throw new ChangelogError(
      `${file}: changelog_metadata.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'} ` +
        '(write the file with infx changelog matrix, unedited)',
    );
  }
  const rows: unknown[] = [];
  for (const bucket of ['single_node', 'multi_node'] as const) {
    const groups = json[bucket] ?? {};
    if (!isObject(groups))
      throw new ChangelogError(
        `${file}: ${bucket} is not an object of row lists (as infx changelog matrix prints it)`,
      );
    for (const [seq, list] of Object.entries(groups)) {
      if (!Array.isArray(list))
        throw new ChangelogError(`${file}: ${bucket}.${seq} is not a list of matrix rows`);
      rows.push(...list);
    }
  }
  let evalRows = 0;
  for (const key of EVAL_LISTS) {
    const list = json[key] ?? [];
    if (!Array.isArray(list)) throw new ChangelogError(`${file}: ${key} is not a list of matrix rows`);
    // The processor marks them; a hand-edited list must not turn an eval into a benchmark.
    for (const row of list) rows.push(isObject(row) ? { ...row, 'eval-only': true } : row);
    evalRows += list.length;
  }
  return { rows, evalRows, metadata: meta.data };
}

/**
 * A changelog metadata file: `infx changelog matrix` output, or its `changelog_metadata` object alone
 * ({base_ref, head_ref, entries}), e.g. a merge run's, for `infx ingest --changelog` and `infx reuse apply`.
 */
export function readChangelogMetadata(text: string, file: string): ChangelogMetadata {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ChangelogError(
      `${file} is not JSON (${(err as Error).message}): give infx changelog matrix output`,
    );
  }
  const fromMatrix = readChangelogMatrix(json, file);
  if (fromMatrix) return fromMatrix.metadata;
  const meta = ChangelogMetadataSchema.safeParse(json);
  if (meta.success) return meta.data;
  const issue = meta.error.issues[0];
  throw new ChangelogError(
    `${file}: ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'invalid'} — give infx changelog matrix output ` +
      'or its changelog_metadata object ({base_ref, head_ref, entries})',
  );
}

/** readChangelogMetadata of a file (a bounded, UTF-8 regular file); a clear error naming it otherwise. */
export function readChangelogMetadataFile(path: string): ChangelogMetadata {
  const read = readInputText(path, { what: 'changelog metadata' });
  if ('diagnostic' in read) throw new ChangelogError(read.diagnostic.message);
  return readChangelogMetadata(read.text, path);
}
