import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/**
 * `infx changelog resolve` in a real merge of main that conflicts in the changelog, then `infx changelog
 * canonicalize` on the result: the merge path of changelog-pr-spec §4.4, on git itself.
 */

const C = (n: number) => `https://github.com/SemiAnalysisAI/InferenceX/pull/${n}`;
const blk = (k: string, link: string) =>
  `- config-keys:\n    - ${k}\n  description:\n    - "Update ${k}"\n  pr-link: ${link}\n`;

function git(dir: string, ...args: string[]): ReturnType<typeof spawnSync> {
  return spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
}
const infx = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(REPO_ROOT, 'bin/infx.js'), 'changelog', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });

describe('infx changelog resolve / canonicalize in a git work tree', () => {
  it('resolves the conflict, stages it, and canonicalizes the PR link afterwards', () => {
    const dir = tmpDir('infx-changelog-merge-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    for (const [k, v] of [
      ['user.email', 't@example.com'],
      ['user.name', 't'],
    ])
      git(dir, 'config', k as string, v as string);
    const file = join(dir, 'perf-changelog.yaml');
    const commit = (text: string, msg: string) => {
      writeFileSync(file, text);
      git(dir, 'commit', '-qam', msg);
    };
    writeFileSync(file, blk('base', C(1)));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'base');
    git(dir, 'checkout', '-qb', 'pr');
    commit(`${blk('base', C(1))}\n${blk('pr', 'XXX')}`, 'pr entry');
    git(dir, 'checkout', '-q', 'main');
    const main = `${blk('base', C(1))}\n${blk('main', C(41))}`;
    commit(main, 'main entry');
    git(dir, 'checkout', '-q', 'pr');
    expect(git(dir, 'merge', '-q', '--no-edit', 'main').status).not.toBe(0);

    const resolved = infx(dir, 'resolve', '--pr', '42');
    expect(resolved.stderr).toBe('');
    expect(resolved.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(`${main}\n${blk('pr', C(42))}`);
    expect(String(git(dir, 'diff', '--name-only', '--diff-filter=U').stdout)).toBe('');
    expect(git(dir, 'commit', '-qm', 'merge main').status).toBe(0);

    // Canonicalize after a sync that kept the placeholder.
    commit(`${main}\n${blk('pr', 'XXX')}`, 'placeholder again');
    const canon = infx(dir, 'canonicalize', '--pr', '42', '--base-ref', 'main');
    expect(canon.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(`${main}\n${blk('pr', C(42))}`);
    expect(infx(dir, 'canonicalize', '--pr', '42', '--base-ref', 'main').stdout).toContain(
      'nothing to canonicalize',
    );

    // Outside a conflicting merge, resolve says what it needs; a bad --pr is a usage error.
    const outside = infx(dir, 'resolve', '--pr', '42');
    expect(outside.status).toBe(1);
    expect(outside.stderr).toContain('resolve runs during a merge that conflicts in it');
    expect(infx(dir, 'resolve', '--pr', 'abc').status).toBe(2);
  });
});
