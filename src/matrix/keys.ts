import { didYouMean } from '../schema/suggest.ts';
import { MatrixError } from './errors.ts';

/** Selecting config keys by name or shell-style glob (test-config `--config-keys`, matrix-spec §5.3). */

type Token = { kind: 'star' } | { kind: 'one'; test: (c: string) => boolean };

/**
 * Python's fnmatch: `*`, `?`, `[seq]` and `[!seq]`; everything else literal; whole-string match. Compiled
 * to tokens and matched without a regular expression, in O(pattern × key) time: `.*a.*a.*a…` as a
 * backtracking regex takes exponential time on a long key.
 */
function compileGlob(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'one', test: () => true });
    else if (c === '[') {
      const close = pattern.indexOf(']', pattern[i + 1] === '!' ? i + 3 : i + 2);
      if (close < 0) {
        tokens.push({ kind: 'one', test: (x) => x === '[' });
        continue;
      }
      let body = pattern.slice(i + 1, close);
      i = close;
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      const ranges: Array<[string, string]> = [];
      for (let j = 0; j < body.length; j++) {
        if (body[j + 1] === '-' && j + 2 < body.length) {
          ranges.push([body[j]!, body[j + 2]!]);
          j += 2;
        } else ranges.push([body[j]!, body[j]!]);
      }
      const inSet = (x: string) => ranges.some(([lo, hi]) => lo <= x && x <= hi);
      tokens.push({ kind: 'one', test: negate ? (x) => !inSet(x) : inSet });
    } else tokens.push({ kind: 'one', test: (x) => x === c });
  }
  return tokens;
}

/** Whether `key` matches the glob `pattern` as a whole (fnmatch.fnmatchcase). */
export function globMatch(pattern: string, key: string): boolean {
  return matchTokens(compileGlob(pattern), key);
}

function matchTokens(tokens: readonly Token[], key: string): boolean {
  // Greedy with one backtrack point (the last star): every other token matches exactly one character.
  let t = 0;
  let k = 0;
  let star = -1;
  let starKey = 0;
  while (k < key.length) {
    const tok = tokens[t];
    if (tok?.kind === 'one' && tok.test(key[k]!)) {
      t++;
      k++;
    } else if (tok?.kind === 'star') {
      star = t++;
      starKey = k;
    } else if (star >= 0) {
      t = star + 1;
      k = ++starKey;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}

export const isGlob = (key: string) => key.includes('*') || key.includes('?');

export function expandConfigKeys(requested: readonly string[], available: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (k: string) => {
    if (!seen.has(k)) {
      seen.add(k);
      out.push(k);
    }
  };
  const known = new Set(available);
  const list = () => [...available].sort().join(', ');
  // After the reference's message (which tools match on), one line per name that has a close key.
  const near = (key: string) => {
    const hint = didYouMean(key, available);
    return hint ? `\n'${key}':${hint.slice(1)}` : '';
  };
  const missing: string[] = [];
  for (const key of requested) {
    if (isGlob(key)) {
      const tokens = compileGlob(key);
      const matched = available.filter((k) => matchTokens(tokens, k));
      if (matched.length === 0)
        throw new MatrixError(
          `Pattern '${key}' matched no config keys.\nAvailable keys: ${list()}${near(key)}`,
        );
      matched.forEach(add);
    } else if (known.has(key)) add(key);
    else missing.push(key);
  }
  if (missing.length > 0)
    throw new MatrixError(
      `Config key(s) not found: ${missing.join(', ')}.\nAvailable keys: ${list()}${missing.map(near).join('')}`,
    );
  return out;
}
