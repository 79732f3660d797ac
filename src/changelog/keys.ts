import { ChangelogError } from './errors.ts';

/**
 * Config keys named by a changelog entry (changelog-pr-spec §2.3): `*` matches any run of characters and
 * every other character is literal (unlike test-config's globs, `?` and `[` are not special here).
 * Matches come in master-config order; duplicates are dropped, first seen wins.
 */
export function resolveChangelogKeys(patterns: readonly string[], available: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const known = new Set(available);
  const add = (k: string) => {
    if (!seen.has(k)) {
      seen.add(k);
      out.push(k);
    }
  };
  for (const p of patterns) {
    if (p.includes('*')) {
      const re = new RegExp(
        `^${p
          .split('*')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
          .join('.*')}$`,
        's',
      );
      const matched = available.filter((k) => re.test(k));
      if (matched.length === 0)
        throw new ChangelogError(`No config keys matched the wildcard pattern '${p}' in master configs.`);
      matched.forEach(add);
    } else if (known.has(p)) add(p);
    else throw new ChangelogError(`Config key '${p}' not found in master configs.`);
  }
  return out;
}
