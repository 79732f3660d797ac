import { describe, expect, it } from 'vitest';
import { checkByteGate } from './byte-gate.ts';
import { validateRawChange } from './byte-rule.ts';
import { compareEntries } from './compare.ts';
import type { ChangelogError } from './errors.ts';
import { parseChangelog } from './parse-file.ts';

/** changelog-pr-spec §10 cases 1–15: parsing, comparison and the raw byte contract. */

const C = (n: number) => `https://github.com/SemiAnalysisAI/InferenceX/pull/${n}`;
const blk = (k: string, link: string, desc = `Update ${k}`) =>
  `- config-keys:\n    - ${k}\n  description:\n    - "${desc}"\n  pr-link: ${link}\n`;
const B = (s: string) => Buffer.from(s, 'utf8');
const parse = (s: string) => parseChangelog(B(s), 'perf-changelog.yaml');
const e = (k: string, link: string, desc?: string) => parse(blk(k, link, desc))[0] as Record<string, unknown>;
const raw =
  (base: string, head: string, adds: number, fixes = 0) =>
  () =>
    validateRawChange(B(base), B(head), adds, fixes);

describe('parse (§1.6)', () => {
  it('returns the entries (case 1) and refuses each malformed file in order (cases 2–4)', () => {
    expect(parse(blk('a', C(1)))).toEqual([
      { 'config-keys': ['a'], description: ['Update a'], 'pr-link': C(1) },
    ]);
    expect(() => parse(blk('a', C(1)).slice(0, -1))).toThrow(
      'perf-changelog.yaml does not end with a newline',
    );
    const nested = `${blk('a', C(1))}  - config-keys:\n      - b\n`;
    expect(() => parse(nested)).toThrow('not valid YAML');
    const twice = blk('a', C(1)).replace('  pr-link:', '  description:\n    - "again"\n  pr-link:');
    expect(() => parse(twice)).toThrow('duplicate key');
  });

  it('names the byte and the line: CR, tab, NUL, UTF-8, root, entry count, schema', () => {
    const at = (s: string) => {
      try {
        parse(s);
      } catch (err) {
        return [(err as ChangelogError).message, (err as ChangelogError).line];
      }
      return null;
    };
    expect(at(`${blk('a', C(1))}\r\n`)).toEqual(['perf-changelog.yaml contains CR characters', 6]);
    expect(at(blk('a', C(1)).replace('    - a', '\t- a'))).toEqual(['perf-changelog.yaml contains tabs', 2]);
    expect(at(`${blk('a', C(1))}\0\n`)?.[0]).toBe('perf-changelog.yaml contains NUL bytes');
    expect(String(parseOrMessage(Buffer.concat([B(blk('a', C(1))), Buffer.from([0xff, 0x0a])])))).toContain(
      'is not UTF-8',
    );
    expect(at('a: 1\n')?.[0]).toBe('perf-changelog.yaml root must be a YAML list');
    expect(at(`- description: ["x"]\n  config-keys: [a]\n  pr-link: X\n`)?.[0]).toBe(
      'perf-changelog.yaml has 0 top-level config entries but YAML parsed 1 entries',
    );
    expect(at(blk('a', C(1)).replace('  pr-link', '  colour: red\n  pr-link'))).toEqual([
      expect.stringContaining('perf-changelog.yaml entry 1 fails ChangelogEntry validation'),
      1,
    ]);
  });
});

function parseOrMessage(b: Buffer): string {
  try {
    parseChangelog(b, 'perf-changelog.yaml');
    return 'parsed';
  } catch (err) {
    return (err as Error).message;
  }
}

describe('compare (§1.3–§1.4)', () => {
  const a1 = e('a', C(1));
  it('cases 5–11', () => {
    expect(compareEntries([a1], [a1, e('b', 'XXX')], 42)).toEqual({
      appended: [e('b', 'XXX')],
      corrections: 0,
    });
    expect(() => compareEntries([a1], [a1, e('b', C(41))], 42)).toThrow(
      `new PR entry must use '${C(42)}' or an XXX placeholder; found '${C(41)}'`,
    );
    expect(() => compareEntries([a1], [a1, e('b', 'XXX')], null)).toThrow(
      "new main-branch entry has invalid pr-link: 'XXX'",
    );
    expect(compareEntries([e('a', 'XXX')], [e('a', C(42))], 99)).toEqual({ appended: [], corrections: 1 });
    expect(() => compareEntries([a1], [e('a', C(1), 'other')], null)).toThrow(
      'entry 1 changed; existing entries are immutable except for pr-link-only corrections',
    );
    expect(() => compareEntries([a1], [], null)).toThrow('perf-changelog.yaml entries were deleted');
    expect(() => compareEntries([e('a', 'XXX')], [e('a', C(42)), e('b', 'XXX')], 42)).toThrow(
      'do not mix historical pr-link corrections with new changelog entries',
    );
  });

  it('placeholders are exact and case-sensitive; a correction must be canonical', () => {
    expect(() => compareEntries([a1], [a1, e('b', 'xxx')], 42)).toThrow('new PR entry must use');
    expect(compareEntries([a1], [a1, e('b', `${C(0).slice(0, -1)}XXX`)], 42).appended).toHaveLength(1);
    expect(() => compareEntries([e('a', 'XXX')], [e('a', 'https://example.com/1')], null)).toThrow(
      "entry 1 pr-link correction is not canonical: 'https://example.com/1'",
    );
    expect(() => compareEntries([{ ...a1, 'pr-link': 7 }], [{ ...a1, 'pr-link': '7' }], null)).toThrow(
      'entry 1 was reformatted without a semantic change',
    );
  });
});

describe('the raw byte contract (§1.5)', () => {
  const base = blk('a', C(1));
  it('cases 12–14: appended entries', () => {
    expect(raw(base, `${base}\n${blk('b', 'XXX')}`, 1)).not.toThrow();
    expect(raw(base, `${base.replace('"Update a"', '"Update a" ')}\n${blk('b', 'XXX')}`, 1)).toThrow(
      'historical',
    );
    expect(raw(base, `${base}\n${blk('b', 'XXX')}\n\n${blk('c', 'XXX')}`, 2)).toThrow(
      'appended changelog entries must have exactly one empty separator line',
    );
    expect(raw(base, `${base}\n${blk('b', 'XXX')}\n`, 1)).toThrow(
      'the final appended changelog entry must end with one newline',
    );
    expect(raw(base, `${base}${blk('b', 'XXX')}`, 1)).toThrow(
      'new changelog entries must be separated from history by one empty line and appended at the end',
    );
    expect(raw(`${base}\n`, `${base}\n${blk('b', 'XXX')}`, 1)).not.toThrow();
    expect(raw(`${base}\n`, `${base}\n\n${blk('b', 'XXX')}`, 1)).toThrow(
      'separated from history by one empty line',
    );
  });

  it('case 15: a link correction touches its pr-link line only', () => {
    const fixed = base.replace(`pr-link: ${C(1)}`, `pr-link: ${C(42)}`);
    expect(raw(base, fixed, 0, 1)).not.toThrow();
    const spaced = fixed.replace('"Update a"', '"Update a"  ');
    expect(raw(base, spaced, 0, 1)).toThrow('historical bytes changed outside a pr-link line at line 4');
    expect(raw(base, `${fixed}\n`, 0, 1)).toThrow('pr-link corrections may not add or delete lines');
    expect(raw(base, base, 0, 1)).toThrow('expected 1 changed pr-link line(s), found 0');
    expect(raw(base, `${base} `, 0, 0)).toThrow('historical whitespace and formatting are immutable');
  });

  it('the byte gate names the line at fault and what to restore', () => {
    const head = `${base.replace('"Update a"', '"Update a" ')}\n${blk('b', 'XXX')}`;
    const r = checkByteGate(B(base), B(head), 42, 'perf-changelog.yaml');
    expect(r).toMatchObject({ ok: false, line: 4 });
    expect(r.ok ? '' : r.hint).toContain('restore this line');
    expect(checkByteGate(B(base), B(`${base}\n${blk('b', 'XXX')}`), 42, 'perf-changelog.yaml')).toEqual({
      ok: true,
      appended: 1,
      corrections: 0,
    });
  });
});
