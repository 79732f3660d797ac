import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import type { RunProvenance } from '../schema/run-dir.ts';
import { SweepPlanError } from './points.ts';

/**
 * Where a sweep runs, recorded in its manifest so that reuse and staging can be decided from the store
 * (changelog-pr-spec §5.5, §6). Under GitHub Actions it comes from the runner's environment and the event
 * payload (a pull request's head commit is the payload's `pull_request.head.sha`: GITHUB_SHA is the merge
 * commit GitHub made); anywhere else the run is `local`, with the work tree's commit when there is one.
 */

/** GitHub's webhook payloads are at most 25 MB. */
const MAX_EVENT_BYTES = 25 * 1024 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

const orNull = (v: string | undefined) => (v === undefined || v === '' ? null : v);

function localCommit(cwd: string): string | null {
  const r = spawnSync('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() || null : null;
}

interface PullRequestPayload {
  number?: unknown;
  head?: { sha?: unknown; ref?: unknown };
  labels?: { name?: unknown }[];
}

function eventPayload(path: string): { pull_request?: PullRequestPayload } {
  let text: string;
  try {
    if (statSync(path).size > MAX_EVENT_BYTES)
      throw new Error(`larger than ${MAX_EVENT_BYTES / 1024 / 1024} MB: not a GitHub event payload`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SweepPlanError(`GITHUB_EVENT_PATH ${path}: ${(err as Error).message}`);
  }
  try {
    const json: unknown = JSON.parse(text);
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      throw new Error('not a JSON object');
    return json as { pull_request?: PullRequestPayload };
  } catch (err) {
    throw new SweepPlanError(
      `GITHUB_EVENT_PATH ${path} is not the event's JSON payload (${(err as Error).message}): ` +
        "the run's pull request and head commit cannot be recorded",
    );
  }
}

/** `owner/repo/.github/workflows/run-sweep.yml@refs/heads/main` → `.github/workflows/run-sweep.yml`. */
function workflowPath(ref: string | undefined): string | null {
  const m = /^[^/]+\/[^/]+\/(.+?)@/.exec(ref ?? '');
  return m?.[1] ?? null;
}

export function runProvenance(env: Env = process.env, cwd = process.cwd()): RunProvenance {
  if (env.GITHUB_ACTIONS !== 'true') {
    return {
      event: 'local',
      prNumber: null,
      headSha: localCommit(cwd),
      headBranch: null,
      workflow: null,
      ciRunId: null,
      ciRunAttempt: null,
      runUrl: null,
      labels: null,
    };
  }
  const pr = env.GITHUB_EVENT_PATH ? eventPayload(env.GITHUB_EVENT_PATH).pull_request : undefined;
  const prNumber =
    typeof pr?.number === 'number' && Number.isInteger(pr.number) && pr.number > 0 ? pr.number : null;
  const headSha = typeof pr?.head?.sha === 'string' ? pr.head.sha : orNull(env.GITHUB_SHA);
  const headBranch =
    typeof pr?.head?.ref === 'string' ? pr.head.ref : orNull(env.GITHUB_HEAD_REF ?? env.GITHUB_REF_NAME);
  const labels = Array.isArray(pr?.labels)
    ? pr.labels.flatMap((l) => (typeof l?.name === 'string' ? [l.name] : []))
    : null;
  const runId = orNull(env.GITHUB_RUN_ID);
  const attempt = Number(env.GITHUB_RUN_ATTEMPT);
  const server = orNull(env.GITHUB_SERVER_URL);
  const repo = orNull(env.GITHUB_REPOSITORY);
  return {
    event: orNull(env.GITHUB_EVENT_NAME) ?? 'unknown',
    prNumber,
    headSha,
    headBranch,
    workflow: workflowPath(env.GITHUB_WORKFLOW_REF),
    ciRunId: runId,
    ciRunAttempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
    runUrl: runId && server && repo ? `${server}/${repo}/actions/runs/${runId}` : null,
    labels,
  };
}
