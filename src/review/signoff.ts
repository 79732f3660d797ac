import type { SignoffCheck, SignoffReport } from '../schema/signoff.ts';
import { type OwnerRule, ruleFor } from './codeowners.ts';

/**
 * A CODEOWNER's sign-off comment verified without a model (changelog-pr-spec §7): the trigger phrase,
 * the latest checklist (every item, in order, ticked or explained), the cited workflow runs, the
 * signature, and that the signer owns every changed path a specific CODEOWNERS rule covers (last match
 * wins; paths only the catch-all covers need any recognized owner; a team whose members are not known
 * is not held against the signer).
 */

export const TRIGGER_PHRASE = 'As a PR reviewer and CODEOWNER';
// An item: a bullet (`-`, `*`, `+`, or `•` as a rendered comment shows it), then a box or none.
const ITEM = /^\s*(?:[-*+]|•)\s+(?:\[( |x|X)\]\s+)?(.*\S)\s*$/;
// A cited run: an Actions run link, or the words the user threads' sign-offs use ("GitHub Actions run N").
const RUN_CITE = /\/actions\/runs\/(\d+)|GitHub Actions run #?(\d+)/gi;
// Where the items end: the "Additional detail section" heading, or the line as a rendered comment has it.
const DETAIL = /^\s*(?:#+\s*)?\**Additional detail section/i;
const PLACEHOLDER_DETAIL = /^-?\s*insert any additional info here\s*$/i;

interface Item {
  text: string;
  /** The box's state; null for an item with none (the template's own form decides what that means). */
  box: boolean | null;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

function items(lines: readonly string[]): Item[] {
  const out: Item[] = [];
  for (const l of lines) {
    if (DETAIL.test(l)) break;
    const m = ITEM.exec(l);
    if (m) out.push({ text: norm(m[2] as string), box: m[1] === undefined ? null : m[1] !== ' ' });
  }
  return out;
}

/**
 * A template item as a pattern: the words as written, a `<placeholder>` (`GitHub Actions run <id>`) filled
 * with anything, and any words after it (a run link, a note).
 */
function itemMatcher(template: string): RegExp {
  const parts = template.split(/<[^<>\s][^<>]*>/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('\\S.*?')}(?: .*)?$`);
}

/** The template's items with whether each has a box to tick. */
function templateItems(checklist: string): { text: string; boxed: boolean }[] {
  const lines = checklist.split(/\r?\n/);
  const start = lines.findIndex((l) => l.includes(TRIGGER_PHRASE));
  const from = Math.max(start, 0);
  let end = lines.findIndex((l, i) => i > from && /^```/.test(l));
  if (end < 0) end = lines.length;
  return items(lines.slice(from + (start < 0 ? 0 : 1), end)).map((i) => ({
    text: i.text,
    boxed: i.box !== null,
  }));
}

/** The template's items: those of the block holding the trigger phrase (the checklist's fenced template). */
export function checklistItems(checklist: string): string[] {
  return templateItems(checklist).map((i) => i.text);
}

export interface SignoffInput {
  comment: string;
  checklist: string;
  rules: readonly OwnerRule[];
  author: string;
  changedFiles: readonly string[];
  /** Team (`@org/team`) → member logins, where known. */
  teams?: ReadonlyMap<string, readonly string[]> | undefined;
  sha?: string | null | undefined;
}

const login = (s: string) => s.replace(/^@/, '').toLowerCase();

function ownsVia(
  owner: string,
  author: string,
  teams: ReadonlyMap<string, readonly string[]> | undefined,
): boolean | null {
  if (!owner.startsWith('@')) return false;
  if (!owner.includes('/')) return login(owner) === login(author);
  const members = teams?.get(owner) ?? teams?.get(owner.toLowerCase());
  return members === undefined ? null : members.some((m) => login(m) === login(author));
}

function ownershipCheck(input: SignoffInput): SignoffCheck {
  const { rules, author, teams } = input;
  const recognized = rules.some((r) => r.owners.some((o) => ownsVia(o, author, teams) !== false));
  const failures: string[] = [];
  const unknown: string[] = [];
  for (const path of input.changedFiles) {
    const rule = ruleFor(rules, path);
    const catchAll = rule === null || rule.pattern === '*' || rule.pattern === '/*' || rule.pattern === '**';
    if (catchAll) {
      if (!recognized) failures.push(`${path} (any CODEOWNER; @${login(author)} is none)`);
      continue;
    }
    const verdicts = rule.owners.map((o) => ownsVia(o, author, teams));
    if (verdicts.includes(true)) continue;
    if (verdicts.includes(null))
      unknown.push(`${path} (${rule.owners.filter((o) => o.includes('/')).join(', ')})`);
    else failures.push(`${path} (owned by ${rule.owners.join(' ')}, CODEOWNERS line ${rule.line})`);
  }
  if (failures.length > 0)
    return {
      id: 'codeowner',
      status: 'fail',
      message: `@${login(author)} does not own ${failures.join('; ')}`,
    };
  return {
    id: 'codeowner',
    status: 'pass',
    message:
      `@${login(author)} owns every changed path` +
      (unknown.length > 0
        ? `; team membership not known for ${unknown.join('; ')} (not held against the signer)`
        : ''),
  };
}

function checklistCheck(comment: string, checklist: string): SignoffCheck {
  const wanted = templateItems(checklist);
  const lines = comment.split(/\r?\n/);
  const start = lines.findIndex((l) => l.includes(TRIGGER_PHRASE));
  const got = items(lines.slice(start + 1));
  if (wanted.length === 0)
    return { id: 'checklist', status: 'fail', message: 'the checklist file holds no items' };
  const missing: string[] = [];
  const unchecked: string[] = [];
  let at = 0;
  const short = (w: string) => (w.length > 70 ? `${w.slice(0, 70)}…` : w);
  for (const { text: w, boxed } of wanted) {
    const fits = itemMatcher(w);
    const found = got.findIndex((g, i) => i >= at && fits.test(g.text));
    if (found < 0) {
      missing.push(short(w));
      continue;
    }
    at = found + 1;
    // A template without boxes (the user threads' form) is affirmed by the item; one with boxes, by a tick.
    const { box } = got[found] as Item;
    if (box === false || (box === null && boxed)) unchecked.push(short(w));
  }
  if (missing.length > 0)
    return {
      id: 'checklist',
      status: 'fail',
      message: `not the latest checklist: ${missing.length} of ${wanted.length} items missing or out of order (first: "${missing[0]}")`,
    };
  const detailAt = lines.findIndex((l) => DETAIL.test(l));
  const detail =
    detailAt < 0
      ? []
      : lines
          .slice(detailAt + 1)
          .filter((l) => l.trim() !== '' && !/^Signed:/i.test(l) && !PLACEHOLDER_DETAIL.test(l));
  if (unchecked.length > 0 && detail.length === 0)
    return {
      id: 'checklist',
      status: 'fail',
      message: `${unchecked.length} item(s) neither ticked nor explained in the additional detail section (first: "${unchecked[0]}")`,
    };
  return {
    id: 'checklist',
    status: 'pass',
    message: `all ${wanted.length} items present in order${unchecked.length > 0 ? `, ${unchecked.length} explained` : ', all ticked'}`,
  };
}

export function verifySignoff(input: SignoffInput): SignoffReport {
  const checks: SignoffCheck[] = [];
  const phrase = input.comment.includes(TRIGGER_PHRASE);
  checks.push({
    id: 'trigger',
    status: phrase ? 'pass' : 'fail',
    message: phrase ? 'the sign-off phrase is there' : `the comment lacks the phrase "${TRIGGER_PHRASE}"`,
  });
  checks.push(checklistCheck(input.comment, input.checklist));
  const runs = [...new Set([...input.comment.matchAll(RUN_CITE)].map((m) => (m[1] ?? m[2]) as string))];
  checks.push({
    id: 'runs',
    status: runs.length > 0 ? 'pass' : 'fail',
    message:
      runs.length > 0
        ? `cites run${runs.length > 1 ? 's' : ''} ${runs.join(', ')}`
        : 'no GitHub Actions run is linked (the validation and eval items ask for one)',
  });
  const signed = /^Signed:\s*`?@?([\w-]+)`?\s*$/im.exec(input.comment)?.[1];
  checks.push({
    id: 'signed',
    status: signed !== undefined && login(signed) === login(input.author) ? 'pass' : 'fail',
    message:
      signed === undefined
        ? 'no "Signed: <login>" line'
        : login(signed) === login(input.author)
          ? `signed by @${login(signed)}`
          : `signed "${signed}", but the comment's author is @${login(input.author)}`,
  });
  checks.push(ownershipCheck(input));
  const pass = checks.every((c) => c.status !== 'fail');
  return {
    schemaVersion: 1,
    sha: input.sha ?? null,
    author: login(input.author),
    pass,
    runIds: runs,
    checks,
  };
}

/** The verdict comment, in the reference's form: the marker, the heading, a line per check. */
export function formatVerdict(r: SignoffReport): string {
  const mark = { pass: '✅', fail: '❌', na: '➖' } as const;
  const head = r.pass ? '## ✅✅✅ **Verdict: PASS** ✅✅✅' : '## ❌❌❌ **REJECTED** ❌❌❌';
  const marker = r.sha === null ? '' : `<!-- codeowner-signoff-verify sha=${r.sha} -->\n`;
  const lines = r.checks.map((c) => `${mark[c.status]} ${c.id}: ${c.message}`);
  return `${marker}${head}\n\n${lines.join('\n')}\n${r.pass ? '' : `\n@${r.author} please fix the checks marked ❌ and sign off again.\n`}`;
}
