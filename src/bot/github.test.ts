import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { BotError } from './errors.ts';
import { apiBaseUrl, GitHub, githubToken, nextLink } from './github.ts';

/** The REST client against a real HTTP server on 127.0.0.1: pages, bounds, timeouts and its errors. */

type Handler = (req: IncomingMessage, res: ServerResponse, host: string) => void;
const closers: (() => void)[] = [];
afterAll(() => {
  for (const c of closers) c();
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => handler(req, res, `http://${req.headers.host}`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

async function failure(p: Promise<unknown>): Promise<BotError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BotError);
  return err as BotError;
}

const sha = (c: string) => c.repeat(40);

describe('GitHub REST client', () => {
  it('parses Link headers for rel="next" only', () => {
    expect(nextLink('<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"')).toBe(
      'https://a/x?page=2',
    );
    expect(nextLink('<https://a/x?page=1>; rel="prev", <https://a/x?page=1>; rel="first"')).toBeNull();
    expect(nextLink(null)).toBeNull();
  });

  it('takes the token from GITHUB_TOKEN, else GH_TOKEN, and names both when neither is set', () => {
    expect(githubToken({ GITHUB_TOKEN: 'a', GH_TOKEN: 'b' })).toBe('a');
    expect(githubToken({ GH_TOKEN: 'b' })).toBe('b');
    expect(() => githubToken({ GITHUB_TOKEN: ' ' })).toThrow(/GITHUB_TOKEN \(or GH_TOKEN\)/);
    expect(apiBaseUrl(undefined, {})).toBe('https://api.github.com');
    expect(apiBaseUrl(undefined, { GITHUB_API_URL: 'https://ghe.example/api/v3/' })).toBe(
      'https://ghe.example/api/v3',
    );
    expect(() => apiBaseUrl('ftp://x', {})).toThrow(/--api-url 'ftp:\/\/x' is not an http\(s\) URL/);
  });

  it('follows pages, sends the token and API version, and stops at the page bound', async () => {
    const seen: (string | undefined)[] = [];
    const url = await serve((req, res, host) => {
      seen.push(req.headers.authorization, req.headers['x-github-api-version'] as string);
      const page = Number(new URL(req.url ?? '', host).searchParams.get('page') ?? '1');
      json(res, 200, [{ sha: sha(String(page)) }], {
        link: `<${host}/repos/o/r/pulls/1/commits?per_page=100&page=${page + 1}>; rel="next"`,
      });
    });
    const gh = new GitHub('o/r', { apiUrl: url, token: 't', maxPages: 3 });
    const err = await failure(gh.pullCommits(1));
    expect(err.message).toBe('GET pulls/1/commits: more than 3 pages of results; refusing to read on');
    expect(seen.slice(0, 2)).toEqual(['Bearer t', '2022-11-28']);
    expect(seen).toHaveLength(6);
  });

  it('refuses a next page outside the API (the token is not sent there)', async () => {
    const url = await serve((_req, res) =>
      json(res, 200, [{ sha: sha('1') }], { link: '<http://elsewhere.example/x?page=2>; rel="next"' }),
    );
    const err = await failure(new GitHub('o/r', { apiUrl: url, token: 't' }).pullCommits(1));
    expect(err.message).toMatch(/next page http:\/\/elsewhere\.example\/x\?page=2 is outside/);
  });

  it("names the method, path, status and GitHub's message; a bad shape names the field", async () => {
    const url = await serve((req, res) =>
      req.url?.startsWith('/repos/o/r/pulls/404')
        ? json(res, 404, { message: 'Not Found', documentation_url: 'https://docs' })
        : json(res, 200, {
            number: 5,
            state: 'open',
            head: { ref: 'b', sha: 'nope', repo: null },
            base: { ref: 'main', repo: null },
            labels: [],
          }),
    );
    const gh = new GitHub('o/r', { apiUrl: url, token: 't' });
    const missing = await failure(gh.pull(404));
    expect(missing.message).toBe('GET /repos/o/r/pulls/404 failed: 404 Not Found: Not Found');
    expect(missing.hint).toContain('o/r');
    const bad = await failure(gh.pull(5));
    expect(bad.message).toBe(
      "GET pulls/5: GitHub's response is not the expected shape (head.sha: a 40-hex commit SHA)",
    );
  });

  it('times out a request that never answers, and says so', async () => {
    const url = await serve(() => {});
    const err = await failure(new GitHub('o/r', { apiUrl: url, token: 't', timeoutMs: 50 }).pull(1));
    expect(err.message).toBe('GET /repos/o/r/pulls/1 timed out after 0.05 s');
  });

  it('a merge GitHub refuses is an error with its message; an accepted one gives the SHA', async () => {
    const bodies: unknown[] = [];
    const url = await serve((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      req.on('end', () => {
        bodies.push(JSON.parse(raw));
        if (req.url === '/repos/o/r/pulls/1/merge') json(res, 200, { sha: sha('e'), merged: true });
        else json(res, 405, { message: 'Pull Request is not mergeable' });
      });
    });
    const gh = new GitHub('o/r', { apiUrl: url, token: 't' });
    expect((await gh.squashMerge(1, sha('a'))).sha).toBe(sha('e'));
    expect(bodies[0]).toEqual({ merge_method: 'squash', sha: sha('a') });
    const err = await failure(gh.squashMerge(2, sha('a')));
    expect(err.message).toBe(
      'PUT /repos/o/r/pulls/2/merge failed: 405 Method Not Allowed: Pull Request is not mergeable',
    );
  });
});
