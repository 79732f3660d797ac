import { DEFAULT_REPO } from '../changelog/merge.ts';
import { InfxError } from '../schema/errors.ts';
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

/**
 * A step that failed after the comment was posted: the authorization stays on the PR, and the reuse gate
 * reads only that (changelog-pr-spec §11.5), so the hint says what it means for the next push.
 */
function afterComment(err: unknown, n: number): unknown {
  if (!(err instanceof InfxError)) return err;
  const note =
    `${REUSE_COMMAND} is already posted on PR #${n}: a later push skips the PR sweep (the reuse gate reads only ` +
    'the comment); delete the comment if the PR should sweep again';
  return new BotError(err.message, err.hint === undefined ? note : `${err.hint}; ${note}`);
}

/** Steps 2–5 on the work tree: main merged in, the changelog resolved and canonicalized, one commit pushed. */
function prepareAndPush(
  req: MergeWithReuseRequest,
  top: string,
  repo: string,
  headRef: string,
  headSha: string,
): { sha: string; subject: string } {
  const { remote, log } = req;
  const prepared = prepareBranch({
    top,
    pr: req.pr,
    repo,
    remote,
    headRef,
    headSha,
    baseBranch: req.baseBranch,
    changelogFile: req.changelogFile,
    log,
  });
  try {
    log(`pushing ${prepared.sha.slice(0, 12)} (${prepared.subject}) to ${remote} ${headRef}`);
    pushBranch(top, remote, headRef, prepared.sha);
  } catch (err) {
    if (!(err instanceof BotError)) throw err;
    throw new BotError(
      err.message,
      `the prepared commit is ${prepared.sha}: push it yourself (git push ${remote} ${prepared.sha}:refs/heads/${headRef}) or run again`,
    );
  } finally {
    restoreCheckout(top, prepared.restore, log);
  }
  return prepared;
}

/** Steps 5–7 on GitHub: the head verified, check-changelog and then every check waited for, the squash merge. */
async function checkAndMerge(gh: GitHub, req: MergeWithReuseRequest, sha: string): Promise<string> {
  const { log } = req;
  await verifyHead(gh, req, sha);
  const wait: WaitOptions = {
    timeoutS: req.checkTimeoutS,
    pollIntervalS: req.pollIntervalS,
    log,
    ...(req.sleep === undefined ? {} : { sleep: req.sleep }),
  };
  log(`waiting for ${CHANGELOG_CHECK} on ${sha.slice(0, 12)}`);
  await waitForCheck(gh, sha, CHANGELOG_CHECK, wait);
  log(`${CHANGELOG_CHECK} passed; watching every check on ${sha.slice(0, 12)} (fail-fast)`);
  await watchChecks(gh, sha, wait);
  await verifyHead(gh, req, sha);
  log(`squash-merging PR #${req.pr}`);
  return (await gh.squashMerge(req.pr, sha)).sha;
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
  if (pr.base.ref !== req.baseBranch)
    throw new BotError(
      `PR #${n} merges into ${pr.base.ref}, not --base-branch ${req.baseBranch}`,
      `give --base-branch ${pr.base.ref}`,
    );
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

  log(`posting ${REUSE_COMMAND} on PR #${n} (a bare command: it un-pins any run pinned earlier)`);
  await gh.comment(n, REUSE_COMMAND);
  let pushed: { sha: string; subject: string };
  let mergeSha: string;
  try {
    pushed = prepareAndPush(req, top, repo, pr.head.ref, pr.head.sha);
    mergeSha = await checkAndMerge(gh, req, pushed.sha);
  } catch (err) {
    throw afterComment(err, n);
  }
  log(`PR #${n} merged as ${mergeSha}; main reuses run ${reusable.run.id}'s artifacts`);
  return {
    ...base,
    dryRun: false,
    plan: [],
    pushedSha: pushed.sha,
    pushedSubject: pushed.subject,
    mergeSha,
  };
}
