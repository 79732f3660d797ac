import type { Command } from 'commander';
import { ChangelogError } from '../changelog/errors.ts';
import { commitsBetween } from '../changelog/git.ts';
import { readInputText } from '../config/read.ts';
import { REUSE_LABEL_RULES } from '../matrix/labels.ts';
import type { LabelRules } from '../store/reuse.ts';
import { parseCommitList } from '../store/reuse.ts';
import { UsageError } from './errors.ts';

/** A pull request's commits and the sweep label rules, as `infx reuse` and `infx stage --pr` take them. */

export interface PrCommitFlags {
  commits?: string;
  baseRef?: string;
  headRef?: string;
}

export function prCommitOptions(cmd: Command): Command {
  return cmd
    .option(
      '--commits <file>',
      "the PR's commits: SHAs one per line, or the JSON of `gh pr view N --json commits` or of the REST API's PR commits",
    )
    .option(
      '--base-ref <rev>',
      "with --head-ref: the PR's commits are git rev-list BASE..HEAD in this work tree",
    )
    .option('--head-ref <rev>', 'the PR head (with --base-ref)');
}

export function prCommits(f: PrCommitFlags): Set<string> {
  if (f.commits !== undefined) {
    if (f.baseRef !== undefined || f.headRef !== undefined)
      throw new UsageError('give --commits or --base-ref with --head-ref, not both');
    const read = readInputText(f.commits, { what: 'commit list' });
    if ('diagnostic' in read) throw new ChangelogError(read.diagnostic.message);
    const parsed = parseCommitList(read.text);
    if ('problem' in parsed) throw new ChangelogError(`--commits ${f.commits}: ${parsed.problem}`);
    return new Set(parsed.commits);
  }
  if (f.baseRef === undefined || f.headRef === undefined)
    throw new UsageError(
      'say which commits the PR has: --commits FILE (e.g. gh pr view N --json commits > c.json), or --base-ref origin/main --head-ref <pr-branch>',
    );
  return new Set(commitsBetween(process.cwd(), f.baseRef, f.headRef));
}

/** The reference's label policy: full-sweep labels may be reused; evals-only and agentx-fast may not. */
export const LABEL_RULES: LabelRules = REUSE_LABEL_RULES;
