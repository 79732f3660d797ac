import { describe, expect, it } from 'vitest';
import { checkNewLink, compareEntries } from './compare.ts';

const entry = (link: string) => ({ 'config-keys': ['x'], description: ['d'], 'pr-link': link });
const link = (repo: string, n: number | 'XXX') => `https://github.com/${repo}/pull/${n}`;

describe("a new entry's pr-link, by the repository it names", () => {
  it("takes the reference's links by default, and a project's own with its repository", () => {
    expect(() => checkNewLink(link('SemiAnalysisAI/InferenceX', 7), 7)).not.toThrow();
    expect(() => checkNewLink(link('acme/bench', 7), 7)).toThrow(/SemiAnalysisAI\/InferenceX\/pull\/7/);
    expect(() => checkNewLink(link('acme/bench', 7), 7, 'acme/bench')).not.toThrow();
    expect(() => checkNewLink(link('acme/bench', 'XXX'), 7, 'acme/bench')).not.toThrow();
    expect(() => checkNewLink(link('acme/bench', 8), 7, 'acme/bench')).toThrow(/acme\/bench\/pull\/7/);
  });

  it('reads a dot in the repository as a dot, not as any character', () => {
    expect(() => checkNewLink(link('o/acme.bench', 3), null, 'o/acme.bench')).not.toThrow();
    expect(() => checkNewLink(link('o/acmeXbench', 3), null, 'o/acme.bench')).toThrow(/invalid pr-link/);
  });

  it('judges a pr-link correction of history by the same repository', () => {
    const base = [entry('XXX')];
    const fixed = [entry(link('acme/bench', 2))];
    expect(compareEntries(base, fixed, 'any', 'acme/bench').corrections).toBe(1);
    expect(() => compareEntries(base, fixed, 'any')).toThrow(/not canonical/);
  });
});
