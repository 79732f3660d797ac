import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers.ts';
import {
  commentEvent,
  delivery,
  post,
  prEvent,
  recorded,
  reviewEvent,
  SECRET,
} from './support/bot-deliveries.ts';
import { type BotProcess, botFiles, startBot } from './support/bot-process.ts';
import { type FakeGitHubApp, type FakePull, REPO, startFakeGitHubApp } from './support/fake-github-app.ts';

/**
 * `infx bot serve` against a local fake of GitHub's REST API: recorded and freshly signed deliveries
 * replayed as GitHub sends them (headers and raw body), and what the bot then asks GitHub to do.
 */

const HEAD = 'c0ffee'.padEnd(40, '0');
const BASE = 'ba5e'.padEnd(40, '0');
const PHRASE = 'As a PR reviewer and CODEOWNER, I have reviewed this and have:';
const ITEMS = ['Verified the latest checklist.', 'Verified validation passed (linked).'];

let gh: FakeGitHubApp;
let bot: BotProcess;

const pull = (over: Partial<FakePull> = {}): FakePull => ({
  number: 7,
  state: 'open',
  draft: false,
  user: 'dev',
  headSha: HEAD,
  headRef: 'tune',
  headRepo: REPO,
  baseSha: BASE,
  baseRef: 'main',
  labels: [],
  commits: [HEAD],
  files: ['README.md'],
  ...over,
});

function reset(p: FakePull): void {
  gh.calls.length = 0;
  gh.comments.length = 0;
  gh.statuses.length = 0;
  gh.pulls.clear();
  gh.pulls.set(p.number, p);
}

beforeAll(async () => {
  gh = await startFakeGitHubApp();
  const f = botFiles();
  bot = await startBot([
    '--webhook-secret-file',
    f.secret,
    '--token-file',
    f.token,
    '--github-api-url',
    gh.url,
    '--state-dir',
    join(f.dir, 'state'),
    '--dashboard-url',
    'https://infx.example.org',
  ]);
});
afterAll(async () => {
  await bot?.stop();
  await gh?.close();
});

describe('infx bot serve: deliveries', () => {
  beforeEach(() => reset(pull()));

  it('refuses a missing or wrong signature with 401 and does nothing', async () => {
    const d = await prEvent('opened', pull());
    const unsigned = { ...d, headers: { ...d.headers } };
    delete unsigned.headers['x-hub-signature-256'];
    expect((await post(bot.hook, unsigned)).status).toBe(401);
    const wrong = await prEvent('opened', pull());
    const forged = {
      ...wrong,
      headers: {
        ...wrong.headers,
        'x-hub-signature-256': (await delivery('pull_request', {}, { secret: 'not-the-secret' })).headers[
          'x-hub-signature-256'
        ]!,
      },
    };
    const res = await post(bot.hook, forged);
    expect(res.status).toBe(401);
    expect(String(res.body.error)).toMatch(/signature/);
    // A body altered after signing: the same signature, other bytes.
    const altered = { ...d, rawBody: d.rawBody.replace('"opened"', '"closed"') };
    expect((await post(bot.hook, altered)).status).toBe(401);
    await bot.settle();
    expect(gh.calls).toEqual([]);
    expect((await bot.health()).refused).toBeGreaterThanOrEqual(3);
  });

  it('checks the signature on the raw bytes: a recorded delivery replays; re-serialized, it is refused', async () => {
    const d = recorded(join(REPO_ROOT, 'test/data/bot/pull_request.opened.json'));
    const reserialized = { ...d, rawBody: JSON.stringify(JSON.parse(d.rawBody)) };
    expect(reserialized.rawBody).not.toBe(d.rawBody);
    expect((await post(bot.hook, reserialized)).status).toBe(401);
    expect((await post(bot.hook, d)).status).toBe(202);
    await bot.settle();
    expect(gh.comments.filter((c) => c.body.includes('<!-- infx-welcome -->'))).toHaveLength(1);
  });

  it('ignores a replayed delivery id and posts the welcome once per PR, in English and Chinese', async () => {
    const d = await prEvent('opened', pull());
    expect((await post(bot.hook, d)).status).toBe(202);
    const again = await post(bot.hook, d);
    expect(again.status).toBe(200);
    expect(String(again.body.ignored)).toMatch(/already received/);
    // A new delivery for the same PR (reopened): the welcome is already there.
    expect((await post(bot.hook, await prEvent('reopened', pull()))).status).toBe(202);
    await bot.settle();
    const welcomes = gh.comments.filter((c) => c.body.includes('<!-- infx-welcome -->'));
    expect(welcomes).toHaveLength(1);
    expect(welcomes[0]!.body).toContain('full-sweep-fail-fast');
    expect(welcomes[0]!.body).toContain('中文');
    expect(welcomes[0]!.body).toContain('As a PR reviewer and CODEOWNER');
    expect(gh.writes().filter((w) => w.endsWith('/comments'))).toHaveLength(1);
  });

  it("handles one PR's deliveries one at a time: two at once still give one welcome", async () => {
    const [a, b] = await Promise.all([prEvent('opened', pull()), prEvent('ready_for_review', pull())]);
    const res = await Promise.all([post(bot.hook, a), post(bot.hook, b)]);
    expect(res.map((r) => r.status)).toEqual([202, 202]);
    await bot.settle();
    expect(gh.comments.filter((c) => c.body.includes('<!-- infx-welcome -->'))).toHaveLength(1);
  });

  it('refuses a body over 25 MB without reading it all', async () => {
    const big = await delivery('pull_request', { action: 'opened', pad: 'x'.repeat(26 * 1024 * 1024) });
    const res = await fetch(bot.hook, { method: 'POST', headers: big.headers, body: big.rawBody }).catch(
      (e: Error) => e,
    );
    // The bot answers 413 and drops the connection; the client may see either.
    if (!(res instanceof Error)) expect(res.status).toBe(413);
    expect((await bot.health()).ok).toBe(true);
  });

  it('answers ping and ignores events it does not act on, and refuses a payload without the fields it reads', async () => {
    expect((await post(bot.hook, await delivery('ping', { zen: 'Keep it logically awesome.' }))).status).toBe(
      200,
    );
    expect((await post(bot.hook, await delivery('star', { action: 'created' }))).status).toBe(202);
    const bad = await post(bot.hook, await delivery('pull_request', { action: 'opened', number: 7 }));
    expect(bad.status).toBe(422);
    expect(String(bad.body.error)).toContain('pull_request');
    await bot.settle();
    expect(gh.calls).toEqual([]);
  });
});

describe('infx bot serve: the sweep-label status', () => {
  const statusFor = async (p: FakePull, action = 'labeled') => {
    reset(p);
    expect((await post(bot.hook, await prEvent(action, p))).status).toBe(202);
    await bot.settle();
    const s = gh.statuses.filter((x) => x.context === 'infx/sweep-labels');
    expect(s).toHaveLength(1);
    expect(s[0]!.sha).toBe(HEAD);
    return s[0]!;
  };

  it('passes exactly one primary label, with or without modifiers, and no label at all', async () => {
    expect(await statusFor(pull({ labels: ['full-sweep-fail-fast'] }))).toMatchObject({ state: 'success' });
    const mod = await statusFor(pull({ labels: ['full-sweep-enabled', 'evals-only'] }));
    expect(mod.state).toBe('success');
    expect(mod.description).toContain('not reusable');
    expect((await statusFor(pull({ labels: ['documentation'] }), 'opened')).description).toMatch(
      /no sweep label/,
    );
  });

  it('fails two primary labels, and a modifier without a primary one', async () => {
    const two = await statusFor(pull({ labels: ['sweep-enabled', 'full-sweep-enabled'] }));
    expect(two).toMatchObject({
      state: 'failure',
      description: 'PR has multiple conflicting sweep labels. Pick exactly one.',
    });
    const alone = await statusFor(pull({ labels: ['all-evals'] }));
    expect(alone.state).toBe('failure');
    expect(alone.description).toMatch(/all-evals needs a primary sweep label/);
  });

  it('on a fork PR, passes a sweep label a maintainer applied and fails one anyone else applied', async () => {
    const fork = pull({ headRepo: 'stranger/bench', labels: ['full-sweep-fail-fast'] });
    gh.permissions.set('maint', 'write');
    gh.permissions.set('visitor', 'read');
    gh.labelEvents.set(7, [
      { label: 'full-sweep-fail-fast', actor: 'visitor' },
      { label: 'full-sweep-fail-fast', actor: 'maint' },
    ]);
    expect(await statusFor(fork)).toMatchObject({ state: 'success' });
    gh.labelEvents.set(7, [{ label: 'full-sweep-fail-fast', actor: 'visitor' }]);
    const bad = await statusFor(fork);
    expect(bad.state).toBe('failure');
    expect(bad.description).toMatch(/@visitor \(read permission\)/);
    gh.labelEvents.set(7, [{ label: 'full-sweep-fail-fast', actor: 'nobody' }]);
    expect((await statusFor(fork)).description).toMatch(/@nobody \(none permission\)/);
  });

  it("on a fork PR, a maintainer's label approves that head only: a push withdraws it until it is applied again", async () => {
    gh.permissions.set('maint', 'maintain');
    gh.labelEvents.set(12, [{ label: 'full-sweep-enabled', actor: 'maint' }]);
    const at = (headSha: string) =>
      pull({ number: 12, headSha, headRepo: 'stranger/bench', labels: ['full-sweep-enabled'] });
    const labeled = { label: { name: 'full-sweep-enabled' } };
    const first = 'a1'.padEnd(40, '0');
    const second = 'b2'.padEnd(40, '0');
    const statusOf = async (p: FakePull, action: string, extra = {}) => {
      reset(p);
      expect((await post(bot.hook, await prEvent(action, p, extra))).status).toBe(202);
      await bot.settle();
      return gh.statuses.find((s) => s.context === 'infx/sweep-labels')!;
    };
    expect((await statusOf(at(first), 'labeled', labeled)).state).toBe('success');
    const pushed = await statusOf(at(second), 'synchronize');
    expect(pushed).toMatchObject({ state: 'failure', sha: second });
    expect(pushed.description).toBe(
      'The PR advanced to b20000000000; remove and re-add the sweep label to approve the new revision.',
    );
    // Anything but a maintainer's label keeps it withdrawn.
    expect((await statusOf(at(second), 'edited')).state).toBe('failure');
    expect((await statusOf(at(second), 'labeled', labeled)).state).toBe('success');
  });
});

describe('infx bot serve: slash commands', () => {
  beforeEach(() => reset(pull({ labels: ['full-sweep-fail-fast'] })));
  const say = async (body: string, association: string, login = 'someone') => {
    expect((await post(bot.hook, await commentEvent(pull(), { body, login, association }))).status).toBe(202);
    await bot.settle();
  };

  it('refuses a command from anyone but an owner, member or collaborator, politely, and does nothing else', async () => {
    for (const [cmd, assoc] of [
      ['/stage-results', 'CONTRIBUTOR'],
      ['/reuse-sweep-run 123', 'NONE'],
      ['/use 123', 'FIRST_TIME_CONTRIBUTOR'],
    ] as const) {
      reset(pull({ labels: ['full-sweep-fail-fast'] }));
      await say(`please\n${cmd}\n`, assoc, 'visitor');
      expect(gh.writes()).toEqual([`POST /repos/${REPO}/issues/7/comments`]);
      expect(gh.calls.filter((c) => c.method === 'GET')).toEqual([]);
      const answer = gh.comments[0]!.body;
      expect(answer).toContain('@visitor thank you!');
      expect(answer).toContain(cmd.split(' ')[0]);
      expect(answer).toContain('owners, members and collaborators');
    }
  });

  it('answers a member with what it did, or how to write the command', async () => {
    await say('/use', 'MEMBER', 'lead');
    expect(gh.comments[0]!.body).toMatch(/^@lead Usage: `\/use <run-id>`/);
    reset(pull());
    // No results database behind this bot: it says so and changes nothing.
    await say('/stage-results', 'OWNER', 'lead');
    expect(gh.comments[0]!.body).toContain('without a results database');
    expect(gh.writes()).toEqual([`POST /repos/${REPO}/issues/7/comments`]);
  });

  it('does not take a command mentioned inside a sentence, quoted, or written by a bot', async () => {
    await say(
      'please run /reuse-sweep-run 111 after merge\n> /stage-results\n```\n/use 5\n```',
      'OWNER',
      'lead',
    );
    expect(
      (
        await post(
          bot.hook,
          await commentEvent(pull(), {
            body: '/stage-results',
            login: 'other[bot]',
            association: 'NONE',
            type: 'Bot',
          }),
        )
      ).status,
    ).toBe(202);
    // Its own welcome, which quotes the sign-off phrase, posted with a token (so by a user account).
    const welcome = gh.comments.length;
    expect((await post(bot.hook, await prEvent('opened', pull()))).status).toBe(202);
    await bot.settle();
    const own = gh.comments[welcome]!.body;
    gh.calls.length = 0;
    expect(
      (await post(bot.hook, await commentEvent(pull(), { body: own, login: 'lead', association: 'OWNER' })))
        .status,
    ).toBe(202);
    await bot.settle();
    expect(gh.calls).toEqual([]);
  });
});

describe('infx bot serve: a results database it cannot open', () => {
  it('says so on the PR without the reason, which can name the server and its credentials', async () => {
    const f = botFiles();
    const other = await startBot([
      ...['--webhook-secret-file', f.secret, '--token-file', f.token, '--github-api-url', gh.url],
      ...['--state-dir', join(f.dir, 'state'), '--db', 'postgres://infx:s3cretpw@127.0.0.1:9/nothing'],
    ]);
    try {
      reset(pull({ labels: ['full-sweep-fail-fast'] }));
      const d = await commentEvent(pull(), {
        body: '/reuse-sweep-run',
        login: 'lead',
        association: 'MEMBER',
      });
      expect((await post(other.hook, d)).status).toBe(202);
      await other.settle();
      const answer = gh.comments.at(-1)?.body ?? '';
      expect(answer).toContain('could not open its results database');
      expect(answer).not.toMatch(/s3cretpw|127\.0\.0\.1:9/);
    } finally {
      await other.stop();
    }
  });
});

describe('infx bot serve: sign-off verification', () => {
  const signoff = (signed: string) =>
    `${PHRASE}\n${ITEMS.map((i) => `- [x] ${i}`).join('\n')}\nhttps://github.com/${REPO}/actions/runs/12\n\nSigned: ${signed}\n`;
  beforeEach(() => {
    reset(pull({ files: ['configs/amd-master.yaml', 'perf-changelog.yaml'] }));
    gh.contents.set(
      'main:docs/PR_REVIEW_CHECKLIST.md',
      `## Template\n\`\`\`\n${PHRASE}\n${ITEMS.map((i) => `- [ ] ${i}`).join('\n')}\n\`\`\`\n`,
    );
    gh.contents.set('main:.github/CODEOWNERS', '* @acme/core\nconfigs/amd-master.yaml @amd-a\n');
    gh.teams.set('acme/core', ['core-1']);
  });
  const verdicts = () =>
    gh.comments.filter((c) => c.body.includes(`<!-- codeowner-signoff-verify sha=${HEAD} -->`));
  const status = () => gh.statuses.filter((s) => s.context === 'codeowner-signoff-verify');

  it('accepts a sign-off by the owner of the changed paths: one PASS verdict and a success status on the head', async () => {
    await post(
      bot.hook,
      await commentEvent(pull(), { body: signoff('amd-a'), login: 'amd-a', association: 'MEMBER' }),
    );
    await bot.settle();
    expect(verdicts()).toHaveLength(1);
    expect(verdicts()[0]!.body).toContain('**Verdict: PASS**');
    expect(status()).toEqual([
      {
        sha: HEAD,
        state: 'success',
        context: 'codeowner-signoff-verify',
        description: 'CODEOWNER sign-off independently verified',
      },
    ]);
    // Read from the base branch, never the PR's head.
    expect(gh.calls.filter((c) => c.path.includes('/contents/')).map((c) => c.query.get('ref'))).toEqual([
      'main',
      'main',
    ]);
  });

  it('rejects a sign-off by someone who owns no changed path, then edits the same verdict when it is fixed', async () => {
    await post(
      bot.hook,
      await reviewEvent(pull(), { body: signoff('core-1'), login: 'core-1', association: 'MEMBER' }),
    );
    await bot.settle();
    expect(verdicts()).toHaveLength(1);
    expect(verdicts()[0]!.body).toContain('**REJECTED**');
    expect(verdicts()[0]!.body).toContain('@core-1');
    expect(status().map((s) => [s.state, s.description])).toEqual([
      ['failure', 'Sign-off verification rejected - see verdict comment'],
    ]);
    await post(
      bot.hook,
      await commentEvent(pull(), { body: signoff('amd-a'), login: 'amd-a', association: 'MEMBER' }),
    );
    await bot.settle();
    expect(verdicts()).toHaveLength(1);
    expect(verdicts()[0]!.body).toContain('**Verdict: PASS**');
    expect(status().map((s) => s.state)).toEqual(['failure', 'success']);
  });

  it('rejects with the reason when the base branch has no checklist', async () => {
    gh.contents.delete('main:docs/PR_REVIEW_CHECKLIST.md');
    await post(
      bot.hook,
      await commentEvent(pull(), { body: signoff('amd-a'), login: 'amd-a', association: 'MEMBER' }),
    );
    await bot.settle();
    expect(verdicts()[0]!.body).toContain('docs/PR_REVIEW_CHECKLIST.md is not on main');
    expect(status()[0]!.state).toBe('failure');
  });

  it('leaves a draft PR alone', async () => {
    reset(pull({ draft: true, files: ['configs/amd-master.yaml'] }));
    await post(
      bot.hook,
      await commentEvent(pull({ draft: true }), {
        body: signoff('amd-a'),
        login: 'amd-a',
        association: 'MEMBER',
      }),
    );
    await bot.settle();
    expect(gh.writes()).toEqual([]);
  });
});

describe('infx bot serve: flags', () => {
  it('refuses to start without a way to authenticate, naming the flags', async () => {
    const f = botFiles();
    await expect(startBot(['--webhook-secret-file', f.secret])).rejects.toThrow(
      /--app-id N --private-key-file/,
    );
    await expect(
      startBot(['--webhook-secret-file', join(f.dir, 'missing'), '--token-file', f.token]),
    ).rejects.toThrow(/--webhook-secret-file .*missing: cannot read it/);
  });
  it('says so when its port is taken', async () => {
    const f = botFiles();
    const port = new URL(bot.url).port;
    await expect(
      startBot(['--webhook-secret-file', f.secret, '--token-file', f.token, '--port', port]),
    ).rejects.toThrow(new RegExp(`port ${port} on 127.0.0.1 is in use: give another --port`));
  });

  it('keeps SECRET out of what it prints', () => {
    expect(bot.stderr()).not.toContain(SECRET);
  });
});
