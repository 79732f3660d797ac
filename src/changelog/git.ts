import { spawnSync } from 'node:child_process';
import { ChangelogError } from './errors.ts';

/**
 * The few git reads the changelog gate needs, run in a work tree: a file's bytes at a revision and the
 * two-tree diff of one file. Revisions and paths are passed as separate arguments (never through a
 * shell), and a revision that looks like an option is refused before git sees it.
 */

/** Output of one git command is bounded: a changelog or a master config is megabytes at most. */
const MAX_OUTPUT = 256 * 1024 * 1024;

function checkRef(ref: string, flag: string): void {
  if (ref === '' || ref.startsWith('-') || /[\0\s]/.test(ref))
    throw new ChangelogError(`${flag} '${ref}' is not a git revision: give a branch, tag or commit`);
}

/** One git command in `cwd`, its arguments never through a shell; git missing is a clear error. */
export function git(cwd: string, args: string[]): { status: number; stdout: Buffer; stderr: string } {
  const r = spawnSync('git', args, { cwd, maxBuffer: MAX_OUTPUT });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    throw new ChangelogError(
      code === 'ENOENT'
        ? 'git is not installed (or not on PATH): the changelog commands read revisions with git'
        : `git ${args[0]} failed: ${r.error.message}`,
    );
  }
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr.toString('utf8').trim() };
}

/** The commit a revision names; a clear error when it names none (or `cwd` is no git work tree). */
export function resolveRevision(cwd: string, ref: string, flag: string): string {
  checkRef(ref, flag);
  const r = git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (r.status !== 0) {
    const inside = git(cwd, ['rev-parse', '--is-inside-work-tree']);
    if (inside.status !== 0)
      throw new ChangelogError(`${cwd} is not inside a git work tree: run the command in the repository`);
    throw new ChangelogError(
      `${flag} '${ref}' names no commit in this repository (fetch it first, e.g. git fetch origin ${ref})`,
    );
  }
  return r.stdout.toString('utf8').trim();
}

/** The bytes of `path` at `ref`, or null when the revision has no such file. */
export function fileAtRevision(cwd: string, ref: string, path: string): Buffer | null {
  const r = git(cwd, ['cat-file', 'blob', `${ref}:${path}`]);
  return r.status === 0 ? r.stdout : null;
}

/** `git diff <base> <head> -- <path>` (two trees, not the merge base), as text. */
export function diffOfFile(cwd: string, base: string, head: string, path: string): string {
  const r = git(cwd, ['diff', '--no-color', '--no-ext-diff', base, head, '--', path]);
  if (r.status !== 0) throw new ChangelogError(`git diff ${base} ${head} -- ${path} failed: ${r.stderr}`);
  return r.stdout.toString('utf8');
}

/** Marks `path` resolved in the index (after a conflict's result was written to the work tree). */
export function stagePath(cwd: string, path: string): void {
  const r = git(cwd, ['add', '--', path]);
  if (r.status !== 0) throw new ChangelogError(`git add ${path} failed: ${r.stderr}`);
}

/** The paths a two-tree diff base..head touches under `cwd`, relative to it (renames as delete + add). */
export function changedPaths(cwd: string, base: string, head: string): string[] {
  const r = git(cwd, ['diff', '--no-color', '--relative', '--name-only', '--no-renames', '-z', base, head]);
  if (r.status !== 0) throw new ChangelogError(`git diff --name-only ${base} ${head} failed: ${r.stderr}`);
  return r.stdout
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '');
}

/** The commits of `head` that `base` lacks (`git rev-list base..head`): a pull request's commit list. */
export function commitsBetween(cwd: string, base: string, head: string): string[] {
  const b = resolveRevision(cwd, base, '--base-ref');
  const h = resolveRevision(cwd, head, '--head-ref');
  const r = git(cwd, ['rev-list', `${b}..${h}`]);
  if (r.status !== 0) throw new ChangelogError(`git rev-list ${base}..${head} failed: ${r.stderr}`);
  return r.stdout.toString('utf8').split('\n').filter(Boolean);
}
