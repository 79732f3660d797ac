import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the few GitHub REST endpoints merge-with-reuse calls, as a real HTTP server on 127.0.0.1
 * (GitHub itself cannot run in a test). The pull request's state comes from the test's data; its head SHA
 * and commit list are read live from a bare git repository (the PR branch's ref and base..head), so a push
 * the flow makes is what the fake reports. Lists are paged two items at a time with Link headers; posted
 * comments and merge calls are recorded.
 */

export interface FakeRun {
  id: number;
  headSha: string;
  event?: string;
  conclusion?: string;
  path?: string;
  artifacts: { name: string; expired: boolean }[];
}

export interface FakeCheck {
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: string | null;
  started_at?: string;
}

export interface FakePr {
  number: number;
  state: 'open' | 'closed';
  merged?: boolean;
  headRef: string;
  /** The head repository's full name (a fork's differs from the base's); null when it was deleted. */
  headRepo: string | null;
  labels: string[];
}

export interface FakeState {
  repo: string;
  bare: string;
  baseBranch: string;
  pr: FakePr;
  runs: FakeRun[];
  /** The check runs of a commit (called on every request, so it may change over time). */
  checks: (sha: string) => FakeCheck[];
  /** What GET pulls/N reports as the head, given the live ref (default: the live ref). */
  head?: (live: string) => string;
}

export interface FakeGitHub {
  url: string;
  state: FakeState;
  comments: string[];
  merges: Record<string, unknown>[];
  /** Every request as `METHOD /path?query`. */
  requests: string[];
  close: () => Promise<void>;
}

export const TOKEN = 'test-token';
const PAGE = 2;
export const MERGE_SHA = 'aa'.repeat(20);

const gitOut = (bare: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', bare, ...args], { encoding: 'utf8' }).trim();

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function paged(req: IncomingMessage, res: ServerResponse, url: URL, items: unknown[], wrap?: string): void {
  const page = Number(url.searchParams.get('page') ?? '1');
  const slice = items.slice((page - 1) * PAGE, page * PAGE);
  const headers: Record<string, string> = {};
  if (page * PAGE < items.length) {
    const next = new URL(url.href);
    next.searchParams.set('page', String(page + 1));
    headers.link = `<http://${req.headers.host}${next.pathname}${next.search}>; rel="next", <http://${req.headers.host}${url.pathname}>; rel="first"`;
  }
  send(res, 200, wrap ? { total_count: items.length, [wrap]: slice } : slice, headers);
}

export async function startFakeGitHub(state: FakeState): Promise<FakeGitHub> {
  const comments: string[] = [];
  const merges: Record<string, unknown>[] = [];
  const requests: string[] = [];
  const liveHead = () => gitOut(state.bare, 'rev-parse', `refs/heads/${state.pr.headRef}`);
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString('utf8');
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      requests.push(`${req.method} ${url.pathname}${url.search}`);
      if (req.headers.authorization !== `Bearer ${TOKEN}`)
        return send(res, 401, { message: 'Bad credentials' });
      const prefix = `/repos/${state.repo}/`;
      if (!url.pathname.startsWith(prefix)) return send(res, 404, { message: 'Not Found' });
      const path = url.pathname.slice(prefix.length);
      const n = state.pr.number;
      const route = `${req.method} ${path}`;
      if (route === `GET pulls/${n}`) {
        const live = liveHead();
        return send(res, 200, {
          number: n,
          state: state.pr.state,
          merged: state.pr.merged ?? false,
          title: 'a PR',
          head: {
            ref: state.pr.headRef,
            sha: state.head ? state.head(live) : live,
            repo: state.pr.headRepo === null ? null : { full_name: state.pr.headRepo },
          },
          base: { ref: state.baseBranch, repo: { full_name: state.repo } },
          labels: state.pr.labels.map((name, i) => ({ id: i + 1, name })),
        });
      }
      if (route === `GET pulls/${n}/commits`) {
        const shas = gitOut(state.bare, 'rev-list', '--reverse', `${state.baseBranch}..${state.pr.headRef}`)
          .split('\n')
          .filter(Boolean);
        return paged(
          req,
          res,
          url,
          shas.map((sha) => ({ sha, commit: { message: '' } })),
        );
      }
      if (route === 'GET actions/workflows/run-sweep.yml/runs') {
        const q = url.searchParams;
        const runs = state.runs
          .map((r) => ({
            id: r.id,
            event: r.event ?? 'pull_request',
            status: 'completed',
            conclusion: r.conclusion ?? 'success',
            head_sha: r.headSha,
            head_branch: state.pr.headRef,
            path: r.path ?? '.github/workflows/run-sweep.yml',
          }))
          .filter(
            (r) =>
              (!q.has('event') || r.event === q.get('event')) &&
              (!q.has('branch') || r.head_branch === q.get('branch')) &&
              (!q.has('status') || r.conclusion === q.get('status')),
          );
        return paged(req, res, url, runs, 'workflow_runs');
      }
      const artifacts = /^actions\/runs\/(\d+)\/artifacts$/.exec(path);
      if (req.method === 'GET' && artifacts) {
        const run = state.runs.find((r) => r.id === Number(artifacts[1]));
        if (!run) return send(res, 404, { message: 'Not Found' });
        return paged(
          req,
          res,
          url,
          run.artifacts.map((a, i) => ({ id: i + 1, ...a })),
          'artifacts',
        );
      }
      if (route === `POST issues/${n}/comments`) {
        const body = (JSON.parse(raw) as { body: string }).body;
        comments.push(body);
        return send(res, 201, {
          id: comments.length,
          body,
          html_url: `https://github.com/x#${comments.length}`,
        });
      }
      const checks = /^commits\/([0-9a-f]{40})\/check-runs$/.exec(path);
      if (req.method === 'GET' && checks) {
        const name = url.searchParams.get('check_name');
        const all = state
          .checks(checks[1] as string)
          .map((c, i) => ({
            id: i + 1,
            name: c.name,
            status: c.status,
            conclusion: c.status === 'completed' ? (c.conclusion ?? 'success') : null,
            started_at: c.started_at ?? '2026-01-01T00:00:00Z',
            html_url: `https://github.com/${state.repo}/runs/${i + 1}`,
          }))
          .filter((c) => name === null || c.name === name);
        return paged(req, res, url, all, 'check_runs');
      }
      if (route === `PUT pulls/${n}/merge`) {
        const body = JSON.parse(raw) as Record<string, unknown>;
        merges.push(body);
        if (body.sha !== liveHead()) return send(res, 409, { message: 'Head branch was modified.' });
        return send(res, 200, { sha: MERGE_SHA, merged: true, message: 'Pull Request successfully merged' });
      }
      return send(res, 404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    comments,
    merges,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
