import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpDir } from './helpers.ts';
import { agentic, entry, HISTORY, KEY, repo, tp2, tp4 } from './review-repo.ts';
import { delivery, post, prEvent } from './support/bot-deliveries.ts';
import { type BotProcess, botFiles, startBot } from './support/bot-process.ts';
import { type FakeGitHubApp, type FakePull, REPO, startFakeGitHubApp } from './support/fake-github-app.ts';

/**
 * The changelog check run of `infx bot serve`: a real git remote holding the PR's head only under
 * refs/pull/N/head (as GitHub has it), the bot's own clone fetching it, `infx changelog validate` and
 * `infx review` run there, and their findings as the check run's conclusion and annotations.
 */

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

let gh: FakeGitHubApp;
let bot: BotProcess;
const shas: Record<string, string> = {};
const secretFile = join(tmpDir('infx-bot-host-'), 'secret.yaml');

beforeAll(async () => {
  // One upstream: main at the base; each PR's head only at refs/pull/<n>/head.
  const up = repo();
  up.commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base');
  shas.base = git(up.dir, 'rev-parse', 'HEAD');
  up.commit({ [KEY]: agentic([tp4, tp2]) }, `${HISTORY}\n${entry('XXX')}`, 'collision');
  shas.collision = git(up.dir, 'rev-parse', 'HEAD');
  git(up.dir, 'reset', '-q', '--hard', 'base');
  // History rewritten: the old entry's description changed.
  up.commit(
    { [KEY]: agentic([tp4]) },
    `${HISTORY.replace('Add TP=2', 'Add TP=2 (edited)')}\n${entry('XXX')}`,
    'rewrite',
  );
  shas.rewrite = git(up.dir, 'rev-parse', 'HEAD');
  git(up.dir, 'reset', '-q', '--hard', 'base');
  // A hostile PR: the master config a symlink to a file of the bot's host.
  writeFileSync(secretFile, 'TOPSECRET-of-the-bot-host: 1\n');
  rmSync(join(up.dir, 'configs/amd-master.yaml'));
  symlinkSync(secretFile, join(up.dir, 'configs/amd-master.yaml'));
  writeFileSync(join(up.dir, 'perf-changelog.yaml'), `${HISTORY}\n${entry('XXX')}`);
  git(up.dir, 'add', '-A');
  git(up.dir, 'commit', '-q', '-m', 'symlink');
  shas.symlink = git(up.dir, 'rev-parse', 'HEAD');
  git(up.dir, 'reset', '-q', '--hard', 'base');
  const remote = join(tmpDir('infx-bot-remote-'), 'bench.git');
  git(up.dir, 'clone', '-q', '--bare', up.dir, remote);
  git(remote, 'update-ref', 'refs/pull/7/head', shas.collision!);
  git(remote, 'update-ref', 'refs/pull/8/head', shas.rewrite!);
  git(remote, 'update-ref', 'refs/pull/10/head', shas.symlink!);
  for (const tag of ['base', 'collision', 'rewrite']) git(remote, 'tag', '-d', tag);
  const clone = join(tmpDir('infx-bot-clone-'), 'bench');
  git(tmpDir(), 'clone', '-q', remote, clone);

  gh = await startFakeGitHubApp();
  const f = botFiles();
  bot = await startBot([
    ...['--webhook-secret-file', f.secret, '--token-file', f.token, '--github-api-url', gh.url],
    ...[
      '--state-dir',
      join(f.dir, 'state'),
      '--repo-dir',
      clone,
      '--config-files',
      'configs/amd-master.yaml',
    ],
  ]);
});
afterAll(async () => {
  await bot?.stop();
  await gh?.close();
});

const pull = (n: number, head: string, files: string[]): FakePull => ({
  number: n,
  state: 'open',
  draft: false,
  user: 'dev',
  headSha: head,
  headRef: `pr-${n}`,
  headRepo: REPO,
  baseSha: shas.base!,
  baseRef: 'main',
  labels: ['full-sweep-fail-fast'],
  commits: [head],
  files,
});

async function checkRunOf(p: FakePull) {
  gh.pulls.set(p.number, p);
  gh.checkRuns.clear();
  expect((await post(bot.hook, await prEvent('synchronize', p))).status).toBe(202);
  const h = await bot.settle();
  expect(h.failed).toBe(0);
  return [...gh.checkRuns.values()];
}

describe('infx bot serve: the changelog check run', () => {
  it('fails a PR with a blocking review finding, annotated at its file and line', async () => {
    const runs = await checkRunOf(
      pull(7, shas.collision!, ['configs/amd-master.yaml', 'perf-changelog.yaml']),
    );
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run).toMatchObject({
      name: 'infx/changelog-review',
      head_sha: shas.collision,
      status: 'completed',
      conclusion: 'failure',
    });
    const collision = run.annotations.find((a) => a.title === 'evals.grouping-collision');
    expect(collision).toMatchObject({
      path: 'configs/amd-master.yaml',
      start_line: 1,
      annotation_level: 'failure',
    });
    expect(String((run.output as { summary: string }).summary)).toContain('Validated perf-changelog.yaml');
  });

  it('fails a PR that rewrites changelog history, at the changelog line', async () => {
    const [run] = await checkRunOf(pull(8, shas.rewrite!, ['perf-changelog.yaml']));
    expect(run).toMatchObject({ conclusion: 'failure' });
    // The historical line the PR changed (the old entry's description), once, not once per tool.
    const bytes = run!.annotations.filter((a) => a.path === 'perf-changelog.yaml' && a.start_line === 4);
    expect(bytes).toHaveLength(1);
    expect(bytes[0]).toMatchObject({ title: 'changelog.byte-rule', annotation_level: 'failure' });
    expect(String(bytes[0]!.message)).toContain('restore');
  });

  it('runs the check again when it is re-requested from the Checks tab', async () => {
    const p = pull(7, shas.collision!, ['configs/amd-master.yaml', 'perf-changelog.yaml']);
    gh.pulls.set(7, p);
    gh.checkRuns.clear();
    const d = await delivery('check_run', {
      action: 'rerequested',
      check_run: {
        id: 1,
        name: 'infx/changelog-review',
        head_sha: p.headSha,
        pull_requests: [{ number: 7 }],
      },
      repository: { full_name: REPO, name: 'bench', owner: { login: 'acme' } },
      installation: { id: 42 },
      sender: { login: 'dev' },
    });
    expect((await post(bot.hook, d)).status).toBe(202);
    await bot.settle();
    expect([...gh.checkRuns.values()].map((r) => r.conclusion)).toEqual(['failure']);
  });

  it("never reads a file of the bot's host through a PR's symlink", async () => {
    const [run] = await checkRunOf(
      pull(10, shas.symlink!, ['configs/amd-master.yaml', 'perf-changelog.yaml']),
    );
    expect(run).toBeDefined();
    expect(JSON.stringify(run)).not.toContain('TOPSECRET');
  });

  it('runs no check on a PR that touches neither the changelog, the configs nor the recipes', async () => {
    expect(await checkRunOf(pull(9, shas.base!, ['README.md']))).toEqual([]);
  });
});
