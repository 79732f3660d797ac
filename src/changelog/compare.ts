import { isDeepStrictEqual } from 'node:util';
import { ChangelogError } from './errors.ts';

/**
 * Base and head changelog entries compared as data (changelog-pr-spec §1.3–§1.4): history is immutable
 * but for pr-link corrections, appended entries come after it, and each new link follows the rules of
 * its context (a PR's, or main's).
 */

/** The repository whose pull requests the links name, unless a project says its own (`--repo`). */
export const DEFAULT_REPO = 'SemiAnalysisAI/InferenceX';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `https://github.com/<repo>/pull/<n>`, exactly (as the reference's gate compares it). */
export const canonicalLink = (repo = DEFAULT_REPO) =>
  new RegExp(`^https://github\\.com/${escapeRegex(repo)}/pull/\\d+$`);
export const CANONICAL_LINK = canonicalLink();
export function isPlaceholderLink(link: string, repo = DEFAULT_REPO): boolean {
  return link === 'XXX' || link === `https://github.com/${repo}/pull/XXX`;
}

type Entry = Record<string, unknown>;

export type PrContext = number | 'any' | null;

/** A missing or null link compares as the empty string. */
const linkText = (e: Entry): string =>
  e['pr-link'] === undefined || e['pr-link'] === null ? '' : String(e['pr-link']);

const withoutLink = (e: Entry): Entry => {
  const { 'pr-link': _, ...rest } = e;
  return rest;
};

/**
 * §1.3: the link a new entry may carry in PR `pr`'s context (null: main's; 'any': a PR whose number is not
 * known, as a review without --pr: a placeholder or a canonical link).
 */
export function checkNewLink(link: string, pr: PrContext, repo = DEFAULT_REPO): void {
  const canonical = canonicalLink(repo);
  if (pr === 'any') {
    if (!isPlaceholderLink(link, repo) && !canonical.test(link))
      throw new ChangelogError(
        `new PR entry must use a canonical PR link or an XXX placeholder; found '${link}'`,
      );
  } else if (pr !== null) {
    const expected = `https://github.com/${repo}/pull/${pr}`;
    if (link !== expected && !isPlaceholderLink(link, repo))
      throw new ChangelogError(`new PR entry must use '${expected}' or an XXX placeholder; found '${link}'`);
  } else if (!canonical.test(link)) {
    throw new ChangelogError(`new main-branch entry has invalid pr-link: '${link}'`);
  }
}

export interface Comparison {
  appended: Entry[];
  corrections: number;
}

export function compareEntries(
  base: readonly Entry[],
  head: readonly Entry[],
  pr: PrContext,
  repo = DEFAULT_REPO,
): Comparison {
  if (head.length < base.length) throw new ChangelogError('perf-changelog.yaml entries were deleted');
  let corrections = 0;
  base.forEach((b, k) => {
    const h = head[k] as Entry;
    if (isDeepStrictEqual(b, h)) return;
    const i = k + 1;
    if (!isDeepStrictEqual(withoutLink(b), withoutLink(h)))
      throw new ChangelogError(
        `entry ${i} changed; existing entries are immutable except for pr-link-only corrections`,
      );
    if (linkText(b) === linkText(h))
      throw new ChangelogError(`entry ${i} was reformatted without a semantic change`);
    if (!canonicalLink(repo).test(linkText(h)))
      throw new ChangelogError(`entry ${i} pr-link correction is not canonical: '${linkText(h)}'`);
    corrections++;
  });
  const appended = head.slice(base.length);
  if (corrections > 0 && appended.length > 0)
    throw new ChangelogError('do not mix historical pr-link corrections with new changelog entries');
  for (const e of appended) checkNewLink(linkText(e), pr, repo);
  return { appended, corrections };
}
