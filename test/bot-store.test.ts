import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChangelogEntrySchema } from '../src/schema/changelog-entry.ts';
import type { RunProvenance } from '../src/schema/run-dir.ts';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { runById } from '../src/store/queries.ts';
import { tmpDir } from './helpers.ts';
import { commentEvent, post } from './support/bot-deliveries.ts';
import { type BotProcess, botFiles, startBot } from './support/bot-process.ts';
import { type FakeGitHubApp, type FakePull, REPO, startFakeGitHubApp } from './support/fake-github-app.ts';
import { syntheticRow, writeSyntheticRun } from './support/synthetic.ts';

/**
 * `infx bot serve` with a results database: /reuse-sweep-run, /use and /stage-results answered from the
 * stored runs of the PR (and refused from outsiders without touching them), and a result-link comment for
 * each stored run of a PR, with its comparison against the published (official) frontier.
 */

const HEAD = 'feed'.padEnd(40, '0');
const OLD = 'dead'.padEnd(40, '0');
const row = syntheticRow();
const ok = { kind: 'ok' } as const;
const provenance = (over: Partial<RunProvenance> = {}): RunProvenance => ({
  event: 'pull_request',
  prNumber: 7,
  headSha: HEAD,
  headBranch: 'tune',
  workflow: '.github/workflows/run-sweep.yml',
  ciRunId: '5001',
  ciRunAttempt: 1,
  runUrl: `https://github.com/${REPO}/actions/runs/5001`,
  labels: ['full-sweep-fail-fast'],
  ...over,
});
const pull: FakePull = {
  number: 7,
  state: 'open',
  draft: false,
  user: 'dev',
  headSha: HEAD,
  headRef: 'tune',
  headRepo: REPO,
  baseSha: 'ba5e'.padEnd(40, '0'),
  baseRef: 'main',
  labels: ['full-sweep-fail-fast'],
  commits: [HEAD],
  files: [],
};

let gh: FakeGitHubApp;
let bot: BotProcess;
let db: string;

async function ingest(
  runId: string,
  conc: number[],
  opts: { provenance?: RunProvenance; status?: 'official'; tput?: number; at?: string },
) {
  const dir = writeSyntheticRun(
    tmpDir(),
    runId,
    conc.map((c) => ({
      row,
      conc: c,
      attempts: [opts.tput ? { kind: 'ok' as const, tput: opts.tput * Math.sqrt(c) } : ok],
    })),
    opts.at ?? '2026-11-30T00:00:00.000Z',
    {
      manifest: {
        ...(opts.provenance ? { provenance: opts.provenance } : {}),
        source: {
          kind: 'matrix',
          file: { path: 'cl.json', sha256: 'c'.repeat(64) },
          changelog: {
            base_ref: 'base',
            head_ref: 'head',
            entries: [
              ChangelogEntrySchema.parse({
                'config-keys': ['x-*'],
                description: ['x'],
                'pr-link': `https://github.com/${REPO}/pull/7`,
              }),
            ],
          },
        },
      },
    },
  );
  const store = await openStore(db);
  try {
    await ingestRunDir(store, dir, { status: opts.status ?? 'unofficial', actor: 'ci' });
  } finally {
    await store.close();
  }
}

async function statusOf(runId: string): Promise<string | undefined> {
  const store = await openStore(db);
  try {
    return (await runById(store, runId))?.status;
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  db = join(tmpDir('infx-bot-db-'), 'infx.db');
  await ingest('main-1', [1, 4, 16, 64], { status: 'official', tput: 100 });
  await ingest('pr7-a', [1, 4, 16, 64], { provenance: provenance() });
  // Newer, but on a commit the PR no longer has.
  await ingest('pr7-old', [1], { provenance: provenance({ headSha: OLD }), at: '2026-11-30T06:00:00.000Z' });
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
    '--db',
    db,
    '--repo',
    REPO,
    '--poll-interval',
    '1',
    '--announce-since',
    '2000-01-01T00:00:00Z',
    '--dashboard-url',
    'https://infx.example.org/',
  ]);
});
afterAll(async () => {
  await bot?.stop();
  await gh?.close();
});

const say = async (body: string, association: string, login = 'lead') => {
  const from = gh.comments.length;
  expect((await post(bot.hook, await commentEvent(pull, { body, login, association }))).status).toBe(202);
  await bot.settle();
  const replies = gh.comments.slice(from).filter((c) => c.issue === 7 && !c.body.includes('infx-results'));
  expect(replies).toHaveLength(1);
  return replies[0]!.body;
};

describe('infx bot serve: commands on stored runs', () => {
  beforeEach(() => {
    gh.pulls.set(7, { ...pull });
  });

  it('answers /reuse-sweep-run with the newest reusable run, and /use with a pinned run or why not', async () => {
    const unpinned = await say('/reuse-sweep-run', 'MEMBER');
    expect(unpinned).toContain('[run `pr7-a`](https://infx.example.org/runs/pr7-a) can stand in');
    expect(unpinned).toContain('infx reuse apply pr7-a --pr 7');
    // A run whose head is no longer a PR commit (rebased away) is not reusable.
    const old = await say('/use pr7-old', 'COLLABORATOR');
    expect(old).toContain('cannot stand in for the merge sweep');
    expect(old).toContain("is not in PR #7's commit list");
    const unknown = await say('/use nope', 'OWNER');
    expect(unknown).toMatch(/^@lead .*nope/);
  });

  it('stages the newest stageable run for a member, and nothing for an outsider', async () => {
    expect(await say('/stage-results pr7-a', 'CONTRIBUTOR', 'visitor')).toContain(
      'owners, members and collaborators',
    );
    expect(await statusOf('pr7-a')).toBe('unofficial');
    const staged = await say('/stage-results', 'MEMBER');
    expect(staged).toContain('@lead staged [run `pr7-a`]');
    expect(staged).toContain('https://infx.example.org/?status=staged&run=pr7-a');
    expect(await statusOf('pr7-a')).toBe('staged');
    // Not with a label that cannot be reused.
    gh.pulls.set(7, { ...pull, labels: ['sweep-enabled'] });
    expect(await say('/stage-results pr7-a', 'MEMBER')).toContain('nothing was staged');
  });
});

describe('infx bot serve: result links', () => {
  it('comments once per stored PR run with its dashboard links and the comparison with the published frontier', async () => {
    const deadline = Date.now() + 20_000;
    const results = () => gh.comments.filter((c) => c.body.includes('<!-- infx-results run='));
    while (results().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const byRun = new Map(results().map((c) => [/run=([^ ]+) -->/.exec(c.body)![1], c]));
    expect([...byRun.keys()].sort()).toEqual(['pr7-a', 'pr7-old']);
    const a = byRun.get('pr7-a')!;
    expect(a.issue).toBe(7);
    expect(a.body).toContain('- Performance: https://infx.example.org/?run=pr7-a');
    expect(a.body).toContain('- Accuracy: https://infx.example.org/evaluation?run=pr7-a');
    expect(a.body).toContain('4 of 4 points stored');
    expect(a.body).toContain('Performance vs the baseline frontier');
    expect(a.body).toMatch(/\| .* \|/);
    // Another look at the database: nothing new, nothing posted again.
    const before = gh.writes().length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(gh.writes().length).toBe(before);
    expect(results()).toHaveLength(2);
  });
});
