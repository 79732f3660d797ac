import type { Octokit } from '@octokit/rest';
import { type OwnerRule, parseCodeowners } from '../review/codeowners.ts';
import { formatVerdict, TRIGGER_PHRASE, verifySignoff } from '../review/signoff.ts';
import type { PullRequestReviewCommentEvent, PullRequestReviewEvent } from '../schema/github-webhooks.ts';
import { type BotConfig, fileOnBranch, type PrRef, prFiles } from './bot-context.ts';
import { repoOf, upsertComment } from './pr-comments.ts';

/**
 * A CODEOWNER's sign-off verified (changelog-pr-spec §7) wherever it is written — a conversation comment, a
 * review, an inline review comment — against the checklist and CODEOWNERS of the base branch (never the
 * PR's own copies, which the PR could edit) and the PR's changed files; the verdict is one comment per head
 * commit (edited, never duplicated) and the `codeowner-signoff-verify` commit status on that commit.
 */

export const SIGNOFF_CONTEXT = 'codeowner-signoff-verify';
export const signoffMarker = (sha: string) => `<!-- codeowner-signoff-verify sha=${sha} -->`;

/** The members of each team CODEOWNERS names, where the API lets the bot read them. */
async function teamMembers(gh: Octokit, rules: readonly OwnerRule[]): Promise<Map<string, string[]>> {
  const teams = new Set(rules.flatMap((r) => r.owners.filter((o) => /^@[\w.-]+\/[\w.-]+$/.test(o))));
  const out = new Map<string, string[]>();
  for (const team of teams) {
    const [org, slug] = team.slice(1).split('/') as [string, string];
    try {
      const members = await gh.paginate(gh.rest.teams.listMembersInOrg, {
        org,
        team_slug: slug,
        per_page: 100,
      });
      out.set(
        team,
        members.map((m) => m.login),
      );
    } catch {
      // Unreadable membership is not held against the signer (§7, check 0).
    }
  }
  return out;
}

async function status(
  gh: Octokit,
  pr: PrRef,
  sha: string,
  state: 'success' | 'failure',
  description: string,
) {
  await gh.rest.repos.createCommitStatus({
    owner: pr.owner,
    repo: pr.repo,
    sha,
    state,
    context: SIGNOFF_CONTEXT,
    description,
  });
}

export async function verifySignoffComment(
  gh: Octokit,
  cfg: BotConfig,
  pr: PrRef,
  sign: { body: string; author: string },
): Promise<void> {
  const p = (await gh.rest.pulls.get({ owner: pr.owner, repo: pr.repo, pull_number: pr.number })).data;
  if (p.state !== 'open' || p.draft) return;
  const sha = p.head.sha;
  const base = p.base.ref;
  const [checklist, codeowners] = await Promise.all([
    fileOnBranch(gh, pr, cfg.checklistPath, base),
    fileOnBranch(gh, pr, cfg.codeownersPath, base),
  ]);
  const missing = [
    checklist === null ? cfg.checklistPath : null,
    codeowners === null ? cfg.codeownersPath : null,
  ].filter((m) => m !== null);
  if (missing.length > 0) {
    await upsertComment(
      gh,
      pr,
      pr.number,
      signoffMarker(sha),
      `${signoffMarker(sha)}\n## ❌❌❌ **REJECTED** ❌❌❌\n\n❌ setup: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not on ${base}, so no sign-off can be verified; add ${missing.length === 1 ? 'it' : 'them'} to ${base}.\n`,
    );
    await status(
      gh,
      pr,
      sha,
      'failure',
      `Cannot verify: ${missing.join(', ')} missing on ${base}`.slice(0, 140),
    );
    return;
  }
  const rules = parseCodeowners(codeowners as string, cfg.codeownersPath);
  const report = verifySignoff({
    comment: sign.body,
    checklist: checklist as string,
    rules,
    author: sign.author,
    changedFiles: await prFiles(gh, pr),
    teams: await teamMembers(gh, rules),
    sha,
  });
  await upsertComment(gh, pr, pr.number, signoffMarker(sha), formatVerdict(report));
  await status(
    gh,
    pr,
    sha,
    report.pass ? 'success' : 'failure',
    report.pass
      ? 'CODEOWNER sign-off independently verified'
      : 'Sign-off verification rejected - see verdict comment',
  );
  cfg.log(
    `#${pr.number}: sign-off by @${sign.author} ${report.pass ? 'verified' : 'rejected'} on ${sha.slice(0, 12)}`,
  );
}

/** A review, or an inline review comment, that holds the sign-off phrase. */
export async function onReviewSignoff(
  gh: Octokit,
  cfg: BotConfig,
  ev:
    | { kind: 'review'; event: PullRequestReviewEvent }
    | { kind: 'review-comment'; event: PullRequestReviewCommentEvent },
): Promise<void> {
  const c = ev.kind === 'review' ? ev.event.review : ev.event.comment;
  const wanted = ev.kind === 'review' ? ['submitted', 'edited'] : ['created', 'edited'];
  if (!wanted.includes(ev.event.action) || !c.body.includes(TRIGGER_PHRASE)) return;
  if ((c.user as { type?: string }).type === 'Bot') return;
  const pr: PrRef = { ...repoOf(ev.event.repository.full_name), number: ev.event.pull_request.number };
  await verifySignoffComment(gh, cfg, pr, { body: c.body, author: c.user.login });
}
