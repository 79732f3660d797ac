import { checkByteGate } from '../changelog/byte-gate.ts';
import { fileAtRevision, resolveRevision } from '../changelog/git.ts';
import type { ReviewFinding } from '../schema/review.ts';

/** The changelog's byte contract as a review finding: the line at fault and what to restore. */
export function byteGateFindings(req: {
  cwd: string;
  baseRef: string;
  headRef: string;
  changelogFile: string;
  pr?: number | null | undefined;
  repo?: string | undefined;
}): ReviewFinding[] {
  const file = `./${req.changelogFile}`;
  const base = fileAtRevision(req.cwd, resolveRevision(req.cwd, req.baseRef, '--base-ref'), file);
  const head = fileAtRevision(req.cwd, resolveRevision(req.cwd, req.headRef, '--head-ref'), file);
  if (head === null) return [];
  // A review is of a PR: without its number, any canonical link or a placeholder will do.
  const pr = req.pr ?? 'any';
  const r = checkByteGate(base ?? Buffer.alloc(0), head, pr, req.changelogFile, req.repo);
  if (r.ok) return [];
  return [
    {
      severity: 'blocking',
      rule: 'changelog.byte-rule',
      file: req.changelogFile,
      line: r.line,
      configKey: null,
      message: r.message,
      fix: r.hint,
    },
  ];
}
