import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A pull request in real git for the merge-with-reuse tests: a bare repository standing in for GitHub's
 * remote, a PR branch with a changelog entry appended, a main that may have moved on since, and a fresh
 * work clone of it (the user's checkout, on main).
 */

export const PR = 42;
export const HEAD_REF = 'pr-branch';
export const FILE = 'perf-changelog.yaml';
export const link = (n: number) => `https://github.com/SemiAnalysisAI/InferenceX/pull/${n}`;
export const entry = (key: string, prLink: string) =>
  `- config-keys:\n    - ${key}\n  description:\n    - "Update ${key}"\n  pr-link: ${prLink}\n`;
export const BASE_LOG = entry('base-key', link(1));

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function identity(dir: string): void {
  git(dir, 'config', 'user.email', 'test@example.com');
  git(dir, 'config', 'user.name', 'test');
  git(dir, 'config', 'commit.gpgsign', 'false');
}

export interface PrRepoOptions {
  /** The PR's appended entry's link. */
  prLink: string;
  /** What main does after the PR branched: nothing, an entry appended, another file changed, or notes.txt changed (which the PR also changes). */
  main: 'none' | 'changelog' | 'other-file' | 'conflicting-notes';
  /** Extra commits on the PR branch (each changes pr-notes.txt), before its changelog commit. */
  extraCommits?: number;
}

export interface PrRepo {
  bare: string;
  work: string;
  /** The PR head before the flow, and main's tip. */
  head: string;
  main: string;
  /** main's changelog, after it moved on. */
  mainLog: string;
}

export function makePrRepo(root: string, opts: PrRepoOptions): PrRepo {
  const bare = join(root, 'remote.git');
  const seed = join(root, 'seed');
  const work = join(root, 'work');
  mkdirSync(seed);
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(seed, 'init', '-q', '-b', 'main');
  identity(seed);
  const write = (name: string, text: string) => writeFileSync(join(seed, name), text);
  const commit = (msg: string) => {
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', msg);
  };
  write(FILE, BASE_LOG);
  write('notes.txt', 'notes v1\n');
  write('other.txt', 'other v1\n');
  commit('base');
  git(seed, 'remote', 'add', 'origin', bare);
  git(seed, 'push', '-q', 'origin', 'main');

  git(seed, 'checkout', '-q', '-b', HEAD_REF);
  for (let i = 0; i < (opts.extraCommits ?? 0); i++) {
    write('pr-notes.txt', `pr notes ${i}\n`);
    commit(`pr work ${i}`);
  }
  write(FILE, `${BASE_LOG}\n${entry('pr-key', opts.prLink)}`);
  if (opts.main === 'conflicting-notes') write('notes.txt', 'notes from the PR\n');
  commit('pr: changelog entry');
  git(seed, 'push', '-q', 'origin', HEAD_REF);

  git(seed, 'checkout', '-q', 'main');
  let mainLog = BASE_LOG;
  if (opts.main === 'changelog') {
    mainLog = `${BASE_LOG}\n${entry('main-key', link(41))}`;
    write(FILE, mainLog);
    commit('main: another entry');
  } else if (opts.main === 'other-file') {
    write('other.txt', 'other v2\n');
    commit('main: other file');
  } else if (opts.main === 'conflicting-notes') {
    write('notes.txt', 'notes from main\n');
    commit('main: notes');
  }
  git(seed, 'push', '-q', 'origin', 'main');

  git(root, 'clone', '-q', bare, work);
  identity(work);
  return {
    bare,
    work,
    head: git(bare, 'rev-parse', `refs/heads/${HEAD_REF}`),
    main: git(bare, 'rev-parse', 'refs/heads/main'),
    mainLog,
  };
}
