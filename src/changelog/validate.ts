import { InfxError } from '../schema/errors.ts';
import { plural } from '../schema/plural.ts';
import { checkByteGate } from './byte-gate.ts';
import { type ChangelogMatrixRequest, changelogMatrix } from './gate.ts';
import { fileAtRevision, resolveRevision } from './git.ts';

/**
 * `infx changelog validate`: the gate a changelog change must pass. First what the reference's CI job
 * checks (changelog-pr-spec §1.7: the head blob ends with a newline, and the processor accepts the diff
 * and generates its matrix), then what the reference's CI never runs: the byte-level append contract
 * (§1.4–§1.6), each violation named by file and line with what to restore.
 */

export interface ValidateRequest extends ChangelogMatrixRequest {
  /** The PR number: new entries may link to it (null: main's context, links must be canonical). */
  pr: number | null;
  /** The repository the links name (default SemiAnalysisAI/InferenceX). */
  repo?: string | undefined;
}

export interface ValidateReport {
  /** What passed, for stdout. */
  lines: string[];
  /** Each failure, for stderr; empty when the change passes. */
  errors: string[];
}

export async function validateChangelog(req: ValidateRequest): Promise<ValidateReport> {
  const pr = req.pr;
  const file = req.changelogFile;
  const base = resolveRevision(req.cwd, req.baseRef, '--base-ref');
  const head = resolveRevision(req.cwd, req.headRef, '--head-ref');
  const headBytes = fileAtRevision(req.cwd, head, `./${file}`);
  if (headBytes === null) return { lines: [], errors: [`${file} does not exist at ${req.headRef}`] };
  const lines: string[] = [];
  const errors: string[] = [];
  if (headBytes.length === 0 || headBytes[headBytes.length - 1] !== 0x0a)
    errors.push(`${file} at ${req.headRef} does not end with a newline`);
  else {
    try {
      await changelogMatrix(req);
      lines.push(`Validated ${file}: final newline present and matrix generated`);
    } catch (err) {
      if (!(err instanceof InfxError)) throw err;
      errors.push(`the changelog processor rejected the diff: ${err.message}`);
    }
  }
  const baseBytes = fileAtRevision(req.cwd, base, `./${file}`) ?? Buffer.alloc(0);
  const bytes = checkByteGate(baseBytes, headBytes, pr, file, req.repo);
  if (bytes.ok)
    lines.push(
      `Byte gate: history unchanged, ${plural(bytes.appended, 'entry', 'entries')} appended` +
        (bytes.corrections > 0 ? `, ${plural(bytes.corrections, 'pr-link correction')}` : ''),
    );
  else
    errors.push(
      `${bytes.line === null ? file : `${file}:${bytes.line}`}: ${bytes.message}` +
        (bytes.hint === null ? '' : ` (fix: ${bytes.hint})`),
    );
  return { lines, errors };
}
