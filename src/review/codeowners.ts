import { ReviewError } from './errors.ts';

/**
 * A CODEOWNERS file as GitHub reads it: one rule a line (a pattern, then owners), comments and blank
 * lines skipped, and the last rule whose pattern matches a path decides its owners. Patterns follow
 * gitignore's: a leading or inner `/` anchors to the root, a trailing `/` means everything under that
 * folder, `*` stays within one path segment and `**` crosses them. One difference: `dir/*` owns only
 * what is directly in dir (GitHub's `docs/*` example). GitHub supports neither `!` negation, `[...]`
 * ranges nor escaping a leading `#` with a backslash, so those are refused rather than silently misread.
 */

export interface OwnerRule {
  pattern: string;
  owners: string[];
  line: number;
  regex: RegExp;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      out += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '\\' && i + 1 < glob.length)
      out += (glob[++i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

export function patternRegex(pattern: string): RegExp {
  const dirOnly = pattern.endsWith('/');
  let p = dirOnly ? pattern.slice(0, -1) : pattern;
  const anchored = p.startsWith('/') || p.includes('/');
  if (p.startsWith('/')) p = p.slice(1);
  const body = p === '' ? '.*' : globToRegex(p);
  // `dir/*` owns what is directly in dir, not deeper (GitHub's `docs/*` example), unlike gitignore's.
  const below = dirOnly ? '/.*' : p.endsWith('/*') ? '' : '(?:/.*)?';
  return new RegExp(`^${anchored ? '' : '(?:.*/)?'}${body}${below}$`);
}

export function parseCodeowners(text: string, file: string): OwnerRule[] {
  const rules: OwnerRule[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') return;
    const [pattern, ...owners] = line.split(/\s+/) as [string, ...string[]];
    if (pattern.startsWith('!') || /(^|[^\\])\[/.test(pattern) || pattern.startsWith('\\#'))
      throw new ReviewError(
        `${file}:${i + 1}: '${pattern}': GitHub's CODEOWNERS supports neither '!' negation, '[...]' ranges nor '\\#' escapes`,
        'write the paths out, one rule each (a path starting with # cannot be owned by a rule of its own)',
      );
    const bad = owners.find((o) => !/^(@[\w.-]+(\/[\w.-]+)?|[^@\s]+@[^@\s]+\.[^@\s]+)$/.test(o));
    if (bad !== undefined)
      throw new ReviewError(`${file}:${i + 1}: '${bad}' is not an owner (@user, @org/team or an email)`);
    rules.push({ pattern, owners, line: i + 1, regex: patternRegex(pattern) });
  });
  return rules;
}

/** The rule that decides `path`'s owners (the last that matches), or null when none does. */
export function ruleFor(rules: readonly OwnerRule[], path: string): OwnerRule | null {
  const p = path.replace(/^\.?\//, '');
  for (let i = rules.length - 1; i >= 0; i--)
    if ((rules[i] as OwnerRule).regex.test(p)) return rules[i] as OwnerRule;
  return null;
}
