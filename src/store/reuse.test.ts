import { describe, expect, it } from 'vitest';
import type { StoredRun } from '../schema/store.ts';
import { parseCommitList, reuseChecks, reuseVerdict, runConclusion } from './reuse.ts';

/** §5.5's checks in order, fail closed, on stored runs made by hand; the commit-list formats. */

const HEAD = 'ab'.repeat(20);
const LABELS = { fullSweep: ['full-sweep-enabled'], incompatible: ['evals-only', 'agentx-fast'] };

const run = (
  over: Partial<StoredRun> = {},
  prov: Partial<NonNullable<StoredRun['provenance']>> = {},
): StoredRun => ({
  runId: 'r1',
  createdAt: '2026-01-01T00:00:00.000Z',
  infxVersion: '0',
  host: 'h',
  sourceKind: 'matrix',
  sourceFiles: [],
  executor: 'local',
  seed: 0,
  status: 'unofficial',
  ingestedAt: '2026-01-01T00:00:00.000Z',
  planned: 2,
  ingested: 2,
  failed: 0,
  missing: 0,
  engine: { kind: 'real', simulated: 0, real: 2 },
  sweepActive: false,
  provenance: {
    event: 'pull_request',
    prNumber: 7,
    headSha: HEAD,
    headBranch: 'b',
    workflow: '.github/workflows/run-sweep.yml',
    ciRunId: '1',
    ciRunAttempt: 1,
    runUrl: null,
    labels: ['full-sweep-enabled'],
    ...prov,
  },
  ...over,
});
const req = (pinned: boolean, commits = [HEAD]) => ({
  pr: 7,
  commits: new Set(commits),
  pinned,
  labels: LABELS,
});
const firstFailure = (r: StoredRun, pinned = true) => reuseChecks(r, req(pinned)).find((c) => !c.ok);

describe('reuse checks (changelog-pr-spec §5.5)', () => {
  it('passes a successful PR run on a PR commit with results', () => {
    expect(reuseChecks(run(), req(false)).every((c) => c.ok)).toBe(true);
  });

  it('names the first failing check, in the reference order, with its message', () => {
    expect(firstFailure(run({}, { event: 'push' }))?.message).toBe(
      'Reusable source run r1 is not a pull_request run (its event: push).',
    );
    expect(firstFailure(run({ provenance: null }))?.check).toBe('event');
    expect(firstFailure(run({}, { labels: ['full-sweep-enabled', 'evals-only'] }))?.message).toMatch(
      /reuse-incompatible label\(s\): evals-only/,
    );
    expect(firstFailure(run({}, { labels: null }))?.check).toBe('labels');
    expect(firstFailure(run({ sweepActive: true }))?.check).toBe('completed');
    expect(firstFailure(run({}, { workflow: '.github/workflows/e2e.yml' }))?.message).toBe(
      'Reusable source run r1 is from .github/workflows/e2e.yml, expected .github/workflows/run-sweep.yml.',
    );
    expect(firstFailure(run({}, { workflow: null }))).toBeUndefined();
    expect(firstFailure(run({}, { headSha: null }))?.message).toBe('Reusable source run r1 has no head_sha.');
    expect(firstFailure(run({ ingested: 0, failed: 2 }))?.check).toBe('results');
    // Two failures: the earlier check decides.
    expect(firstFailure(run({ sweepActive: true }, { event: 'push' }))?.check).toBe('event');
  });

  it('allows failed and cancelled runs only when pinned', () => {
    const failed = run({ failed: 1, ingested: 1 });
    const cancelled = run({ missing: 1, ingested: 1 });
    expect([runConclusion(failed), runConclusion(cancelled), runConclusion(run())]).toEqual([
      'failure',
      'cancelled',
      'success',
    ]);
    expect(firstFailure(failed, true)).toBeUndefined();
    expect(firstFailure(failed, false)?.message).toMatch(
      /^Reusable source run r1 has conclusion 'failure'; expected success\./,
    );
    expect(firstFailure(cancelled, false)?.check).toBe('conclusion');
  });

  it('unpinned: the newest passing run wins; none gives the pin hint', () => {
    const older = run({ runId: 'old' });
    const newer = run({ runId: 'new', failed: 1 });
    const v = reuseVerdict([newer, older], req(false));
    expect(v).toMatchObject({ runId: 'old', reusable: true, considered: 2 });
    expect(v.reason).toBe(`PR #7 approved reusable full sweep from latest run on ${HEAD}`);
    const none = reuseVerdict([newer], req(false));
    expect(none).toMatchObject({ runId: null, reusable: false, checks: [] });
    expect(none.reason).toMatch(/for any of its 1 commit\(s\).*infx reuse check RUN --pr 7/);
    expect(reuseVerdict([older], req(true, ['cd'.repeat(20)])).reason).toMatch(
      /is not in PR #7's commit list/,
    );
  });
});

describe('commit lists', () => {
  it('reads SHAs per line, gh pr view JSON and the REST API JSON', () => {
    const a = 'a'.repeat(40);
    const b = 'B'.repeat(40);
    expect(parseCommitList(`# PR 7\n${a}\n\n${b}  # head\n`)).toEqual({ commits: [a, b.toLowerCase()] });
    expect(parseCommitList(JSON.stringify({ commits: [{ oid: a }] }))).toEqual({ commits: [a] });
    expect(parseCommitList(JSON.stringify([{ sha: b }]))).toEqual({ commits: [b.toLowerCase()] });
  });

  it('refuses short SHAs and other JSON, naming the line or commit', () => {
    expect(parseCommitList('abc1234\n')).toEqual({
      problem: "line 1: 'abc1234' is not a full 40-hex commit SHA",
    });
    expect(parseCommitList('{"x": 1}')).toMatchObject({ problem: /without a commit list/ });
    expect(parseCommitList('[{"sha": "zz"}]')).toEqual({ problem: 'commit 1 has no 40-hex sha (or oid)' });
    expect(parseCommitList('{oops')).toMatchObject({ problem: /not valid JSON/ });
  });
});
