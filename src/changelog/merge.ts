import { canonicalJson } from '../matrix/json.ts';
import { validateRawChange } from './byte-rule.ts';
import { compareEntries, DEFAULT_REPO, isPlaceholderLink } from './compare.ts';
import { ChangelogError } from './errors.ts';
import { parseChangelog } from './parse-file.ts';
import { entrySpans, withLink } from './spans.ts';

/**
 * Merge-time changelog tooling (changelog-pr-spec §4): a PR's placeholder links made canonical after it
 * synced with main, and a three-way changelog conflict resolved so that main's bytes stay exactly as
 * they are and the PR's own contribution is appended after them. Every result is checked again with the
 * byte contract before it is returned.
 */

export { DEFAULT_REPO };

type Entry = Record<string, unknown>;

const linkOf = (e: Entry | undefined) => String(e?.['pr-link'] ?? '');
const prUrl = (repo: string, pr: number) => `https://github.com/${repo}/pull/${pr}`;

/** An entry's content without its link, as sorted-key JSON: two entries that say the same thing. */
function signature(e: Entry): string {
  const { 'pr-link': _, ...rest } = e;
  return canonicalJson(rest);
}

/** Parses, compares and checks the raw change of `head` against `base` (§1.4–§1.6), PR context. */
function checked(base: Buffer, head: Buffer, pr: number | null, file: string, repo: string) {
  const baseEntries = parseChangelog(base, `base ${file}`) as Entry[];
  const headEntries = parseChangelog(head, file) as Entry[];
  const { appended, corrections } = compareEntries(baseEntries, headEntries, pr, repo);
  validateRawChange(base, head, appended.length, corrections);
  return { baseEntries, headEntries, appended: appended as Entry[], corrections };
}

/** §4.2: the head with each appended entry's placeholder link rewritten to the PR's URL. */
export function canonicalize(
  base: Buffer,
  head: Buffer,
  pr: number,
  file: string,
  repo = DEFAULT_REPO,
): Buffer {
  const { baseEntries, headEntries, appended } = checked(base, head, pr, file, repo);
  if (appended.length === 0) return head;
  const text = head.toString('utf8');
  const spans = entrySpans(text, headEntries.length);
  const url = prUrl(repo, pr);
  let out = text.slice(0, (spans[baseEntries.length] as { start: number }).start);
  for (let i = baseEntries.length; i < headEntries.length; i++) {
    const span = spans[i] as { start: number; end: number };
    const block = text.slice(span.start, span.end);
    const link = linkOf(headEntries[i]);
    if (link === url) out += block;
    else if (isPlaceholderLink(link, repo)) out += withLink(block, url);
    else throw new ChangelogError(`appended entry ${i + 1} has unexpected pr-link '${link}'`);
  }
  const result = Buffer.from(out, 'utf8');
  checked(base, result, pr, file, repo);
  return result;
}

/** The 0-based indices of the entries whose only change base → head is the link. */
function correctedIndices(base: readonly Entry[], head: readonly Entry[]): number[] {
  const out: number[] = [];
  base.forEach((b, i) => {
    const h = head[i];
    if (h !== undefined && linkOf(b) !== linkOf(h) && signature(b) === signature(h)) out.push(i);
  });
  return out;
}

/**
 * §4.3: the changelog of a merge of main into the PR, from the merge base (`base`), the PR's side and
 * main's side: main's bytes, then the PR's entries main does not already hold (or main with the PR's
 * link corrections applied).
 */
export function resolveConflict(
  base: Buffer,
  prSide: Buffer,
  main: Buffer,
  pr: number,
  file: string,
  repo = DEFAULT_REPO,
): Buffer {
  const {
    baseEntries,
    headEntries: prEntries,
    appended,
    corrections,
  } = checked(base, prSide, pr, file, repo);
  const mainEntries = parseChangelog(main, `main ${file}`) as Entry[];
  const mainText = main.toString('utf8');
  let result: string;
  if (appended.length > 0) {
    const onMain = new Set(mainEntries.map(signature));
    const prText = prSide.toString('utf8');
    const spans = entrySpans(prText, prEntries.length);
    const blocks: string[] = [];
    for (let i = baseEntries.length; i < prEntries.length; i++) {
      if (onMain.has(signature(prEntries[i] as Entry))) continue;
      const span = spans[i] as { start: number; contentEnd: number };
      blocks.push(withLink(prText.slice(span.start, span.contentEnd), prUrl(repo, pr)));
    }
    if (blocks.length === 0)
      throw new ChangelogError('the PR has no changelog contribution remaining after merging main');
    result = `${mainText}${mainText.endsWith('\n\n') ? '' : '\n'}${blocks.join('\n')}`;
  } else if (corrections > 0) {
    const spans = entrySpans(mainText, mainEntries.length);
    const rewrites = new Map<number, string>();
    for (const i of correctedIndices(baseEntries, prEntries)) {
      const m = mainEntries[i];
      if (m === undefined) throw new ChangelogError(`main is missing corrected entry ${i + 1}`);
      if (signature(m) !== signature(baseEntries[i] as Entry))
        throw new ChangelogError(`main changed corrected entry ${i + 1}; resolve manually`);
      const wanted = linkOf(prEntries[i]);
      if (linkOf(m) === wanted) continue;
      if (linkOf(m) !== linkOf(baseEntries[i]))
        throw new ChangelogError(`main has a conflicting pr-link for entry ${i + 1}`);
      rewrites.set(i, wanted);
    }
    if (rewrites.size === 0)
      throw new ChangelogError("the PR's pr-link corrections are already present on main");
    result = '';
    let at = 0;
    for (const [i, link] of [...rewrites].sort((a, b) => a[0] - b[0])) {
      const span = spans[i] as { start: number; end: number };
      result += mainText.slice(at, span.start) + withLink(mainText.slice(span.start, span.end), link);
      at = span.end;
    }
    result += mainText.slice(at);
  } else throw new ChangelogError('the PR has no appended entry or pr-link correction to preserve');
  const out = Buffer.from(result, 'utf8');
  checked(main, out, pr, file, repo);
  return out;
}
