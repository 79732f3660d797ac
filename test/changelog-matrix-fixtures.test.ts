import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changelogMatrix, formatChangelogMatrix } from '../src/changelog/gate.ts';
import { FIXTURES_SKIP_REASON, fixture, REPO_ROOT, tmpDir } from './helpers.ts';

/**
 * Every case of the reference's changelog processor (`../shared/fixtures/inferencex/changelog/`): a git
 * bundle with tags base and head, the processor's arguments and its exact stdout. `infx changelog
 * matrix`, run in a work tree at head, must print the same bytes.
 */

const DIR = fixture('changelog');
const available = existsSync(DIR);
if (!available) console.warn(`skipping changelog fixture tests: ${FIXTURES_SKIP_REASON}`);
const cases = available
  ? readdirSync(DIR)
      .filter((f) => f.endsWith('.args'))
      .map((f) => f.slice(0, -'.args'.length))
      .sort()
  : [];

const trees = new Map<string, string>();
/** A clone of the case's bundle (a flagged case shares its plain case's), checked out at head. */
function workTree(name: string): string {
  const bundle = name.replace(/--.*$/, '');
  let dir = trees.get(bundle);
  if (dir === undefined) {
    dir = join(tmpDir('infx-changelog-case-'), bundle);
    execFileSync('git', ['clone', '-q', join(DIR, `${bundle}.bundle`), dir]);
    execFileSync('git', ['-c', 'advice.detachedHead=false', 'checkout', '-q', 'head'], { cwd: dir });
    trees.set(bundle, dir);
  }
  return dir;
}

function flagsOf(args: string): Record<string, string | boolean> {
  const words = args.trim().split(/\s+/);
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = words[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out[w] = next;
      i++;
    } else out[w] = true;
  }
  return out;
}

describe.skipIf(!available)('infx changelog matrix reproduces the reference processor', () => {
  it('has the cases', () => expect(cases.length).toBeGreaterThanOrEqual(10));

  it.each(cases)('%s: byte for byte', async (name) => {
    const f = flagsOf(readFileSync(join(DIR, `${name}.args`), 'utf8'));
    expect(readFileSync(join(DIR, `${name}.exit`), 'utf8').trim()).toBe('0');
    const out = await changelogMatrix({
      cwd: workTree(name),
      baseRef: f['--base-ref'] as string,
      headRef: f['--head-ref'] as string,
      changelogFile: f['--changelog-file'] as string,
      configFiles: ['configs/amd-master.yaml', 'configs/nvidia-master.yaml'],
      runnerConfig: 'configs/runners.yaml',
      trimConc: f['--trim-conc'] === true,
      allEvals: f['--all-evals'] === true,
      evalsOnly: f['--evals-only'] === true,
    });
    expect(formatChangelogMatrix(out)).toBe(readFileSync(join(DIR, `${name}.json`), 'utf8'));
  });

  it('the command prints the same bytes, exit 0', () => {
    const name = cases[0] as string;
    const r = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'bin/infx.js'),
        'changelog',
        'matrix',
        ...readFileSync(join(DIR, `${name}.args`), 'utf8')
          .trim()
          .split(/\s+/),
      ],
      { cwd: workTree(name), encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(DIR, `${name}.json`), 'utf8'));
  });
});
