import { DEFAULT_REPO } from '../changelog/merge.ts';
import { type WaitOptions, waitForCheck, watchChecks } from './checks.ts';
import { BotError } from './errors.ts';
import {
  githubRepoOfUrl,
  prepareBranch,
  pushBranch,
  remoteUrl,
  restoreCheckout,
  workTreeChanges,
  workTreeTop,
} from './git-branch.ts';
import { GitHub } from './github.ts';
import { checkPullRequest } from './preconditions.ts';

/**
 * `infx changelog merge-with-reuse --pr N`: the reference's merge_with_reuse.sh (changelog-pr-spec §4.4)
 * as one command. Every precondition first, in the spec's order (a clean work tree, then GitHub's view of
 * the PR); then a bare `/reuse-sweep-run` comment, main merged into the PR branch with the changelog
 * resolved and canonicalized, one commit pushed, the check-changelog check and all checks waited for, the
 * head verified again, and a squash merge. `dryRun` stops after the preconditions with the plan.
 */

export const REUSE_COMMAND = '/reuse-sweep-run';
export const CHANGELOG_CHECK = 'check-changelog';

export interface MergeWithReuseRequest {
  cwd: string;
  pr: number;
  /** owner/name; by default the remote's GitHub URL, else SemiAnalysisAI/InferenceX. */
  repo?: string | undefined;
  remote: string;
  baseBranch: string;
  changelogFile: string;
  checkTimeoutS: number;
  pollIntervalS: number;
  apiUrl?: string | undefined;
  dryRun: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  /** One progress line (stderr in the CLI). */
  log: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

export interface MergeWithReuseOutcome {
  dryRun: boolean;
  repo: string;
  /** The run whose artifacts main will reuse. */
  reuseRunId: number;
  /** The dry run's steps, one a line. */
  plan: string[];
  /** The commit pushed to the PR branch and the squash merge's commit (null in a dry run). */
  pushedSha: string | null;
  pushedSubject: string | null;
  mergeSha: string | null;
}

/** Verifies GitHub's head of the PR is `expected`, asking a few times while GitHub catches up with a push. */
async function verifyHead(gh: GitHub, req: MergeWithReuseRequest, expected: string): Promise<void> {
  const sleep = req.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let head = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    head = (await gh.pull(req.pr)).head.sha;
    if (head === expected) return;
    await sleep(req.pollIntervalS * 1000);
  }
  throw new BotError(
    `PR head changed to ${head}; expected ${expected}`,
    'someone pushed to the PR branch meanwhile: run merge-with-reuse again',
  );
}

export async function mergeWithReuse(req: MergeWithReuseRequest): Promise<MergeWithReuseOutcome> {
  const { pr: n, remote, log } = req;
  const top = workTreeTop(req.cwd);
  const changes = workTreeChanges(top);
  if (changes.length > 0)
    throw new BotError(
      `the work tree is not clean (${changes.length} changed or untracked path(s): ${changes
        .slice(0, 5)
        .map((l) => l.trim())
        .join(', ')}${changes.length > 5 ? ', …' : ''})`,
      'commit or stash the changes (git stash -u), then run again',
    );
  const url = remoteUrl(top, remote);
  const repo = req.repo ?? githubRepoOfUrl(url) ?? DEFAULT_REPO;
  const gh = new GitHub(repo, { apiUrl: req.apiUrl, ...(req.env === undefined ? {} : { env: req.env }) });
  log(`checking PR #${n} of ${repo}`);
  const facts = await checkPullRequest(gh, n);
  const { pr, reusable } = facts;
  log(
    `PR #${n}: open, label ${facts.label}, reusable run ${reusable.run.id} on ${reusable.run.head_sha.slice(0, 12)} (${reusable.artifacts.join(', ')})`,
  );
  const base = {
    repo,
    reuseRunId: reusable.run.id,
    pushedSha: null,
    pushedSubject: null,
    mergeSha: null,
  };
  if (req.dryRun) {
    const plan = [
      `post '${REUSE_COMMAND}' on PR #${n} of ${repo}`,
      `fetch ${pr.head.ref} (${pr.head.sha.slice(0, 12)}) and ${req.baseBranch} from ${remote}; merge ${remote}/${req.baseBranch} --no-ff (only ${req.changelogFile} conflicts are resolved)`,
      `canonicalize PR #${n}'s ${req.changelogFile} links against ${remote}/${req.baseBranch}; an empty refresh commit if nothing changed`,
      `push to ${remote} ${pr.head.ref}; wait for ${CHANGELOG_CHECK} (timeout ${req.checkTimeoutS} s), then every check (fail-fast)`,
      `squash-merge PR #${n}; main reuses run ${reusable.run.id}'s artifacts`,
    ];
    return { ...base, dryRun: true, plan };
  }

  log(`posting ${REUSE_COMMAND} on PR #${n}`);
  await gh.comment(n, REUSE_COMMAND);
  const prepared = prepareBranch({
    top,
    pr: n,
    repo,
    remote,
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    baseBranch: req.baseBranch,
    changelogFile: req.changelogFile,
    log,
  });
  try {
    log(`pushing ${prepared.sha.slice(0, 12)} (${prepared.subject}) to ${remote} ${pr.head.ref}`);
    pushBranch(top, remote, pr.head.ref, prepared.sha);
  } finally {
    restoreCheckout(top, prepared.restore, log);
  }
  await verifyHead(gh, req, prepared.sha);
  const wait: WaitOptions = {
    timeoutS: req.checkTimeoutS,
    pollIntervalS: req.pollIntervalS,
    log,
    ...(req.sleep === undefined ? {} : { sleep: req.sleep }),
  };
  log(`waiting for ${CHANGELOG_CHECK} on ${prepared.sha.slice(0, 12)}`);
  await waitForCheck(gh, prepared.sha, CHANGELOG_CHECK, wait);
  log(`${CHANGELOG_CHECK} passed; watching every check on ${prepared.sha.slice(0, 12)} (fail-fast)`);
  await watchChecks(gh, prepared.sha, wait);
  await verifyHead(gh, req, prepared.sha);
  log(`squash-merging PR #${n}`);
  const merged = await gh.squashMerge(n, prepared.sha);
  log(`PR #${n} merged as ${merged.sha}; main reuses run ${reusable.run.id}'s artifacts`);
  return {
    ...base,
    dryRun: false,
    plan: [],
    pushedSha: prepared.sha,
    pushedSubject: prepared.subject,
    mergeSha: merged.sha,
  };
}
