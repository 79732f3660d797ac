import { describe, expect, it } from 'vitest';
import { canonicalize, resolveConflict } from './merge.ts';

/** changelog-pr-spec §10 cases 18–23 (merge preparation), and §4's refusals. */

const C = (n: number) => `https://github.com/SemiAnalysisAI/InferenceX/pull/${n}`;
const blk = (k: string, link: string, desc = `Update ${k}`) =>
  `- config-keys:\n    - ${k}\n  description:\n    - "${desc}"\n  pr-link: ${link}\n`;
const B = (s: string) => Buffer.from(s, 'utf8');
const F = 'perf-changelog.yaml';
const count = (s: string, sub: string) => s.split(sub).length - 1;

describe('canonicalize (§4.2)', () => {
  it("rewrites the appended entry's placeholder and keeps history's (case 18)", () => {
    const base = blk('historical', 'XXX');
    const out = canonicalize(B(base), B(`${base}\n${blk('new', 'XXX')}`), 42, F).toString();
    expect(out.startsWith(base)).toBe(true);
    expect(out).toBe(`${base}\n${blk('new', C(42))}`);
  });

  it('leaves a head without additions, or already canonical, as it is', () => {
    const base = blk('a', C(1));
    expect(canonicalize(B(base), B(base), 42, F).toString()).toBe(base);
    const done = `${base}\n${blk('b', C(42))}`;
    expect(canonicalize(B(base), B(done), 42, F).toString()).toBe(done);
  });

  it('refuses a change to a historical line (case 19)', () => {
    const base = blk('historical', 'XXX');
    const head = `${base.replace('"Update historical"', '"Update historical"  ')}\n${blk('new', 'XXX')}`;
    expect(() => canonicalize(B(base), B(head), 42, F)).toThrow('historical');
  });
});

describe('resolve a three-way conflict (§4.3)', () => {
  it("keeps main's bytes, whitespace line and all, then the PR's entry with its link (case 20)", () => {
    const base = blk('base', C(1));
    const pr = `${base}\n${blk('pr', 'XXX')}`;
    const main = `${base}  \n${blk('main', C(41))}`;
    const out = resolveConflict(B(base), B(pr), B(main), 42, F).toString();
    expect(out.startsWith(main)).toBe(true);
    expect(out.slice(main.length).startsWith('\n- config-keys:')).toBe(true);
    expect(out).toBe(`${main}\n${blk('pr', C(42))}`);
  });

  it("applies the PR's one link correction to main (case 21)", () => {
    const old = 'https://github.com/NVIDIA/InferenceMAX/pull/1722';
    const base = blk('base', old);
    const main = `${base}\n${blk('main', C(41))}`;
    const out = resolveConflict(B(base), B(blk('base', C(1722))), B(main), 42, F).toString();
    expect(out).toBe(main.replace(old, C(1722)));
  });

  it('refuses when main already holds the PR’s entry (case 22)', () => {
    const base = blk('base', C(1));
    const pr = `${base}\n${blk('new', 'XXX')}`;
    const main = `${base}\n${blk('new', C(77))}`;
    expect(() => resolveConflict(B(base), B(pr), B(main), 42, F)).toThrow('no changelog contribution');
  });

  it('appends two PR entries after main with one blank line each and one final newline (case 23)', () => {
    const base = blk('base', C(1));
    const pr = `${base}\n${blk('new-a', 'XXX')}\n${blk('new-b', 'XXX')}`;
    const main = `${base}\n${blk('main', C(41))}`;
    const out = resolveConflict(B(base), B(pr), B(main), 42, F).toString();
    const order = [...out.matchAll(/- (base|main|new-a|new-b)\n/g)].map((m) => m[1]);
    expect(order).toEqual(['base', 'main', 'new-a', 'new-b']);
    expect(count(out, '\n\n- config-keys:')).toBe(3);
    expect(out.includes('\n\n\n')).toBe(false);
    expect(out.endsWith('\n') && !out.endsWith('\n\n')).toBe(true);
  });

  it('refuses corrections main changed or already has, and a PR with nothing to keep', () => {
    const base = blk('a', 'XXX');
    const pr = blk('a', C(42));
    expect(() => resolveConflict(B(base), B(pr), B(blk('a', C(42))), 42, F)).toThrow(
      "the PR's pr-link corrections are already present on main",
    );
    expect(() => resolveConflict(B(base), B(pr), B(blk('a', C(43))), 42, F)).toThrow(
      'main has a conflicting pr-link for entry 1',
    );
    expect(() => resolveConflict(B(base), B(pr), B(blk('a', 'XXX', 'Other')), 42, F)).toThrow(
      'main changed corrected entry 1; resolve manually',
    );
    expect(() => resolveConflict(B(base), B(base), B(base), 42, F)).toThrow(
      'the PR has no appended entry or pr-link correction to preserve',
    );
  });
});
