import type { Octokit } from '@octokit/rest';
import type { PullRequestEvent, WebhookPullRequest } from '../schema/github-webhooks.ts';
import type { BotConfig, PrRef } from './bot-context.ts';
import { runChangelogCheck } from './changelog-check.ts';
import { LABEL_STATUS_CONTEXT, type Labeler, labelPolicy, MAINTAINER, sweepLabels } from './label-policy.ts';
import { commentOnce, repoOf } from './pr-comments.ts';
import { WELCOME_MARKER, welcomeComment } from './welcome.ts';

/**
 * A pull_request delivery: the welcome once, the sweep-label policy as a commit status on the head, and,
 * when the change touches the changelog, configs or recipes, the changelog gate and review as a check run.
 */

const WELCOME_ON = new Set(['opened', 'reopened', 'ready_for_review']);
const LABELS_ON = new Set([
  'opened',
  'reopened',
  'ready_for_review',
  'synchronize',
  'labeled',
  'unlabeled',
  'edited',
]);
const CHECK_ON = new Set(['opened', 'reopened', 'ready_for_review', 'synchronize']);

export const isFork = (pr: WebhookPullRequest) =>
  pr.head.repo === null || pr.head.repo.full_name.toLowerCase() !== pr.base.repo.full_name.toLowerCase();

/** Who applied each sweep label last (the issue's label events) and their permission: fork PRs only. */
async function labelers(gh: Octokit, pr: PrRef, labels: readonly string[]): Promise<Map<string, Labeler>> {
  const wanted = new Set(sweepLabels(labels));
  const last = new Map<string, string>();
  if (wanted.size === 0) return new Map();
  const events = await gh.paginate(gh.rest.issues.listEvents, {
    owner: pr.owner,
    repo: pr.repo,
    issue_number: pr.number,
    per_page: 100,
  });
  for (const e of events) {
    const name = (e as { label?: { name?: string } }).label?.name;
    if (e.event === 'labeled' && name !== undefined && wanted.has(name) && e.actor?.login)
      last.set(name, e.actor.login);
  }
  const out = new Map<string, Labeler>();
  const perms = new Map<string, string | null>();
  for (const [label, login] of last) {
    if (!perms.has(login)) {
      try {
        const res = await gh.rest.repos.getCollaboratorPermissionLevel({
          owner: pr.owner,
          repo: pr.repo,
          username: login,
        });
        perms.set(login, res.data.permission);
      } catch (err) {
        // Not a collaborator: GitHub answers 404 for a user with no access.
        if ((err as { status?: number }).status !== 404) throw err;
        perms.set(login, 'none');
      }
    }
    out.set(label, { login, permission: perms.get(login) ?? null });
  }
  return out;
}

/**
 * A fork PR's approval: a push withdraws it; a maintainer applying a sweep label gives it for the head.
 * The bot only knows of pushes it saw; a PR it has not seen move is judged by who applied its labels.
 */
function forkApproval(
  cfg: BotConfig,
  pr: PrRef,
  p: WebhookPullRequest,
  ev: { action: string; label?: string },
  who: Map<string, Labeler>,
) {
  const key = `${pr.owner}/${pr.repo}#${pr.number}`;
  const head = p.head.sha;
  const labeler = ev.label === undefined ? undefined : who.get(ev.label);
  if (ev.action === 'synchronize') cfg.approvals.set(key, { head, approved: false });
  else if (ev.action === 'labeled' && labeler && MAINTAINER.has(labeler.permission ?? ''))
    cfg.approvals.set(key, { head, approved: true });
  return cfg.approvals.get(key);
}

export async function postLabelStatus(
  gh: Octokit,
  cfg: BotConfig,
  pr: PrRef,
  p: WebhookPullRequest,
  ev: { action: string; label?: string } = { action: 'opened' },
): Promise<void> {
  const labels = p.labels.map((l) => l.name);
  const fork = isFork(p);
  const who = fork ? await labelers(gh, pr, labels) : new Map<string, Labeler>();
  const approval = fork && sweepLabels(labels).length > 0 ? forkApproval(cfg, pr, p, ev, who) : null;
  const verdict = labelPolicy({ labels, fork, labelers: who, head: p.head.sha, approval });
  await gh.rest.repos.createCommitStatus({
    owner: pr.owner,
    repo: pr.repo,
    sha: p.head.sha,
    state: verdict.state,
    context: LABEL_STATUS_CONTEXT,
    description: verdict.description,
  });
  cfg.log(`#${pr.number}: ${LABEL_STATUS_CONTEXT} ${verdict.state}: ${verdict.description}`);
}

export async function onPullRequest(gh: Octokit, cfg: BotConfig, ev: PullRequestEvent): Promise<void> {
  const pr: PrRef = { ...repoOf(ev.repository.full_name), number: ev.number };
  const p = ev.pull_request;
  if (p.state !== 'open') return;
  if (WELCOME_ON.has(ev.action) && (await commentOnce(gh, pr, pr.number, WELCOME_MARKER, welcomeComment())))
    cfg.log(`#${pr.number}: welcome posted`);
  if (LABELS_ON.has(ev.action))
    await postLabelStatus(gh, cfg, pr, p, {
      action: ev.action,
      ...(ev.label ? { label: ev.label.name } : {}),
    });
  if (CHECK_ON.has(ev.action))
    await runChangelogCheck(gh, cfg, pr, { headSha: p.head.sha, baseSha: p.base.sha });
}
