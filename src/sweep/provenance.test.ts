import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProvenance } from './provenance.ts';

/** Where a sweep runs: GitHub Actions' environment and event payload, or a local work tree. */

const dir = mkdtempSync(join(tmpdir(), 'infx-provenance-'));
const payload = (json: unknown) => {
  const path = join(dir, `event-${Math.random()}.json`);
  writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
  return path;
};
const actions = (over: Record<string, string> = {}) => ({
  GITHUB_ACTIONS: 'true',
  GITHUB_EVENT_NAME: 'pull_request',
  GITHUB_SHA: 'f'.repeat(40),
  GITHUB_WORKFLOW_REF: 'o/r/.github/workflows/run-sweep.yml@refs/pull/9/merge',
  GITHUB_RUN_ID: '77',
  GITHUB_RUN_ATTEMPT: '2',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'o/r',
  ...over,
});

describe('run provenance', () => {
  it("takes a pull request's number, head commit, branch and labels from the payload, not the merge SHA", () => {
    const event = payload({
      pull_request: {
        number: 9,
        head: { sha: 'a'.repeat(40), ref: 'feat' },
        labels: [{ name: 'full-sweep-enabled' }],
      },
    });
    expect(runProvenance(actions({ GITHUB_EVENT_PATH: event }), dir)).toEqual({
      event: 'pull_request',
      prNumber: 9,
      headSha: 'a'.repeat(40),
      headBranch: 'feat',
      workflow: '.github/workflows/run-sweep.yml',
      ciRunId: '77',
      ciRunAttempt: 2,
      runUrl: 'https://github.com/o/r/actions/runs/77',
      labels: ['full-sweep-enabled'],
    });
  });

  it('a push has no pull request: its commit is GITHUB_SHA and its labels unknown', () => {
    const p = runProvenance(
      actions({
        GITHUB_EVENT_NAME: 'push',
        GITHUB_REF_NAME: 'main',
        GITHUB_EVENT_PATH: payload({ ref: 'refs/heads/main' }),
      }),
      dir,
    );
    expect(p).toMatchObject({
      event: 'push',
      prNumber: null,
      headSha: 'f'.repeat(40),
      headBranch: 'main',
      labels: null,
    });
  });

  it('refuses a payload that is not the JSON object GitHub writes, naming the file', () => {
    const bad = payload('{"pull_request":');
    expect(() => runProvenance(actions({ GITHUB_EVENT_PATH: bad }), dir)).toThrow(
      new RegExp(`GITHUB_EVENT_PATH ${bad} is not the event's JSON payload`),
    );
    expect(() => runProvenance(actions({ GITHUB_EVENT_PATH: join(dir, 'missing.json') }), dir)).toThrow(
      /GITHUB_EVENT_PATH .*missing\.json: ENOENT/,
    );
  });

  it('outside GitHub Actions the run is local, with no commit outside a git work tree', () => {
    expect(runProvenance({}, dir)).toEqual({
      event: 'local',
      prNumber: null,
      headSha: null,
      headBranch: null,
      workflow: null,
      ciRunId: null,
      ciRunAttempt: null,
      runUrl: null,
      labels: null,
    });
  });
});
