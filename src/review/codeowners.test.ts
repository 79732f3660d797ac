import { describe, expect, it } from 'vitest';
import { parseCodeowners, patternRegex, ruleFor } from './codeowners.ts';

const rules = parseCodeowners(
  [
    '# catch-all',
    '* @acme/core',
    '',
    'configs/amd-master.yaml @amd-a @amd-b',
    'configs/nvidia-master.yaml @nv-a @acme/core  # with core',
    'docs/ @writer',
    '/experimental/operatorx/ @ox',
    '*.sh @scripts',
    'benchmarks/**/agentic/*.sh @agentic',
  ].join('\n'),
  'CODEOWNERS',
);

const owners = (path: string) => ruleFor(rules, path)?.owners ?? null;

describe('CODEOWNERS', () => {
  it('the last matching rule wins', () => {
    expect(owners('configs/amd-master.yaml')).toEqual(['@amd-a', '@amd-b']);
    expect(owners('configs/nvidia-master.yaml')).toEqual(['@nv-a', '@acme/core']);
    expect(owners('configs/runners.yaml')).toEqual(['@acme/core']);
    expect(owners('benchmarks/single_node/agentic/x.sh')).toEqual(['@agentic']);
    expect(owners('benchmarks/single_node/x.sh')).toEqual(['@scripts']);
  });

  it('anchoring, folders and segments as gitignore has them', () => {
    expect(owners('docs/a/b.md')).toEqual(['@writer']);
    // A trailing slash alone does not anchor: `docs/` owns a docs folder anywhere (GitHub's `apps/` example).
    expect(owners('src/docs/x.md')).toEqual(['@writer']);
    expect(patternRegex('/docs/').test('src/docs/x.md')).toBe(false);
    expect(owners('experimental/operatorx/run.py')).toEqual(['@ox']);
    expect(owners('x/experimental/operatorx/run.py')).toEqual(['@acme/core']);
    expect(patternRegex('docs/*.md').test('docs/a/b.md')).toBe(false);
    expect(patternRegex('docs/**/*.md').test('docs/a/b.md')).toBe(true);
    expect(patternRegex('docs/**/*.md').test('docs/b.md')).toBe(true);
    expect(patternRegex('build').test('a/build/x.o')).toBe(true);
  });

  it("`dir/*` owns only what is directly in dir (GitHub's `docs/*` example), and the last match still wins", () => {
    expect(patternRegex('docs/*').test('docs/getting-started.md')).toBe(true);
    expect(patternRegex('docs/*').test('docs/build-app/troubleshooting.md')).toBe(false);
    expect(patternRegex('/configs/*').test('configs/amd-master.yaml')).toBe(true);
    expect(patternRegex('/configs/*').test('configs/old/amd-master.yaml')).toBe(false);
    const r = parseCodeowners('* @core\ndocs/gen/build.py @builder\ndocs/* @writer\n', 'CODEOWNERS');
    // docs/* comes last but does not reach docs/gen/, so the earlier, deeper rule decides there.
    expect(ruleFor(r, 'docs/gen/build.py')?.owners).toEqual(['@builder']);
    expect(ruleFor(r, 'docs/index.md')?.owners).toEqual(['@writer']);
    expect(ruleFor(r, 'docs/gen/other.py')?.owners).toEqual(['@core']);
  });

  it('refuses what GitHub does not support, naming the line', () => {
    expect(() => parseCodeowners('* @a\n!docs/ @b\n', 'CODEOWNERS')).toThrow("CODEOWNERS:2: '!docs/'");
    expect(() => parseCodeowners('[ab].md @a\n', 'CODEOWNERS')).toThrow('CODEOWNERS:1');
    expect(() => parseCodeowners('* nobody\n', 'CODEOWNERS')).toThrow(
      "CODEOWNERS:1: 'nobody' is not an owner",
    );
    expect(() => parseCodeowners('* @a\n\\#notes @b\n', 'CODEOWNERS')).toThrow("CODEOWNERS:2: '\\#notes'");
  });
});
