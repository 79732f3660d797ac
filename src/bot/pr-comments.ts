import type { Octokit } from '@octokit/rest';

/**
 * The bot's own comments on a pull request, found again by a hidden marker (`<!-- infx-… -->`) so that what
 * must be said once (the welcome, a run's result links, one verdict per commit) is said once, whatever the
 * bot remembers: a restart, a redelivered event and two bots racing all read the thread first.
 */

export interface Repo {
  owner: string;
  repo: string;
}

export function repoOf(fullName: string): Repo {
  const [owner, repo] = fullName.split('/') as [string, string];
  return { owner, repo };
}

/** The most comments read from one thread (100 a page). */
const MAX_PAGES = 30;

export async function commentsWith(
  gh: Octokit,
  r: Repo,
  issue: number,
  marker: string,
): Promise<{ id: number; body: string }[]> {
  const out: { id: number; body: string }[] = [];
  let pages = 0;
  for await (const page of gh.paginate.iterator(gh.rest.issues.listComments, {
    ...r,
    issue_number: issue,
    per_page: 100,
  })) {
    for (const c of page.data) if (c.body?.includes(marker)) out.push({ id: c.id, body: c.body });
    if (++pages >= MAX_PAGES) break;
  }
  return out;
}

/** Posts `body` unless a comment with `marker` is there; true when it posted. */
export async function commentOnce(
  gh: Octokit,
  r: Repo,
  issue: number,
  marker: string,
  body: string,
): Promise<boolean> {
  if ((await commentsWith(gh, r, issue, marker)).length > 0) return false;
  await gh.rest.issues.createComment({ ...r, issue_number: issue, body });
  return true;
}

/** The comment with `marker` edited to `body` (the newest, when several), else a new one. */
export async function upsertComment(
  gh: Octokit,
  r: Repo,
  issue: number,
  marker: string,
  body: string,
): Promise<void> {
  const found = await commentsWith(gh, r, issue, marker);
  const last = found[found.length - 1];
  if (last === undefined) await gh.rest.issues.createComment({ ...r, issue_number: issue, body });
  else if (last.body !== body) await gh.rest.issues.updateComment({ ...r, comment_id: last.id, body });
}

export const reply = (gh: Octokit, r: Repo, issue: number, body: string) =>
  gh.rest.issues.createComment({ ...r, issue_number: issue, body });
