import type { Octokit } from '@octokit/rest';
import type { ForkApprovals } from './fork-approvals.ts';
import type { OctokitFactory } from './octokit.ts';
import type { Repo } from './pr-comments.ts';

/** What every handler of `infx bot serve` is given: its clients, its database, its clone and its words. */
export interface BotConfig {
  octokits: OctokitFactory;
  /** The results database (reuse checks, staging, result links); null: commands say there is none. */
  db: string | null;
  /** A clone the bot owns, where it checks out PR heads for the changelog check; null: no check. */
  repoDir: string | null;
  /** How the bot runs infx for the check (e.g. [node, bin/infx.js]); the CLI passes its own. */
  infx: readonly string[];
  /** The dashboard's public URL (links in comments); null: comments give run ids only. */
  dashboardUrl: string | null;
  changelogFile: string;
  /** The master configs and runner config the changelog check reads (as `infx review` takes them). */
  configFiles: readonly string[];
  runnerConfig: string;
  /** On the base branch: the review checklist and CODEOWNERS, read for sign-off verification. */
  checklistPath: string;
  codeownersPath: string;
  /** The git remote the clone fetches PR heads from. */
  remote: string;
  /** Which head of each fork PR a maintainer's sweep label approved. */
  approvals: ForkApprovals;
  log: (line: string) => void;
}

export interface PrRef extends Repo {
  number: number;
}

/** A pull request's commit SHAs, lower case (the reuse and staging checks look heads up in them). */
export async function prCommitShas(gh: Octokit, pr: PrRef): Promise<Set<string>> {
  const shas = await gh.paginate(gh.rest.pulls.listCommits, {
    owner: pr.owner,
    repo: pr.repo,
    pull_number: pr.number,
    per_page: 100,
  });
  return new Set(shas.map((c) => c.sha.toLowerCase()));
}

export async function prFiles(gh: Octokit, pr: PrRef): Promise<string[]> {
  const files = await gh.paginate(gh.rest.pulls.listFiles, {
    owner: pr.owner,
    repo: pr.repo,
    pull_number: pr.number,
    per_page: 100,
  });
  // A renamed file is changed at both paths.
  return [
    ...new Set(
      files.flatMap((f) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename])),
    ),
  ];
}

/** A file on a branch through the contents API, or null when it is not there. */
export async function fileOnBranch(gh: Octokit, r: Repo, path: string, ref: string): Promise<string | null> {
  try {
    const res = await gh.rest.repos.getContent({ ...r, path, ref });
    const data = res.data as { type?: string; content?: string; encoding?: string };
    if (data.type !== 'file' || typeof data.content !== 'string') return null;
    return Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}

export function link(cfg: BotConfig, path: string): string | null {
  return cfg.dashboardUrl === null ? null : `${cfg.dashboardUrl.replace(/\/+$/, '')}${path}`;
}

/** A run named in a comment: a link to its page where there is a dashboard. */
export function runRef(cfg: BotConfig, runId: string): string {
  const url = link(cfg, `/runs/${encodeURIComponent(runId)}`);
  return url === null ? `run \`${runId}\`` : `[run \`${runId}\`](${url})`;
}
