import type * as z from 'zod';
import {
  type Artifact,
  ArtifactsPageSchema,
  type CheckRun,
  CheckRunsPageSchema,
  GitHubErrorBodySchema,
  type IssueComment,
  IssueCommentSchema,
  type MergeResult,
  MergeResultSchema,
  type PullCommit,
  PullCommitSchema,
  type PullRequest,
  PullRequestSchema,
  type WorkflowRun,
  WorkflowRunsPageSchema,
} from '../schema/github.ts';
import { BotError } from './errors.ts';

/**
 * A small client of GitHub's REST API on the global `fetch`: the handful of endpoints the merge-with-reuse
 * flow calls, each response parsed by its schema (src/schema/github.ts). Lists follow `Link: rel="next"`
 * for a bounded number of pages, and only on the API's own origin (the token is never sent elsewhere);
 * every call has a timeout; every error names the method, the path, the status and GitHub's message.
 */

export const DEFAULT_API_URL = 'https://api.github.com';
const API_VERSION = '2022-11-28';

export interface GitHubOptions {
  /** `--api-url`, else `$GITHUB_API_URL`, else https://api.github.com. */
  apiUrl?: string | undefined;
  /** The token; by default `$GITHUB_TOKEN`, else `$GH_TOKEN`. */
  token?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  /** One request's limit (default 30 s). */
  timeoutMs?: number;
  /** The most pages one list reads (default 10, at 100 items a page). */
  maxPages?: number;
}

/** The token from the environment, or an error that names both variables. */
export function githubToken(env: Readonly<Record<string, string | undefined>>): string {
  const token = env.GITHUB_TOKEN?.trim() || env.GH_TOKEN?.trim();
  if (!token)
    throw new BotError(
      'no GitHub token: set GITHUB_TOKEN (or GH_TOKEN) to a token that may comment on, push to and merge the PR',
      'e.g. export GITHUB_TOKEN=$(gh auth token)',
    );
  return token;
}

/** The API's base URL, without a trailing slash; a clear error when it is not an http(s) URL. */
export function apiBaseUrl(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const raw = flag ?? (env.GITHUB_API_URL?.trim() || DEFAULT_API_URL);
  const where = flag !== undefined ? '--api-url' : env.GITHUB_API_URL ? '$GITHUB_API_URL' : 'the default';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BotError(`${where} '${raw}' is not a URL: give e.g. https://api.github.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new BotError(`${where} '${raw}' is not an http(s) URL: give e.g. https://api.github.com`);
  return url.href.replace(/\/+$/, '');
}

/** The URL of Link's rel="next", or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const m = /^\s*<([^>]+)>\s*;(.*)$/.exec(part);
    if (m && /\brel="?([^"]*\s)?next(\s[^"]*)?"?/.test(m[2] as string)) return m[1] as string;
  }
  return null;
}

type Query = Record<string, string | number>;

export class GitHub {
  readonly repo: string;
  readonly apiUrl: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly maxPages: number;

  constructor(repo: string, opts: GitHubOptions = {}) {
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo))
      throw new BotError(`repository '${repo}' is not owner/name (e.g. SemiAnalysisAI/InferenceX)`);
    const env = opts.env ?? process.env;
    this.repo = repo;
    this.apiUrl = apiBaseUrl(opts.apiUrl, env);
    this.token = opts.token ?? githubToken(env);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxPages = opts.maxPages ?? 10;
  }

  private url(path: string, query: Query = {}): string {
    const q = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return `${this.apiUrl}/repos/${this.repo}/${path}${q ? `?${q}` : ''}`;
  }

  /** One request: its parsed JSON and Link header; an error naming method, path, status and message. */
  private async send(
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ data: unknown; link: string | null }> {
    const what = `${method} ${url.startsWith(this.apiUrl) ? url.slice(this.apiUrl.length) : url}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${this.token}`,
          'user-agent': 'infx',
          'x-github-api-version': API_VERSION,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const e = err as Error;
      if (e.name === 'TimeoutError' || e.name === 'AbortError')
        throw new BotError(`${what} timed out after ${this.timeoutMs / 1000} s`);
      const cause = (e.cause as Error | undefined)?.message ?? e.message;
      throw new BotError(`${what} failed: ${cause}`, `is the API at ${this.apiUrl} reachable? (--api-url)`);
    }
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch {
      if (res.ok) throw new BotError(`${what}: ${res.status} with a body that is not JSON`);
    }
    if (!res.ok) {
      const parsed = GitHubErrorBodySchema.safeParse(data);
      const message = parsed.success ? parsed.data.message : text.slice(0, 200) || res.statusText;
      throw new BotError(
        `${what} failed: ${res.status} ${res.statusText}: ${message}`,
        res.status === 401
          ? 'the token was refused: check GITHUB_TOKEN / GH_TOKEN'
          : res.status === 403 || res.status === 404
            ? `does the token have access to ${this.repo}?`
            : undefined,
      );
    }
    return { data, link: res.headers.get('link') };
  }

  private parse<T>(what: string, schema: z.ZodType<T>, data: unknown): T {
    const r = schema.safeParse(data);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new BotError(
        `${what}: GitHub's response is not the expected shape (${issue?.path.join('.') || 'body'}: ${issue?.message})`,
      );
    }
    return r.data;
  }

  private async one<T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
    const { data } = await this.send(method, this.url(path), body);
    return this.parse(`${method} ${path}`, schema, data);
  }

  /** Every item of a paged list (at most maxPages pages), `items` taking the list out of a page. */
  private async list<P, T>(
    path: string,
    query: Query,
    schema: z.ZodType<P>,
    items: (page: P) => T[],
  ): Promise<T[]> {
    const out: T[] = [];
    let url: string | null = this.url(path, { per_page: 100, ...query });
    for (let page = 0; url !== null; page++) {
      if (page === this.maxPages)
        throw new BotError(`GET ${path}: more than ${this.maxPages} pages of results; refusing to read on`);
      if (!url.startsWith(`${this.apiUrl}/`))
        throw new BotError(`GET ${path}: GitHub's next page ${url} is outside ${this.apiUrl}; refusing it`);
      const { data, link } = await this.send('GET', url);
      out.push(...items(this.parse(`GET ${path}`, schema, data)));
      url = nextLink(link);
    }
    return out;
  }

  pull(pr: number): Promise<PullRequest> {
    return this.one('GET', `pulls/${pr}`, PullRequestSchema);
  }

  pullCommits(pr: number): Promise<PullCommit[]> {
    return this.list(`pulls/${pr}/commits`, {}, PullCommitSchema.array(), (p) => p);
  }

  /** Successful pull_request runs of a workflow file on a branch, newest first (GitHub's order). */
  successfulPrRuns(workflowFile: string, branch: string): Promise<WorkflowRun[]> {
    return this.list(
      `actions/workflows/${encodeURIComponent(workflowFile)}/runs`,
      { event: 'pull_request', branch, status: 'success' },
      WorkflowRunsPageSchema,
      (p) => p.workflow_runs,
    );
  }

  runArtifacts(runId: number): Promise<Artifact[]> {
    return this.list(`actions/runs/${runId}/artifacts`, {}, ArtifactsPageSchema, (p) => p.artifacts);
  }

  comment(pr: number, body: string): Promise<IssueComment> {
    return this.one('POST', `issues/${pr}/comments`, IssueCommentSchema, { body });
  }

  /** The check runs of a commit, or only those named `name`. */
  checkRuns(sha: string, name?: string): Promise<CheckRun[]> {
    return this.list(
      `commits/${sha}/check-runs`,
      name === undefined ? {} : { check_name: name },
      CheckRunsPageSchema,
      (p) => p.check_runs,
    );
  }

  /** Squash-merges the PR if its head is still `sha`; the merge commit's SHA. */
  async squashMerge(pr: number, sha: string): Promise<MergeResult> {
    const r = await this.one('PUT', `pulls/${pr}/merge`, MergeResultSchema, { merge_method: 'squash', sha });
    if (!r.merged)
      throw new BotError(`PUT pulls/${pr}/merge: GitHub did not merge: ${r.message ?? 'no reason given'}`);
    return r;
  }
}
