import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChangelogError } from './errors.ts';
import { fileAtRevision, resolveRevision, stagePath } from './git.ts';
import { canonicalize, resolveConflict } from './merge.ts';

/**
 * `infx changelog canonicalize` and `infx changelog resolve` in a work tree: the merge tooling of
 * merge.ts on the work tree's changelog, the base read from git (a revision, or the conflict's index
 * stages), the result written back only when it is checked.
 */

export interface MergeRequest {
  cwd: string;
  changelogFile: string;
  pr: number;
  repo?: string | undefined;
}

export interface MergeOutcome {
  changed: boolean;
  message: string;
}

function workFile(cwd: string, file: string): Buffer {
  try {
    return readFileSync(join(cwd, file));
  } catch (err) {
    throw new ChangelogError(`cannot read ${file} in ${cwd}: ${(err as Error).message}`);
  }
}

export function canonicalizeWorkTree(req: MergeRequest & { baseRef: string }): MergeOutcome {
  const base = resolveRevision(req.cwd, req.baseRef, '--base-ref');
  const baseBytes = fileAtRevision(req.cwd, base, `./${req.changelogFile}`);
  if (baseBytes === null) throw new ChangelogError(`${req.changelogFile} does not exist at ${req.baseRef}`);
  const head = workFile(req.cwd, req.changelogFile);
  const out = canonicalize(baseBytes, head, req.pr, req.changelogFile, req.repo);
  if (out.equals(head)) return { changed: false, message: `${req.changelogFile}: nothing to canonicalize` };
  writeFileSync(join(req.cwd, req.changelogFile), out);
  return {
    changed: true,
    message: `${req.changelogFile}: placeholder links of PR #${req.pr} made canonical`,
  };
}

export function resolveWorkTree(req: MergeRequest): MergeOutcome {
  const stage = (n: number, side: string) => {
    const bytes = fileAtRevision(req.cwd, `:${n}`, `./${req.changelogFile}`);
    if (bytes === null)
      throw new ChangelogError(
        `${req.changelogFile} has no ${side} version in the index: resolve runs during a merge that conflicts in it`,
      );
    return bytes;
  };
  const out = resolveConflict(
    stage(1, 'merge-base'),
    stage(2, 'PR (ours)'),
    stage(3, 'main (theirs)'),
    req.pr,
    req.changelogFile,
    req.repo,
  );
  writeFileSync(join(req.cwd, req.changelogFile), out);
  stagePath(req.cwd, req.changelogFile);
  return {
    changed: true,
    message: `${req.changelogFile}: conflict resolved (main's bytes, then PR #${req.pr}'s entries) and staged`,
  };
}
