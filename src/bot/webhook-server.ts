import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhooks } from '@octokit/webhooks';
import type * as z from 'zod';
import {
  type BotHealth,
  CheckRunEventSchema,
  IssueCommentEventSchema,
  PullRequestEventSchema,
  PullRequestReviewCommentEventSchema,
  PullRequestReviewEventSchema,
} from '../schema/github-webhooks.ts';
import type { BotConfig } from './bot-context.ts';
import { CHECK_NAME, runChangelogCheck } from './changelog-check.ts';
import { onIssueComment } from './comment-events.ts';
import { DeliveryLog } from './delivery-log.ts';
import { BotError } from './errors.ts';
import { repoOf } from './pr-comments.ts';
import { onPullRequest } from './pr-events.ts';
import { onReviewSignoff } from './signoff-events.ts';
import { KeyedQueue } from './work-queue.ts';

/**
 * `infx bot serve`'s HTTP side: GitHub's deliveries are POSTed to `path`; the signature
 * (X-Hub-Signature-256, HMAC-SHA256 of the raw body with the webhook secret) is checked by
 * @octokit/webhooks on the bytes as received (401 when it is missing or wrong), a replayed delivery id is
 * acknowledged and ignored, and an accepted delivery is answered 202 at once and handled in the
 * background, one at a time per pull request. `GET /healthz` tells what it has done.
 */

/** GitHub caps a delivery at 25 MB. */
const MAX_BODY = 25 * 1024 * 1024;
const KEEP_ERRORS = 20;

export interface BotServerOptions {
  config: BotConfig;
  secret: string;
  port: number;
  host: string;
  path: string;
  /** Seen delivery ids, kept across restarts; null: memory only. */
  deliveryLog: string | null;
}

export interface BotServer {
  url: string;
  health(): BotHealth;
  /** Resolves when every accepted delivery is handled. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const HANDLED = {
  pull_request: PullRequestEventSchema,
  issue_comment: IssueCommentEventSchema,
  pull_request_review: PullRequestReviewEventSchema,
  pull_request_review_comment: PullRequestReviewCommentEventSchema,
  check_run: CheckRunEventSchema,
} as const;
type HandledEvent = keyof typeof HANDLED;

function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const why: Record<string, string> = {
    EADDRINUSE: `port ${port} on ${host} is in use: give another --port (0: any free port)`,
    EACCES: `not allowed to listen on port ${port} (ports below 1024 need privileges): give --port 3000, say`,
    EADDRNOTAVAIL: `${host} is not an address of this machine: give --host 127.0.0.1 (or 0.0.0.0 for every interface)`,
  };
  const message = err.code === undefined ? undefined : why[err.code];
  return message === undefined ? err : new BotError(message);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The pull request a delivery is about: its queue key. */
function prKey(name: string, payload: Record<string, unknown>): string {
  const repo = (payload.repository as { full_name?: string } | undefined)?.full_name ?? '?';
  const n =
    (payload.pull_request as { number?: number } | undefined)?.number ??
    (payload.issue as { number?: number } | undefined)?.number ??
    (payload.check_run as { pull_requests?: { number?: number }[] } | undefined)?.pull_requests?.[0]?.number;
  return n === undefined ? `${repo}:${name}` : `${repo}#${n}`;
}

function registerHandlers(webhooks: Webhooks, cfg: BotConfig): void {
  const gh = (installation: { id: number } | undefined) => cfg.octokits.forInstallation(installation?.id);
  webhooks.on('pull_request', async ({ payload }) => {
    const ev = PullRequestEventSchema.parse(payload);
    await onPullRequest(gh(ev.installation), cfg, ev);
  });
  webhooks.on('issue_comment', async ({ payload }) => {
    const ev = IssueCommentEventSchema.parse(payload);
    await onIssueComment(gh(ev.installation), cfg, ev);
  });
  webhooks.on('pull_request_review', async ({ payload }) => {
    const ev = PullRequestReviewEventSchema.parse(payload);
    await onReviewSignoff(gh(ev.installation), cfg, { kind: 'review', event: ev });
  });
  webhooks.on('pull_request_review_comment', async ({ payload }) => {
    const ev = PullRequestReviewCommentEventSchema.parse(payload);
    await onReviewSignoff(gh(ev.installation), cfg, { kind: 'review-comment', event: ev });
  });
  webhooks.on('check_run.rerequested', async ({ payload }) => {
    const ev = CheckRunEventSchema.parse(payload);
    const pr = ev.check_run.pull_requests[0];
    if (ev.check_run.name !== CHECK_NAME || pr === undefined) return;
    const client = gh(ev.installation);
    const r = repoOf(ev.repository.full_name);
    const p = (await client.rest.pulls.get({ ...r, pull_number: pr.number })).data;
    await runChangelogCheck(
      client,
      cfg,
      { ...r, number: pr.number },
      { headSha: p.head.sha, baseSha: p.base.sha },
    );
  });
}

export async function startBotServer(opts: BotServerOptions): Promise<BotServer> {
  const webhooks = new Webhooks({ secret: opts.secret });
  registerHandlers(webhooks, opts.config);
  const log = new DeliveryLog(opts.deliveryLog);
  const queue = new KeyedQueue();
  const counts = { accepted: 0, replayed: 0, refused: 0, handled: 0, failed: 0 };
  const errors: BotHealth['errors'] = [];
  const refuse = (res: ServerResponse, status: number, error: string) => {
    counts.refused++;
    send(res, status, { error });
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://bot');
    if (req.method === 'GET' && url.pathname === '/healthz') return send(res, 200, health());
    if (url.pathname !== opts.path)
      return send(res, 404, { error: `no such path; deliveries go to ${opts.path}` });
    if (req.method !== 'POST') return send(res, 405, { error: 'deliveries are POSTed' });
    const body = await readBody(req).catch(() => null);
    if (body === null) return refuse(res, 413, `the body is over ${MAX_BODY} bytes or was cut off`);
    const raw = body.toString('utf8');
    const signature = req.headers['x-hub-signature-256'];
    const id = req.headers['x-github-delivery'];
    const name = req.headers['x-github-event'];
    if (typeof signature !== 'string' || !signature.startsWith('sha256='))
      return refuse(res, 401, 'no X-Hub-Signature-256 header: set the webhook secret on GitHub');
    let good = false;
    try {
      good = await webhooks.verify(raw, signature);
    } catch {
      good = false;
    }
    if (!good)
      return refuse(
        res,
        401,
        'the signature does not match the body (wrong secret, or the body was altered)',
      );
    if (
      typeof id !== 'string' ||
      !/^[\w-]{1,100}$/.test(id) ||
      typeof name !== 'string' ||
      !/^[a-z_]{1,64}$/.test(name)
    )
      return refuse(res, 400, 'X-GitHub-Delivery and X-GitHub-Event headers are required');
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(raw) as Record<string, unknown>;
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
        throw new Error('not an object');
    } catch (err) {
      return refuse(res, 400, `the body is not a JSON object: ${(err as Error).message}`);
    }
    if (name === 'ping') return send(res, 200, { ok: true, zen: (payload as { zen?: string }).zen ?? null });
    const schema: z.ZodType | undefined = HANDLED[name as HandledEvent];
    if (schema === undefined) return send(res, 202, { ignored: `the bot does not act on ${name} events` });
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(res, 422, `${name} payload: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
    }
    if (!log.admit(id)) {
      counts.replayed++;
      return send(res, 200, { ignored: `delivery ${id} was already received` });
    }
    counts.accepted++;
    send(res, 202, { accepted: id });
    queue.push(prKey(name, payload), async () => {
      try {
        await webhooks.receive({ id, name, payload } as Parameters<typeof webhooks.receive>[0]);
        counts.handled++;
      } catch (err) {
        counts.failed++;
        log.forget(id);
        const inner = (err as { errors?: Error[] }).errors?.[0] ?? (err as Error);
        errors.push({ delivery: id, event: name, message: inner.message });
        if (errors.length > KEEP_ERRORS) errors.shift();
        opts.config.log(`delivery ${id} (${name}) failed: ${inner.message}`);
      }
    });
  });
  // Slow clients are cut off; GitHub itself waits 10 s for an answer.
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  const health = (): BotHealth => ({ ok: true, ...counts, pending: queue.pending, errors: [...errors] });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, opts.host, opts.port)));
    server.listen(opts.port, opts.host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    health,
    idle: () => queue.idle(),
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await queue.idle();
    },
  };
}
