import { createVerify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small, stateful fake of the GitHub REST endpoints `infx bot serve` uses, on 127.0.0.1: pull requests
 * (their commits, files, labels, label events), issue comments, commit statuses, check runs, contents,
 * collaborator permissions, team members, and App installation tokens (the JWT's RS256 signature checked
 * against the test's public key). Every call is recorded; ids are sequential, so runs are deterministic.
 */

export interface FakePull {
  number: number;
  state: 'open' | 'closed';
  draft: boolean;
  user: string;
  headSha: string;
  headRef: string;
  headRepo: string;
  baseSha: string;
  baseRef: string;
  labels: string[];
  commits: string[];
  files: string[];
}

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | null;
  auth: string | null;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: string;
}

export interface FakeGitHubApp {
  url: string;
  calls: Call[];
  pulls: Map<number, FakePull>;
  comments: FakeComment[];
  statuses: { sha: string; state: string; context: string; description: string }[];
  checkRuns: Map<number, Record<string, unknown> & { annotations: Record<string, unknown>[] }>;
  labelEvents: Map<number, { label: string; actor: string }[]>;
  permissions: Map<string, string>;
  /** `${ref}:${path}` → text. */
  contents: Map<string, string>;
  teams: Map<string, string[]>;
  /** Writes only (POST, PATCH, PUT, DELETE), as `METHOD path`. */
  writes(): string[];
  close(): Promise<void>;
}

export const REPO = 'acme/bench';
export const BOT_LOGIN = 'infx-bot[bot]';

export async function startFakeGitHubApp(
  opts: { publicKey?: string; installationId?: number } = {},
): Promise<FakeGitHubApp> {
  const fake = {
    calls: [] as Call[],
    pulls: new Map<number, FakePull>(),
    comments: [] as FakeComment[],
    statuses: [] as FakeGitHubApp['statuses'],
    checkRuns: new Map() as FakeGitHubApp['checkRuns'],
    labelEvents: new Map() as FakeGitHubApp['labelEvents'],
    permissions: new Map<string, string>(),
    contents: new Map<string, string>(),
    teams: new Map<string, string[]>(),
  };
  let nextId = 1000;
  const pullJson = (p: FakePull) => ({
    number: p.number,
    state: p.state,
    draft: p.draft,
    user: { login: p.user },
    labels: p.labels.map((name) => ({ name })),
    head: { sha: p.headSha, ref: p.headRef, repo: { full_name: p.headRepo } },
    base: { sha: p.baseSha, ref: p.baseRef, repo: { full_name: REPO } },
    html_url: `https://github.com/${REPO}/pull/${p.number}`,
  });
  const verifyJwt = (auth: string | null): boolean => {
    if (!opts.publicKey) return true;
    const jwt = auth?.replace(/^bearer /i, '') ?? '';
    const [h, p, sig] = jwt.split('.');
    if (!h || !p || !sig) return false;
    return createVerify('RSA-SHA256')
      .update(`${h}.${p}`)
      .verify(opts.publicKey, Buffer.from(sig, 'base64url'));
  };

  type Handler = (m: RegExpExecArray, body: Record<string, unknown>, call: Call) => [number, unknown];
  const pull = (n: string) => fake.pulls.get(Number(n));
  const routes: [string, RegExp, Handler][] = [
    [
      'POST',
      /^\/app\/installations\/(\d+)\/access_tokens$/,
      (_m, _b, call) =>
        verifyJwt(call.auth)
          ? [
              201,
              { token: 'ghs_installation_token', expires_at: new Date(Date.now() + 3600_000).toISOString() },
            ]
          : [401, { message: 'A JSON web token could not be decoded' }],
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/installation$/,
      (_m, _b, call) =>
        verifyJwt(call.auth) ? [200, { id: opts.installationId ?? 42 }] : [401, { message: 'bad JWT' }],
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/,
      (m) => {
        const p = pull(m[1]!);
        return p ? [200, pullJson(p)] : [404, { message: 'Not Found' }];
      },
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)\/commits$/,
      (m) => [200, (pull(m[1]!)?.commits ?? []).map((sha) => ({ sha }))],
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)\/files$/,
      (m) => [200, (pull(m[1]!)?.files ?? []).map((filename) => ({ filename, status: 'modified' }))],
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels$/,
      (m) => [200, (pull(m[1]!)?.labels ?? []).map((name) => ({ name }))],
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/events$/,
      (m) => [
        200,
        (fake.labelEvents.get(Number(m[1])) ?? []).map((e, i) => ({
          id: i + 1,
          event: 'labeled',
          label: { name: e.label },
          actor: { login: e.actor },
        })),
      ],
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/,
      (m) => [
        200,
        fake.comments
          .filter((c) => c.issue === Number(m[1]))
          .map((c) => ({ id: c.id, body: c.body, user: { login: c.user } })),
      ],
    ],
    [
      'POST',
      /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/,
      (m, b) => {
        const c = { id: nextId++, issue: Number(m[1]), body: String(b.body), user: BOT_LOGIN };
        fake.comments.push(c);
        return [201, { id: c.id, body: c.body }];
      },
    ],
    [
      'PATCH',
      /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/,
      (m, b) => {
        const c = fake.comments.find((x) => x.id === Number(m[1]));
        if (!c) return [404, { message: 'Not Found' }];
        c.body = String(b.body);
        return [200, { id: c.id, body: c.body }];
      },
    ],
    [
      'POST',
      /^\/repos\/[^/]+\/[^/]+\/statuses\/([0-9a-f]{40})$/,
      (m, b) => {
        fake.statuses.push({
          sha: m[1]!,
          state: String(b.state),
          context: String(b.context),
          description: String(b.description ?? ''),
        });
        return [201, { id: nextId++ }];
      },
    ],
    [
      'POST',
      /^\/repos\/[^/]+\/[^/]+\/check-runs$/,
      (_m, b) => {
        const id = nextId++;
        fake.checkRuns.set(id, { ...b, id, annotations: [] });
        return [201, { id }];
      },
    ],
    [
      'PATCH',
      /^\/repos\/[^/]+\/[^/]+\/check-runs\/(\d+)$/,
      (m, b) => {
        const run = fake.checkRuns.get(Number(m[1]));
        if (!run) return [404, { message: 'Not Found' }];
        const output = b.output as { annotations?: Record<string, unknown>[] } | undefined;
        const annotations = output?.annotations ?? [];
        if (annotations.length > 50) return [422, { message: 'at most 50 annotations a request' }];
        Object.assign(run, b, { annotations: [...run.annotations, ...annotations] });
        return [200, { id: run.id }];
      },
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/collaborators\/([^/]+)\/permission$/,
      (m) => {
        const perm = fake.permissions.get(decodeURIComponent(m[1]!));
        return perm === undefined
          ? [404, { message: 'Not Found' }]
          : [200, { permission: perm, user: { login: m[1] } }];
      },
    ],
    [
      'GET',
      /^\/repos\/[^/]+\/[^/]+\/contents\/(.+)$/,
      (m, _b, call) => {
        const text = fake.contents.get(`${call.query.get('ref') ?? 'main'}:${decodeURIComponent(m[1]!)}`);
        return text === undefined
          ? [404, { message: 'Not Found' }]
          : [200, { type: 'file', encoding: 'base64', content: Buffer.from(text).toString('base64') }];
      },
    ],
    [
      'GET',
      /^\/orgs\/([^/]+)\/teams\/([^/]+)\/members$/,
      (m) => {
        const members = fake.teams.get(`${m[1]}/${m[2]}`);
        return members === undefined
          ? [404, { message: 'Not Found' }]
          : [200, members.map((login) => ({ login }))];
      },
    ],
  ];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      const call: Call = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body,
        auth: req.headers.authorization ?? null,
      };
      fake.calls.push(call);
      let status = 404;
      let out: unknown = { message: `fake GitHub has no ${call.method} ${call.path}` };
      for (const [method, re, handle] of routes) {
        const m = method === call.method ? re.exec(call.path) : null;
        if (m) {
          [status, out] = handle(m, body ?? {}, call);
          break;
        }
      }
      const json = JSON.stringify(out);
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(json),
      });
      res.end(json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...fake,
    url: `http://127.0.0.1:${port}`,
    writes: () => fake.calls.filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
