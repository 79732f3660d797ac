import { MatrixError } from './errors.ts';

/** Selecting config keys by name or shell-style glob (test-config `--config-keys`, matrix-spec §5.3). */

/** Python's fnmatch translation: `*`, `?`, `[seq]` and `[!seq]`; everything else literal; whole-string match. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', pattern[i + 1] === '!' ? i + 3 : i + 2);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, close);
      i = close;
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      body = body.replace(/\\/g, '\\\\').replace(/\^/g, '\\^');
      re += `[${negate ? '^' : ''}${body}]`;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
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
  const missing: string[] = [];
  for (const key of requested) {
    if (isGlob(key)) {
      const re = globToRegExp(key);
      const matched = available.filter((k) => re.test(k));
      if (matched.length === 0)
        throw new MatrixError(`Pattern '${key}' matched no config keys.\nAvailable keys: ${list()}`);
      matched.forEach(add);
    } else if (known.has(key)) add(key);
    else missing.push(key);
  }
  if (missing.length > 0)
    throw new MatrixError(`Config key(s) not found: ${missing.join(', ')}.\nAvailable keys: ${list()}`);
  return out;
}
