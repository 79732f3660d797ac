import { readFileSync } from 'node:fs';
import { sign } from '@octokit/webhooks-methods';
import { type FakePull, REPO } from './fake-github-app.ts';

/**
 * Webhook deliveries as GitHub sends them: headers and the raw body, signed with the secret over the exact
 * bytes (never re-serialized after signing). Payloads carry the fields GitHub's have, trimmed to those a
 * pull-request bot reads plus a few it must ignore.
 */

export const SECRET = 'infx-test-webhook-secret';

export interface Delivery {
  headers: Record<string, string>;
  rawBody: string;
}

let seq = 0;
const guid = () => `0000${(++seq).toString(16)}-9f1c-11ef-8a1b-${Date.now().toString(16).padStart(12, '0')}`;

const repository = {
  id: 1296269,
  name: REPO.split('/')[1],
  full_name: REPO,
  private: false,
  owner: { login: REPO.split('/')[0], id: 1, type: 'Organization' },
  default_branch: 'main',
};

export function pullRequestJson(p: FakePull) {
  return {
    url: `https://api.github.com/repos/${REPO}/pulls/${p.number}`,
    id: 100000 + p.number,
    number: p.number,
    state: p.state,
    draft: p.draft,
    title: `Bench change ${p.number}`,
    user: { login: p.user, type: 'User' },
    labels: p.labels.map((name, i) => ({ id: i + 1, name, color: 'ededed' })),
    head: { label: `x:${p.headRef}`, ref: p.headRef, sha: p.headSha, repo: { full_name: p.headRepo } },
    base: { label: 'acme:main', ref: p.baseRef, sha: p.baseSha, repo: { full_name: REPO } },
    html_url: `https://github.com/${REPO}/pull/${p.number}`,
  };
}

export async function delivery(
  event: string,
  payload: unknown,
  opts: { secret?: string; id?: string } = {},
): Promise<Delivery> {
  const rawBody = JSON.stringify(payload);
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/5f0b5e8',
      'x-github-event': event,
      'x-github-delivery': opts.id ?? guid(),
      'x-github-hook-id': '511086478',
      'x-hub-signature-256': await sign(opts.secret ?? SECRET, rawBody),
    },
    rawBody,
  };
}

export const prEvent = (action: string, p: FakePull, extra: Record<string, unknown> = {}) =>
  delivery('pull_request', {
    action,
    number: p.number,
    pull_request: pullRequestJson(p),
    repository,
    installation: { id: 42 },
    sender: { login: p.user, type: 'User' },
    ...extra,
  });

export const commentEvent = (
  p: FakePull,
  c: { body: string; login: string; association: string; action?: string; id?: number; type?: string },
) =>
  delivery('issue_comment', {
    action: c.action ?? 'created',
    issue: {
      number: p.number,
      state: p.state,
      pull_request: { url: `https://api.github.com/repos/${REPO}/pulls/${p.number}` },
    },
    comment: {
      id: c.id ?? 7000 + seq,
      body: c.body,
      user: { login: c.login, type: c.type ?? 'User' },
      author_association: c.association,
      html_url: `https://github.com/${REPO}/pull/${p.number}#issuecomment-1`,
    },
    repository,
    installation: { id: 42 },
    sender: { login: c.login, type: c.type ?? 'User' },
  });

export const reviewEvent = (p: FakePull, r: { body: string; login: string; association: string }) =>
  delivery('pull_request_review', {
    action: 'submitted',
    review: {
      id: 9000 + seq,
      body: r.body,
      user: { login: r.login, type: 'User' },
      author_association: r.association,
      state: 'approved',
    },
    pull_request: pullRequestJson(p),
    repository,
    installation: { id: 42 },
    sender: { login: r.login, type: 'User' },
  });

/** A recorded delivery file: {headers, rawBody}, replayed byte for byte. */
export function recorded(file: string): Delivery {
  return JSON.parse(readFileSync(file, 'utf8')) as Delivery;
}

export async function post(
  url: string,
  d: Delivery,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.rawBody });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
