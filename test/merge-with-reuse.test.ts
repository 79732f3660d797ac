import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BotError } from '../src/bot/errors.ts';
import { type MergeWithReuseRequest, mergeWithReuse } from '../src/bot/merge-with-reuse.ts';
import { tmpDir } from './helpers.ts';
import {
  type FakeCheck,
  type FakeGitHub,
  type FakePr,
  type FakeRun,
  MERGE_SHA,
  startFakeGitHub,
  TOKEN,
} from './support/fake-github.ts';
import {
  BASE_LOG,
  entry,
  FILE,
  git,
  HEAD_REF,
  link,
  makePrRepo,
  PR,
  type PrRepo,
  type PrRepoOptions,
} from './support/git-pr.ts';

/**
 * `infx changelog merge-with-reuse` (changelog-pr-spec §4.4) end to end on real git (a bare repository as
 * the remote, a work clone, a PR branch, a main that moved on) and a fake GitHub REST API on 127.0.0.1 that
 * reads the PR head live from the bare repository: every precondition in its order and with its message,
 * nothing posted or pushed when one refuses, and the happy paths' comment, pushed commit and merge call.
 */

const REPO = 'SemiAnalysisAI/InferenceX';
const STALE = 'ab'.repeat(20);
const servers: FakeGitHub[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

const passing = (): FakeCheck[] => [
  { name: 'check-changelog', status: 'completed', conclusion: 'success' },
  { name: 'sweep', status: 'completed', conclusion: 'skipped' },
];

/** Newest first, two a page: a stale run, a no-op gate run without results, then the reusable one (page 2). */
const defaultRuns = (r: PrRepo): FakeRun[] => [
  { id: 11, headSha: STALE, artifacts: [{ name: 'results_bmk', expired: false }] },
  { id: 12, headSha: r.head, artifacts: [{ name: 'changelog-metadata', expired: false }] },
  {
    id: 13,
    headSha: r.head,
    artifacts: [
      { name: 'changelog-metadata', expired: false },
      { name: 'results_bmk', expired: false },
    ],
  },
];

interface Setup extends PrRepoOptions {
  pr?: Partial<FakePr>;
  runs?: (r: PrRepo) => FakeRun[];
  checks?: (sha: string) => FakeCheck[];
  head?: (live: string) => string;
}

async function setup(opts: Setup) {
  const repo = makePrRepo(tmpDir('infx-mwr-'), opts);
  const fake = await startFakeGitHub({
    repo: REPO,
    bare: repo.bare,
    baseBranch: 'main',
    pr: {
      number: PR,
      state: 'open',
      headRef: HEAD_REF,
      headRepo: REPO,
      labels: ['full-sweep-fail-fast', 'all-evals'],
      ...opts.pr,
    },
    runs: (opts.runs ?? defaultRuns)(repo),
    checks: opts.checks ?? passing,
    ...(opts.head === undefined ? {} : { head: opts.head }),
  });
  servers.push(fake);
  const lines: string[] = [];
  const run = (over: Partial<MergeWithReuseRequest> = {}) =>
    mergeWithReuse({
      cwd: repo.work,
      pr: PR,
      remote: 'origin',
      baseBranch: 'main',
      changelogFile: FILE,
      checkTimeoutS: 5,
      pollIntervalS: 0.005,
      apiUrl: fake.url,
      dryRun: false,
      env: { GITHUB_TOKEN: TOKEN },
      log: (l) => lines.push(l),
      ...over,
    });
  const pushed = () => git(repo.bare, 'rev-parse', `refs/heads/${HEAD_REF}`);
  const logAt = (sha: string) => git(repo.work, 'show', `${sha}:${FILE}`);
  const parents = (sha: string) =>
    git(repo.work, 'rev-list', '--parents', '-n', '1', sha).split(' ').length - 1;
  const subject = (sha: string) => git(repo.work, 'log', '-1', '--format=%s', sha);
  /** The work tree is clean, back on main, and no merge is in progress. */
  const clean = () => {
    expect(git(repo.work, 'status', '--porcelain')).toBe('');
    expect(git(repo.work, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
  };
  return { repo, fake, lines, run, pushed, logAt, parents, subject, clean };
}

async function refusal(p: Promise<unknown>): Promise<BotError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BotError);
  return err as BotError;
}

/** Nothing was posted, pushed or merged. */
function untouched(s: Awaited<ReturnType<typeof setup>>): void {
  expect(s.fake.comments).toEqual([]);
  expect(s.fake.merges).toEqual([]);
  expect(s.pushed()).toBe(s.repo.head);
  expect(s.fake.requests.some((r) => !r.startsWith('GET '))).toBe(false);
}

const entryBlock = (k: string, l: string) => entry(k, l);

describe('merge-with-reuse: the happy paths', () => {
  it('no conflict: posts /reuse-sweep-run, pushes the merge of main, waits for checks, squash-merges', async () => {
    const s = await setup({ prLink: link(PR), main: 'other-file', extraCommits: 2 });
    const out = await s.run();
    expect(s.fake.comments).toEqual(['/reuse-sweep-run']);
    const sha = s.pushed();
    expect(sha).not.toBe(s.repo.head);
    expect(out).toMatchObject({ dryRun: false, reuseRunId: 13, pushedSha: sha, mergeSha: MERGE_SHA });
    expect(s.parents(sha)).toBe(2);
    expect(s.subject(sha)).toBe(`Merge origin/main into ${HEAD_REF}`);
    expect(git(s.repo.work, 'show', `${sha}:other.txt`)).toBe('other v2');
    expect(s.fake.merges).toEqual([{ merge_method: 'squash', sha }]);
    // The runs and the PR's commits were each read over two pages; the run query asks for what §4.4 needs.
    expect(s.fake.requests).toContain(
      `GET /repos/${REPO}/actions/workflows/run-sweep.yml/runs?per_page=100&event=pull_request&branch=${HEAD_REF}&status=success&page=2`,
    );
    expect(s.fake.requests.filter((r) => r.includes(`/pulls/${PR}/commits`))).toHaveLength(2);
    // The stale run and the no-op gate run were passed over; the newest check-changelog was waited for.
    expect(s.fake.requests.filter((r) => r.includes('/actions/runs/11/'))).toEqual([]);
    expect(s.fake.requests).toContain(
      `GET /repos/${REPO}/commits/${sha}/check-runs?per_page=100&check_name=check-changelog`,
    );
    expect(s.lines.join('\n')).toContain('squash-merging PR #42');
    s.clean();
  });

  it('a changelog conflict is resolved: main bytes, then the PR entry with its canonical link', async () => {
    const s = await setup({ prLink: 'XXX', main: 'changelog' });
    await s.run();
    const sha = s.pushed();
    expect(s.parents(sha)).toBe(2);
    expect(`${s.logAt(sha)}\n`).toBe(`${s.repo.mainLog}\n${entryBlock('pr-key', link(PR))}`);
    expect(s.fake.merges).toEqual([{ merge_method: 'squash', sha }]);
    s.clean();
  });

  it('a placeholder XXX link is canonicalized by amending the merge commit', async () => {
    const s = await setup({ prLink: 'XXX', main: 'other-file' });
    await s.run();
    const sha = s.pushed();
    expect(s.parents(sha)).toBe(2);
    expect(s.subject(sha)).toBe(`Merge origin/main into ${HEAD_REF}`);
    expect(`${s.logAt(sha)}\n`).toBe(`${BASE_LOG}\n${entryBlock('pr-key', link(PR))}`);
    s.clean();
  });

  it('with main not moved: a canonicalize commit, or an empty refresh commit when nothing changed', async () => {
    const a = await setup({ prLink: 'XXX', main: 'none' });
    await a.run();
    const canon = a.pushed();
    expect(a.subject(canon)).toBe(`fix: canonicalize PR #${PR} changelog link [skip-sweep]`);
    expect(a.parents(canon)).toBe(1);
    expect(`${a.logAt(canon)}\n`).toBe(`${BASE_LOG}\n${entryBlock('pr-key', link(PR))}`);

    const b = await setup({ prLink: link(PR), main: 'none' });
    await b.run();
    const refresh = b.pushed();
    expect(b.subject(refresh)).toBe(`chore: refresh PR #${PR} for sweep reuse [skip-sweep]`);
    expect(git(b.repo.work, 'rev-parse', `${refresh}^`)).toBe(b.repo.head);
    expect(git(b.repo.work, 'rev-parse', `${refresh}^{tree}`)).toBe(
      git(b.repo.work, 'rev-parse', `${b.repo.head}^{tree}`),
    );
    expect(b.fake.merges).toEqual([{ merge_method: 'squash', sha: refresh }]);
  });

  it('--dry-run checks every precondition and prints the plan, posting, pushing and merging nothing', async () => {
    const s = await setup({
      prLink: 'XXX',
      main: 'changelog',
      runs: (r) => [{ id: 21, headSha: r.head, artifacts: [{ name: 'bmk_agentic_dsv4', expired: false }] }],
    });
    const out = await s.run({ dryRun: true });
    expect(out).toMatchObject({ dryRun: true, reuseRunId: 21, pushedSha: null, mergeSha: null });
    expect(out.plan.join('\n')).toContain("post '/reuse-sweep-run' on PR #42");
    expect(out.plan.join('\n')).toContain('squash-merge PR #42');
    untouched(s);
    s.clean();
  });
});

describe('merge-with-reuse: the steps that fail', () => {
  it('a conflict in another file aborts the merge and leaves the tree clean; nothing is pushed or merged', async () => {
    const s = await setup({ prLink: link(PR), main: 'conflicting-notes' });
    const err = await refusal(s.run());
    expect(err.message).toBe(`Unexpected conflict(s) in: notes.txt — only ${FILE} is auto-resolved`);
    s.clean();
    expect(() => git(s.repo.work, 'rev-parse', '-q', '--verify', 'MERGE_HEAD')).toThrow();
    expect(s.pushed()).toBe(s.repo.head);
    expect(s.fake.merges).toEqual([]);
    // The comment is the flow's first step, before the merge (as in the reference's script), and it stays.
    expect(s.fake.comments).toEqual(['/reuse-sweep-run']);
    expect(err.hint).toContain(
      '/reuse-sweep-run is already posted on PR #42: a later push skips the PR sweep',
    );
  });

  it('a push the remote rejects names the prepared commit; the tree is put back', async () => {
    const s = await setup({ prLink: link(PR), main: 'other-file' });
    const hook = join(s.repo.bare, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "protected branch" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const err = await refusal(s.run());
    expect(err.message).toMatch(
      /^git push -q origin [0-9a-f]{40}:refs\/heads\/pr-branch failed: .*protected branch/s,
    );
    expect(err.hint).toMatch(/^the prepared commit is [0-9a-f]{40}: push it yourself/);
    expect(s.pushed()).toBe(s.repo.head);
    expect(s.fake.merges).toEqual([]);
    s.clean();
  });

  it('a changelog conflict resolve refuses aborts the merge: Could not safely resolve', async () => {
    const s = await setup({ prLink: link(7), main: 'changelog' });
    const err = await refusal(s.run());
    expect(err.message).toBe(`Could not safely resolve ${FILE}`);
    expect(err.hint).toContain('or an XXX placeholder');
    s.clean();
    expect(s.pushed()).toBe(s.repo.head);
  });

  it('check-changelog failing, or never completing, is fatal; nothing is merged', async () => {
    const failing = await setup({
      prLink: link(PR),
      main: 'other-file',
      checks: () => [
        {
          name: 'check-changelog',
          status: 'completed',
          conclusion: 'success',
          started_at: '2026-01-01T00:00:00Z',
        },
        {
          name: 'check-changelog',
          status: 'completed',
          conclusion: 'failure',
          started_at: '2026-01-01T00:05:00Z',
        },
      ],
    });
    const err = await refusal(failing.run());
    expect(err.message).toMatch(/^check check-changelog \(conclusion failure\).* did not succeed$/);
    expect(failing.fake.merges).toEqual([]);

    const pending = await setup({
      prLink: link(PR),
      main: 'other-file',
      checks: () => [{ name: 'check-changelog', status: 'in_progress' }],
    });
    const timeout = await refusal(pending.run({ checkTimeoutS: 0.05, pollIntervalS: 0.01 }));
    expect(timeout.message).toMatch(
      /^timed out after 0\.05 s waiting for the check-changelog check on [0-9a-f]{40} \(in_progress\)$/,
    );
    expect(pending.fake.merges).toEqual([]);
  });

  it('watching all checks fails fast on a failed check', async () => {
    const s = await setup({
      prLink: link(PR),
      main: 'other-file',
      checks: () => [
        { name: 'check-changelog', status: 'completed', conclusion: 'success' },
        { name: 'lint', status: 'completed', conclusion: 'failure' },
        { name: 'sweep', status: 'in_progress' },
      ],
    });
    const err = await refusal(s.run());
    expect(err.message).toMatch(/^1 check\(s\) failed on [0-9a-f]{40}: lint \(conclusion failure\)/);
    expect(s.fake.merges).toEqual([]);
  });

  it('a PR head that moved after the push: PR head changed to X; expected Y', async () => {
    const other = 'cd'.repeat(20);
    let initial: string | null = null;
    const s = await setup({
      prLink: link(PR),
      main: 'other-file',
      head: (live) => {
        initial ??= live;
        return live === initial ? live : other;
      },
    });
    const err = await refusal(s.run());
    expect(err.message).toBe(`PR head changed to ${other}; expected ${s.pushed()}`);
    expect(s.fake.merges).toEqual([]);
  });
});

describe('merge-with-reuse: preconditions, in order, with their messages', () => {
  it('a dirty work tree is refused first, before GitHub is asked anything', async () => {
    const s = await setup({ prLink: link(PR), main: 'none', pr: { headRepo: 'someone/InferenceX' } });
    writeFileSync(join(s.repo.work, 'stray.txt'), 'x');
    const err = await refusal(s.run());
    expect(err.message).toMatch(
      /^the work tree is not clean \(1 changed or untracked path\(s\): \?\? stray\.txt\)$/,
    );
    expect(s.fake.requests).toEqual([]);
    expect(s.fake.comments).toEqual([]);
  });

  const cases: [string, Setup, string][] = [
    [
      'a closed PR',
      { prLink: link(PR), main: 'none', pr: { state: 'closed' } },
      `PR #${PR} is not OPEN (it is closed)`,
    ],
    [
      'a fork (also two sweep labels: the fork is named first)',
      {
        prLink: link(PR),
        main: 'none',
        pr: { headRepo: 'someone/InferenceX', labels: ['full-sweep-enabled', 'sweep-enabled'] },
      },
      `PR #${PR} is from a fork; the merge helper cannot update its branch`,
    ],
    [
      'a deleted fork',
      { prLink: link(PR), main: 'none', pr: { headRepo: null } },
      `PR #${PR} is from a fork; the merge helper cannot update its branch`,
    ],
    [
      'two primary labels',
      { prLink: link(PR), main: 'none', pr: { labels: ['full-sweep-enabled', 'full-sweep-fail-fast'] } },
      `PR #${PR} must have exactly one sweep label`,
    ],
    [
      'no primary label',
      { prLink: link(PR), main: 'none', pr: { labels: ['all-evals'] } },
      `PR #${PR} must have exactly one sweep label`,
    ],
    [
      'sweep-enabled (also evals-only: the label kind is named first)',
      { prLink: link(PR), main: 'none', pr: { labels: ['sweep-enabled', 'evals-only'] } },
      `PR #${PR} must use a full-sweep label for artifact reuse`,
    ],
    [
      'evals-only and agentx-fast',
      { prLink: link(PR), main: 'none', pr: { labels: ['full-sweep-enabled', 'evals-only', 'agentx-fast'] } },
      `PR #${PR} uses agentx-fast, evals-only, which is not eligible for artifact reuse`,
    ],
  ];
  for (const [name, opts, message] of cases)
    it(`${name} is refused: ${message}`, async () => {
      const s = await setup(opts);
      const err = await refusal(s.run());
      expect(err.message).toBe(message);
      untouched(s);
      s.clean();
    });

  const noRun = `PR #${PR} has no successful reusable run-sweep.yml run on a current commit`;
  const runCases: [string, (r: PrRepo) => FakeRun[], RegExp][] = [
    ['no run at all', () => [], /0 successful pull_request run\(s\) of run-sweep\.yml on pr-branch/],
    [
      'a run only on a commit no longer in the PR',
      () => [{ id: 31, headSha: STALE, artifacts: [{ name: 'results_bmk', expired: false }] }],
      /run 31 is on abababababab, no longer a commit of the PR/,
    ],
    [
      'an expired artifact',
      (r) => [{ id: 32, headSha: r.head, artifacts: [{ name: 'eval_results_all', expired: true }] }],
      /run 32's result artifacts have expired \(eval_results_all\)/,
    ],
    [
      'a failed run (GitHub lists successful ones only) and a push run',
      (r) => [
        {
          id: 33,
          headSha: r.head,
          conclusion: 'failure',
          artifacts: [{ name: 'results_bmk', expired: false }],
        },
        { id: 34, headSha: r.head, event: 'push', artifacts: [{ name: 'results_bmk', expired: false }] },
      ],
      /^0 successful pull_request run/,
    ],
  ];
  for (const [name, runs, hint] of runCases)
    it(`${name}: ${noRun}`, async () => {
      const s = await setup({ prLink: link(PR), main: 'none', runs });
      const err = await refusal(s.run({ dryRun: true }));
      expect(err.message).toBe(noRun);
      expect(err.hint).toMatch(hint);
      untouched(s);
    });

  it('a --base-branch the PR does not merge into is refused after the preconditions', async () => {
    const s = await setup({ prLink: link(PR), main: 'none' });
    const err = await refusal(s.run({ baseBranch: 'release' }));
    expect(err.message).toBe(`PR #${PR} merges into main, not --base-branch release`);
    untouched(s);
  });

  it('no token: an error naming GITHUB_TOKEN and GH_TOKEN, before anything is asked', async () => {
    const s = await setup({ prLink: link(PR), main: 'none' });
    const err = await refusal(s.run({ env: {} }));
    expect(err.message).toContain('GITHUB_TOKEN');
    expect(err.message).toContain('GH_TOKEN');
    expect(s.fake.requests).toEqual([]);
    const bad = await refusal(s.run({ env: { GH_TOKEN: 'wrong' } }));
    expect(bad.message).toBe(`GET /repos/${REPO}/pulls/${PR} failed: 401 Unauthorized: Bad credentials`);
  });

  it('reads the changelog file it was given (an unknown one is a clear error after the merge)', async () => {
    const s = await setup({ prLink: link(PR), main: 'other-file' });
    const err = await refusal(s.run({ changelogFile: 'missing.yaml' }));
    expect(err.message).toContain('missing.yaml');
    expect(s.pushed()).toBe(s.repo.head);
    s.clean();
    expect(readFileSync(join(s.repo.work, FILE), 'utf8')).toBe(BASE_LOG);
  });
});
