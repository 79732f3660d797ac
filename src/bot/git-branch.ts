import { ChangelogError } from '../changelog/errors.ts';
import { git } from '../changelog/git.ts';
import { canonicalizeWorkTree, resolveWorkTree } from '../changelog/merge-tree.ts';
import { BotError } from './errors.ts';

/**
 * The local half of merge-with-reuse (changelog-pr-spec §4.4 steps 2–5), with real git in the user's work
 * tree: the PR head fetched and checked out detached (no local branch is moved), main merged into it with
 * --no-ff, a changelog conflict resolved (§4.3) and the links made canonical (§4.2), then one commit that a
 * synchronize event will carry, pushed to the PR branch. A failure aborts the merge and puts the work tree
 * back on what was checked out before.
 */

function run(cwd: string, args: string[]): string {
  const r = git(cwd, args);
  if (r.status !== 0) throw new BotError(`git ${args.join(' ')} failed: ${r.stderr || `exit ${r.status}`}`);
  return r.stdout.toString('utf8').trim();
}

/** The top of the work tree `cwd` is in; a clear error outside one. */
export function workTreeTop(cwd: string): string {
  const r = git(cwd, ['rev-parse', '--show-toplevel']);
  if (r.status !== 0)
    throw new BotError(
      `${cwd} is not inside a git work tree: run merge-with-reuse in a clone of the repository`,
    );
  return r.stdout.toString('utf8').trim();
}

/** `git status --porcelain` lines: changed, staged and untracked paths (ignored ones not). */
export function workTreeChanges(top: string): string[] {
  return run(top, ['status', '--porcelain']).split('\n').filter(Boolean);
}

/** owner/name of a GitHub remote URL (https, ssh, scp-like), or null for any other URL. */
export function githubRepoOfUrl(url: string): string | null {
  const m =
    /^(?:https?:\/\/(?:[^@/]+@)?|ssh:\/\/git@|git@)github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(
      url.trim(),
    );
  return m ? `${m[1]}/${m[2]}` : null;
}

/** The remote's URL, or a clear error when the work tree has no such remote. */
export function remoteUrl(top: string, remote: string): string {
  if (remote === '' || remote.startsWith('-') || /\s/.test(remote))
    throw new BotError(`--remote '${remote}' is not a remote name (e.g. origin)`);
  const r = git(top, ['remote', 'get-url', remote]);
  if (r.status !== 0)
    throw new BotError(
      `this clone has no remote '${remote}': give the GitHub remote with --remote (git remote -v)`,
    );
  return r.stdout.toString('utf8').trim();
}

const refOk = (ref: string) => ref !== '' && !ref.startsWith('-') && !/[\s:~^?*[\\]|\.\.|@\{/.test(ref);

export interface BranchRequest {
  top: string;
  pr: number;
  repo: string;
  remote: string;
  /** The PR's head branch, and the head SHA GitHub reports for it. */
  headRef: string;
  headSha: string;
  baseBranch: string;
  changelogFile: string;
  log: (line: string) => void;
}

export interface PreparedBranch {
  /** The commit to push. */
  sha: string;
  /** Its subject line. */
  subject: string;
  mergeCommit: boolean;
  canonicalized: boolean;
  /** What was checked out before (a branch name, or a SHA when detached). */
  restore: string;
}

function mergeInProgress(top: string): boolean {
  return git(top, ['rev-parse', '-q', '--verify', 'MERGE_HEAD']).status === 0;
}

/** Aborts a merge in progress and checks out what was there before; problems are logged, not thrown. */
export function restoreCheckout(top: string, restore: string, log: (line: string) => void): void {
  if (mergeInProgress(top)) {
    const a = git(top, ['merge', '--abort']);
    if (a.status !== 0) log(`could not abort the merge: ${a.stderr}`);
  }
  const c = git(top, ['checkout', '-q', restore]);
  if (c.status !== 0) log(`could not check out ${restore} again: ${c.stderr}`);
}

function currentCheckout(top: string): string {
  const r = git(top, ['symbolic-ref', '-q', '--short', 'HEAD']);
  return r.status === 0 ? r.stdout.toString('utf8').trim() : run(top, ['rev-parse', 'HEAD']);
}

/** Fetches the PR head and main, merges main, resolves and canonicalizes the changelog, and commits. */
export function prepareBranch(req: BranchRequest): PreparedBranch {
  const { top, remote, headRef, baseBranch: base, pr } = req;
  for (const [flag, ref] of [
    ['the PR head branch', headRef],
    ['--base-branch', base],
  ] as const)
    if (!refOk(ref)) throw new BotError(`${flag} '${ref}' is not a branch name git can fetch`);
  const headTrack = `refs/remotes/${remote}/${headRef}`;
  const baseTrack = `refs/remotes/${remote}/${base}`;
  req.log(`fetching ${headRef} and ${base} from ${remote}`);
  run(top, [
    'fetch',
    '-q',
    '--no-tags',
    remote,
    `+refs/heads/${headRef}:${headTrack}`,
    `+refs/heads/${base}:${baseTrack}`,
  ]);
  const fetched = run(top, ['rev-parse', `${headTrack}^{commit}`]);
  if (fetched !== req.headSha)
    throw new BotError(
      `${remote}/${headRef} is at ${fetched} but GitHub says PR #${pr}'s head is ${req.headSha}`,
      'a push is landing on the PR branch: wait a moment and run again',
    );
  const restore = currentCheckout(top);
  run(top, ['checkout', '-q', '--detach', fetched]);
  try {
    return { ...mergeAndCommit(req, fetched, baseTrack), restore };
  } catch (err) {
    restoreCheckout(top, restore, req.log);
    throw err;
  }
}

function mergeAndCommit(req: BranchRequest, fetched: string, baseTrack: string) {
  const { top, remote, headRef, baseBranch: base, changelogFile: file, pr } = req;
  req.log(`merging ${remote}/${base} into ${headRef} (--no-ff)`);
  const m = git(top, [
    'merge',
    '-q',
    '--no-ff',
    '--no-edit',
    '-m',
    `Merge ${remote}/${base} into ${headRef}`,
    baseTrack,
  ]);
  if (m.status !== 0) {
    if (!mergeInProgress(top)) throw new BotError(`git merge ${remote}/${base} failed: ${m.stderr}`);
    const conflicts = run(top, ['diff', '--name-only', '--diff-filter=U', '-z']).split('\0').filter(Boolean);
    const others = conflicts.filter((p) => p !== file);
    if (others.length > 0 || conflicts.length === 0) {
      git(top, ['merge', '--abort']);
      throw new BotError(
        `Unexpected conflict(s) in: ${(others.length > 0 ? others : ['(none listed)']).join(', ')} — only ${file} is auto-resolved`,
        `merge ${remote}/${base} into ${headRef} by hand, push, then run merge-with-reuse again`,
      );
    }
    req.log(`${file} conflicts: resolving it (main's bytes, then PR #${pr}'s entries)`);
    try {
      resolveWorkTree({ cwd: top, changelogFile: file, pr, repo: req.repo });
    } catch (err) {
      if (!(err instanceof ChangelogError)) throw err;
      git(top, ['merge', '--abort']);
      throw new BotError(
        `Could not safely resolve ${file}`,
        `${err.message}; merge ${remote}/${base} into ${headRef} by hand, push, then run again`,
      );
    }
    run(top, ['commit', '-q', '--no-edit']);
  }
  const mergeCommit = run(top, ['rev-parse', 'HEAD']) !== fetched;
  let canonicalized = false;
  try {
    canonicalized = canonicalizeWorkTree({
      cwd: top,
      changelogFile: file,
      pr,
      repo: req.repo,
      baseRef: baseTrack,
    }).changed;
  } catch (err) {
    if (!(err instanceof ChangelogError)) throw err;
    throw new BotError(`cannot canonicalize ${file} against ${remote}/${base}: ${err.message}`);
  }
  if (canonicalized) {
    req.log(`${file}: PR #${pr}'s placeholder link made canonical`);
    run(top, ['add', '--', file]);
    if (mergeCommit) run(top, ['commit', '-q', '--amend', '--no-edit']);
    else run(top, ['commit', '-q', '-m', `fix: canonicalize PR #${pr} changelog link [skip-sweep]`]);
  }
  if (run(top, ['rev-parse', 'HEAD']) === fetched) {
    req.log(`nothing to merge or canonicalize: an empty commit, so the reuse gate sees a synchronize event`);
    run(top, [
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      `chore: refresh PR #${pr} for sweep reuse [skip-sweep]`,
    ]);
  }
  return {
    sha: run(top, ['rev-parse', 'HEAD']),
    subject: run(top, ['log', '-1', '--format=%s']),
    mergeCommit,
    canonicalized,
  };
}

/** Pushes the prepared commit to the PR branch (never forced: a moved branch is refused by the remote). */
export function pushBranch(top: string, remote: string, headRef: string, sha: string): void {
  run(top, ['push', '-q', remote, `${sha}:refs/heads/${headRef}`]);
}
