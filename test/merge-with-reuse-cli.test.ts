import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { type FakeGitHub, startFakeGitHub, TOKEN } from './support/fake-github.ts';
import { HEAD_REF, makePrRepo, PR } from './support/git-pr.ts';

/**
 * `infx changelog merge-with-reuse` through bin/infx.js (run `npm run build` first): flag errors exit 2,
 * a refused precondition exits 1 with its message, and --dry-run prints the plan on stdout with progress
 * on stderr. The child is spawned asynchronously so the fake GitHub in this process can answer it.
 */

const servers: FakeGitHub[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

function infx(cwd: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'bin/infx.js'), 'changelog', 'merge-with-reuse', ...args],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function setup(labels: string[], headRepo = 'SemiAnalysisAI/InferenceX') {
  const repo = makePrRepo(tmpDir('infx-mwr-cli-'), { prLink: 'XXX', main: 'changelog' });
  const fake = await startFakeGitHub({
    repo: 'SemiAnalysisAI/InferenceX',
    bare: repo.bare,
    baseBranch: 'main',
    pr: { number: PR, state: 'open', headRef: HEAD_REF, headRepo, labels },
    runs: [{ id: 7, headSha: repo.head, artifacts: [{ name: 'results_bmk', expired: false }] }],
    checks: () => [],
  });
  servers.push(fake);
  return { repo, fake };
}

describe('infx changelog merge-with-reuse (bin/infx.js)', () => {
  it('flag errors exit 2 and say which flag', async () => {
    const dir = tmpDir('infx-mwr-flags-');
    const cases: [string[], RegExp][] = [
      [[], /required option '--pr <number>' not specified/],
      [['--pr', 'abc'], /--pr 'abc' is not a PR number/],
      [['--pr', '1', '--repo', 'no-slash'], /--repo 'no-slash' is not owner\/name/],
      [['--pr', '1', '--poll-interval', '0'], /must be a number above 0/],
      [['--pr', '1', '--check-timeout', 'soon'], /must be a number above 0/],
    ];
    for (const [args, message] of cases) {
      const r = await infx(dir, args, { GITHUB_TOKEN: TOKEN });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });

  it('a refused precondition exits 1 with its message; nothing is posted', async () => {
    const { repo, fake } = await setup(['full-sweep-fail-fast'], 'someone/InferenceX');
    const r = await infx(repo.work, ['--pr', String(PR), '--api-url', fake.url], { GITHUB_TOKEN: TOKEN });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: PR #${PR} is from a fork; the merge helper cannot update its branch\n`,
    );
    expect(r.stderr).toContain('merge-with-reuse: checking PR #42 of SemiAnalysisAI/InferenceX\n');
    expect(fake.comments).toEqual([]);

    const noToken = await infx(repo.work, ['--pr', String(PR), '--api-url', fake.url]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/GITHUB_TOKEN \(or GH_TOKEN\)/);
  });

  it('--dry-run prints the plan on stdout (GITHUB_API_URL and GH_TOKEN from the environment)', async () => {
    const { repo, fake } = await setup(['full-sweep-enabled']);
    const r = await infx(repo.work, ['--pr', String(PR), '--dry-run'], {
      GH_TOKEN: TOKEN,
      GITHUB_API_URL: fake.url,
    });
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      `would post '/reuse-sweep-run' on PR #${PR} of SemiAnalysisAI/InferenceX`,
    );
    expect(r.stdout).toContain('would squash-merge PR #42; main reuses run 7');
    expect(fake.comments).toEqual([]);
    expect(fake.merges).toEqual([]);
  });
});
