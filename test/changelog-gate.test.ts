import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { changelogMatrix } from '../src/changelog/gate.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/**
 * `infx changelog matrix` against a real git work tree built here: the entries come from the diff's
 * added lines (changelog-pr-spec §1.7, §2.1), append-only reads the base revision's configs (§2.5), and
 * every refusal says what went wrong in the reference's words.
 */

const x = (concs: number[], image = 'img:1') => ({
  image,
  model: 'm',
  'model-prefix': 'x',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'h100',
  multinode: false,
  scenarios: { 'fixed-seq-len': [{ isl: 8192, osl: 1024, 'search-space': [{ tp: 4, 'conc-list': concs }] }] },
});
const y = (tp = 8) => ({
  image: 'img:1',
  model: 'm2',
  'model-prefix': 'y',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'h100',
  multinode: false,
  scenarios: { 'fixed-seq-len': [{ isl: 1024, osl: 1024, 'search-space': [{ tp, 'conc-list': [4] }] }] },
});

const block = (key: string, link: string, extra = '') =>
  `- config-keys:\n    - ${key}\n  description:\n    - "Update ${key}"\n  pr-link: ${link}\n${extra}`;
const HISTORY = block('x-fp8-h100-sglang', 'XXX');

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}

/** A repository whose commit `base` holds the history; returns a function committing the next state. */
function repo(masters: { amd: object; nvidia: object }) {
  const dir = tmpDir('infx-changelog-gate-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@example.com');
  git(dir, 'config', 'user.name', 't');
  const commit = (m: { amd: object; nvidia: object }, changelog: string, tag: string) => {
    execFileSync('mkdir', ['-p', join(dir, 'configs')]);
    writeFileSync(join(dir, 'configs/amd-master.yaml'), yaml.dump(m.amd));
    writeFileSync(join(dir, 'configs/nvidia-master.yaml'), yaml.dump(m.nvidia));
    writeFileSync(join(dir, 'configs/runners.yaml'), yaml.dump({ labels: { h100: ['h100_0'] } }));
    writeFileSync(join(dir, 'perf-changelog.yaml'), changelog);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--allow-empty', '-m', tag);
    git(dir, 'tag', tag);
  };
  commit(masters, HISTORY, 'base');
  return { dir, commit };
}

const request = (dir: string) => ({
  cwd: dir,
  baseRef: 'base',
  headRef: 'head',
  changelogFile: 'perf-changelog.yaml',
  configFiles: ['configs/amd-master.yaml', 'configs/nvidia-master.yaml'],
  runnerConfig: 'configs/runners.yaml',
});

const BASE = { amd: { 'y-fp8-h100-sglang': y() }, nvidia: { 'x-fp8-h100-sglang': x([16, 32]) } };

describe('infx changelog matrix in a work tree', () => {
  it("runs the added entry's configs with its defaults filled in, and names the refs", async () => {
    const { dir, commit } = repo(BASE);
    commit(BASE, `${HISTORY}\n${block('y-*', 'XXX')}`, 'head');
    const out = await changelogMatrix(request(dir));
    expect(out.single_node['1k1k']?.map((r) => [r.model, r.conc])).toEqual([['m2', 4]]);
    expect(out.single_node['8k1k']).toBeUndefined();
    expect(out.changelog_metadata).toEqual({
      base_ref: 'base',
      head_ref: 'head',
      entries: [
        {
          'config-keys': ['y-*'],
          description: ['Update y-*'],
          'pr-link': 'XXX',
          'evals-only': false,
          'all-evals': false,
          'append-only': false,
        },
      ],
    });
  });

  it('append-only runs only the points the head adds, from the base revision’s configs', async () => {
    const { dir, commit } = repo(BASE);
    const head = { ...BASE, nvidia: { 'x-fp8-h100-sglang': x([16, 32, 64]) } };
    commit(head, `${HISTORY}\n${block('x-fp8-h100-sglang', 'XXX', '  append-only: true\n')}`, 'head');
    const out = await changelogMatrix(request(dir));
    expect(out.single_node['8k1k']?.map((r) => r.conc)).toEqual([64]);
    expect(out.evals).toEqual([]);
  });

  it('append-only refuses a change to a config its entry does not select', async () => {
    const { dir, commit } = repo(BASE);
    const head = { amd: { 'y-fp8-h100-sglang': y(4) }, nvidia: { 'x-fp8-h100-sglang': x([16, 32, 64]) } };
    commit(head, `${HISTORY}\n${block('x-fp8-h100-sglang', 'XXX', '  append-only: true\n')}`, 'head');
    await expect(changelogMatrix(request(dir))).rejects.toThrow(
      "append-only PR changed configs not selected by its changelog entry: ['y-fp8-h100-sglang']",
    );
  });

  it('a historical pr-link correction is a deletion to the gate (§10 case 16)', async () => {
    const { dir, commit } = repo(BASE);
    commit(
      BASE,
      HISTORY.replace('pr-link: XXX', 'pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/7'),
      'head',
    );
    await expect(changelogMatrix(request(dir))).rejects.toThrow(
      'Deletions are not allowed in perf-changelog.yaml. Only additions to the changelog are permitted. Found deleted line:   pr-link: XXX',
    );
  });

  it('a change with no changelog addition is refused', async () => {
    const { dir, commit } = repo(BASE);
    commit({ ...BASE, amd: { 'y-fp8-h100-sglang': y(4) } }, HISTORY, 'head');
    await expect(changelogMatrix(request(dir))).rejects.toThrow('No additions found in the changelog file.');
  });

  it('an unknown key, a key pattern with no match and an invalid entry are refused', async () => {
    const cases: [string, string][] = [
      [block('zzz', 'XXX'), "Config key 'zzz' not found in master configs."],
      [block('q-*', 'XXX'), "No config keys matched the wildcard pattern 'q-*' in master configs."],
      [
        `${block('y-*', 'XXX')}  colour: red\n`,
        'added entry 1 of perf-changelog.yaml fails ChangelogEntry validation',
      ],
    ];
    for (const [added, message] of cases) {
      const { dir, commit } = repo(BASE);
      commit(BASE, `${HISTORY}\n${added}`, 'head');
      await expect(changelogMatrix(request(dir))).rejects.toThrow(message);
    }
  });

  it('the command: JSON on stdout and exit 0; a bad revision is a clear error and exit 1', () => {
    const { dir, commit } = repo(BASE);
    commit(BASE, `${HISTORY}\n${block('y-*', 'XXX')}`, 'head');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(REPO_ROOT, 'bin/infx.js'), 'changelog', 'matrix', ...args], {
        cwd: dir,
        encoding: 'utf8',
      });
    const ok = run('--base-ref', 'base', '--head-ref', 'head');
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).changelog_metadata.head_ref).toBe('head');
    const bad = run('--base-ref', 'nope', '--head-ref', 'head');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("--base-ref 'nope' names no commit in this repository");
    const option = run('--base-ref', '--upload-pack=x', '--head-ref', 'head');
    expect(option.status).toBe(1);
    expect(option.stderr).toContain('is not a git revision');
    expect(readFileSync(join(dir, 'perf-changelog.yaml'), 'utf8')).toContain('y-*');
  });

  it('validate: the CI checks, then the byte gate, each failure named by line', () => {
    const validate = (dir: string, ...args: string[]) =>
      spawnSync(
        process.execPath,
        [
          join(REPO_ROOT, 'bin/infx.js'),
          'changelog',
          'validate',
          '--base-ref',
          'base',
          '--head-ref',
          'head',
          ...args,
        ],
        { cwd: dir, encoding: 'utf8' },
      );
    const good = repo(BASE);
    good.commit(BASE, `${HISTORY}\n${block('y-*', 'XXX')}`, 'head');
    const ok = validate(good.dir, '--pr', '42');
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe(
      'Validated perf-changelog.yaml: final newline present and matrix generated\n' +
        'Byte gate: history unchanged, 1 entry appended\n',
    );
    // In main's context (no --pr) a placeholder link is refused.
    const main = validate(good.dir);
    expect(main.status).toBe(1);
    expect(main.stderr).toContain("new main-branch entry has invalid pr-link: 'XXX'");

    const spaced = repo(BASE);
    spaced.commit(BASE, `${HISTORY}\n\n${block('y-*', 'XXX')}`, 'head');
    const bad = validate(spaced.dir, '--pr', '42');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(
      'ERROR: perf-changelog.yaml:6: new changelog entries must be separated from history by one empty line and appended at the end' +
        ' (fix: leave exactly one empty line between the last historical entry and the first new one)\n',
    );

    const unterminated = repo(BASE);
    unterminated.commit(BASE, `${HISTORY}\n${block('y-*', 'XXX')}`.slice(0, -1), 'head');
    const nl = validate(unterminated.dir, '--pr', '42');
    expect(nl.status).toBe(1);
    expect(nl.stderr).toContain('ERROR: perf-changelog.yaml at head does not end with a newline');

    const unknown = repo(BASE);
    unknown.commit(BASE, `${HISTORY}\n${block('zzz', 'XXX')}`, 'head');
    const rejected = validate(unknown.dir, '--pr', '42');
    expect(rejected.status).toBe(1);
    expect(rejected.stderr).toContain(
      "ERROR: the changelog processor rejected the diff: Config key 'zzz' not found in master configs.",
    );
    expect(validate(good.dir, '--pr', 'abc').stderr).toContain("--pr 'abc' is not a PR number");
  });
});
