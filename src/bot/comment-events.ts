import type { Octokit } from '@octokit/rest';
import { REUSE_LABEL_RULES } from '../matrix/labels.ts';
import { TRIGGER_PHRASE } from '../review/signoff.ts';
import { InfxError } from '../schema/errors.ts';
import type { IssueCommentEvent } from '../schema/github-webhooks.ts';
import type { ReuseVerdict } from '../schema/store.ts';
import { checkReuse, stageRun } from '../store/change-control.ts';
import { openStore, type Store } from '../store/db.ts';
import { runsOfPr } from '../store/queries.ts';
import { type BotConfig, link, type PrRef, prCommitShas, runRef } from './bot-context.ts';
import { BotError } from './errors.ts';
import { reply, repoOf } from './pr-comments.ts';
import { verifySignoffComment } from './signoff-events.ts';
import { COMMAND_ASSOCIATIONS, parseComment, type SlashCommand } from './slash-commands.ts';

/**
 * An issue_comment delivery on a pull request: a slash command from an owner, member or collaborator is
 * carried out and answered (anyone else is thanked and told who may give it, and nothing else happens); a
 * CODEOWNER's sign-off is verified.
 */

const NAME = { stage: '/stage-results', reuse: '/reuse-sweep-run' } as const;
const OWN_MARKER = /<!-- (infx-[\w-]+|codeowner-signoff-verify)[ >]/;

async function withStore<T>(cfg: BotConfig, fn: (s: Store) => Promise<T>): Promise<T> {
  let store: Store;
  try {
    store = await openStore(cfg.db as string);
  } catch (err) {
    // Never into a public thread: the reason can name the server, its path or its credentials.
    cfg.log(`results database: ${(err as Error).message}`);
    throw new BotError('the bot could not open its results database (its log says why), so nothing was done');
  }
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function reuseReply(cfg: BotConfig, who: string, v: ReuseVerdict, spelled: string): string {
  if (v.reusable && v.runId !== null)
    return `@${who} ${runRef(cfg, v.runId)} can stand in for this PR's merge sweep: ${v.reason}. At merge, \`infx reuse apply ${v.runId} --pr ${v.pr}\` makes it the official results.`;
  const failed = v.checks.filter((c) => !c.ok).map((c) => `- \`${c.check}\`: ${c.message}`);
  return [
    `@${who} ${v.runId === null ? 'no stored run of this PR' : runRef(cfg, v.runId)} cannot stand in for the merge sweep: ${v.reason}`,
    ...(failed.length > 0 ? ['', ...failed] : []),
    '',
    `(${spelled}: ${v.considered} stored run${v.considered === 1 ? '' : 's'} looked at, ${v.commits} PR commit${v.commits === 1 ? '' : 's'}.)`,
  ].join('\n');
}

async function stage(
  gh: Octokit,
  cfg: BotConfig,
  pr: PrRef,
  who: string,
  run: string | null,
): Promise<string> {
  const labels = (
    await gh.rest.issues.listLabelsOnIssue({
      owner: pr.owner,
      repo: pr.repo,
      issue_number: pr.number,
      per_page: 100,
    })
  ).data.map((l) => l.name);
  if (!labels.some((l) => REUSE_LABEL_RULES.fullSweep.includes(l)))
    return `@${who} \`/stage-results\` needs a completed run of a PR labelled with one of ${REUSE_LABEL_RULES.fullSweep.map((l) => `\`${l}\``).join(', ')}; this PR has none, so nothing was staged.`;
  const commits = await prCommitShas(gh, pr);
  const req = {
    pr: { pr: pr.number, commits, labels: REUSE_LABEL_RULES },
    actor: who,
    reason: `/stage-results on PR #${pr.number}`,
  };
  return withStore(cfg, async (store) => {
    // Unpinned: only runs on a commit the PR still has (§6 rule 2; a pinned id may also be the PR's own).
    const candidates =
      run === null
        ? (await runsOfPr(store, pr.number))
            .filter((r) => commits.has(r.provenance?.headSha?.toLowerCase() ?? ''))
            .map((r) => r.runId)
        : [run];
    let newest = '';
    for (const id of candidates) {
      try {
        const change = await stageRun(store, id, req);
        const view = link(cfg, `/?status=staged&run=${encodeURIComponent(id)}`);
        return `@${who} staged ${runRef(cfg, change.runId)}${view ? `: [the staging view](${view})` : ''}. Staged runs stay staged across later \`/stage-results\`; staging the same run again updates it.`;
      } catch (err) {
        // Unpinned: the newest run that can be staged is staged.
        if (run !== null || !(err instanceof InfxError)) throw err;
        newest ||= err.message;
      }
    }
    return `@${who} no stageable stored run was found for PR #${pr.number}${newest ? ` (the newest: ${newest})` : ''}.`;
  });
}

async function carryOut(
  gh: Octokit,
  cfg: BotConfig,
  pr: PrRef,
  who: string,
  cmd: SlashCommand,
): Promise<string> {
  if (cfg.db === null)
    return `@${who} this bot runs without a results database (\`infx bot serve --db\`), so it cannot look runs up; nothing was done.`;
  try {
    if (cmd.kind === 'stage') return await stage(gh, cfg, pr, who, cmd.run);
    const commits = await prCommitShas(gh, pr);
    const verdict = await withStore(cfg, (store) =>
      checkReuse(store, cmd.run, { pr: pr.number, commits, labels: REUSE_LABEL_RULES }),
    );
    return reuseReply(cfg, who, verdict, cmd.spelled);
  } catch (err) {
    // A refusal from the store (unknown run, not stageable) is the answer, not a bot failure.
    if (err instanceof InfxError) return `@${who} ${err.message}`;
    throw err;
  }
}

export async function onIssueComment(gh: Octokit, cfg: BotConfig, ev: IssueCommentEvent): Promise<void> {
  if (ev.issue.pull_request === undefined) return;
  const pr: PrRef = { ...repoOf(ev.repository.full_name), number: ev.issue.number };
  const c = ev.comment;
  // The bot's own comments (its markers; with a token it comments as a user) quote the phrase and commands.
  const fromBot = (c.user as { type?: string }).type === 'Bot' || OWN_MARKER.test(c.body);
  if ((ev.action === 'created' || ev.action === 'edited') && !fromBot && c.body.includes(TRIGGER_PHRASE))
    await verifySignoffComment(gh, cfg, pr, { body: c.body, author: c.user.login });
  if (ev.action !== 'created' || fromBot) return;
  const parsed = parseComment(c.body);
  if (parsed.kind === 'none') return;
  const who = c.user.login;
  const name =
    parsed.kind === 'usage'
      ? parsed.name
      : parsed.command.kind === 'reuse'
        ? parsed.command.spelled
        : NAME.stage;
  if (!COMMAND_ASSOCIATIONS.includes(c.author_association)) {
    await reply(
      gh,
      pr,
      pr.number,
      `@${who} thank you! \`${name}\` can be given only by the repository's owners, members and collaborators, so nothing was done; a maintainer can give it for you.`,
    );
    cfg.log(`#${pr.number}: ${name} from @${who} (${c.author_association}) refused`);
    return;
  }
  if (parsed.kind === 'usage') {
    await reply(gh, pr, pr.number, `@${who} ${parsed.message}`);
    return;
  }
  const answer = await carryOut(gh, cfg, pr, who, parsed.command);
  await reply(gh, pr, pr.number, answer);
  cfg.log(`#${pr.number}: ${name} from @${who} answered`);
}
