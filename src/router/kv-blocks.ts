import {
  KV_BLOCKS_MAX_HASHES,
  KV_BLOCKS_PATH,
  KV_EVENTS_MAX_LIMIT,
  KV_EVENTS_PATH,
  KvBlocksResponseSchema,
  type KvEventsResponse,
  KvEventsResponseSchema,
} from '../schema/kv-blocks.ts';
import { RouterUsageError } from './backends.ts';

/**
 * The router's KV-event view of its backends (kv-aware with `--kv-events`), kept off the hot path: every
 * routed request's block hashes join a bounded set of known hashes (LRU, `maxKnown`), and a background
 * refresh asks each backend's `GET /infx/kv-blocks` which of the known hashes it holds, in pages of
 * KV_BLOCKS_MAX_HASHES, replacing that backend's held set. A request is routed on the sets of the last
 * refresh; a backend whose refresh failed keeps its last set (and the failure is logged once per change).
 *
 * A backend that also answers `GET /infx/kv-events` (infx sim serve does) is followed by its events instead:
 * each refresh applies what its engines cached and evicted since the last one, so blocks that reached it by
 * traffic the router did not route count too. When the backend says events were lost (`reset`: the router
 * fell behind its ring, or the server restarted), the router asks it about its known hashes once and goes on
 * from there.
 *
 * `check()` runs at startup: a backend without the endpoint (404), unreachable, or with another block
 * size than the router's is named in the error, so kv-aware never routes on holdings it cannot know. An
 * unreachable backend is asked again until `waitMs` has passed (engines and their router often start
 * together, and an engine takes seconds to listen); the others are refused at once.
 */

export interface KvBlockViewOptions {
  urls: readonly string[];
  blockSize: number;
  /** Known hashes kept (memory bound: about 60 bytes each, once for the router). */
  maxKnown?: number;
  timeoutMs?: number;
  /** How long check() waits for backends that do not answer yet, ms (default DEFAULT_BACKEND_WAIT_MS). */
  waitMs?: number;
  log?: (line: string) => void;
}

export const DEFAULT_BACKEND_WAIT_MS = 60_000;
/** Between two probes of a backend that did not answer, ms. */
const RETRY_MS = 250;
/** Between two "still waiting" lines, ms. */
const WAIT_LOG_MS = 5000;
/** Pages of KV events read from one backend in one refresh (the rest waits for the next). */
const EVENT_PAGES = 4;

export const DEFAULT_MAX_KNOWN_HASHES = 65_536;

export type KvBlocksProbe =
  | { url: string; ok: true; blockSize: number; prefixCaching: boolean }
  /** missing: answered 404; silent: no answer at all (not listening yet, or no reply in time). */
  | { url: string; ok: false; missing: boolean; silent: boolean; why: string };

/** A backend that gave no answer: nothing listening, a reset, or no reply within the timeout. */
class NoAnswer extends Error {}

/** The most a KV reply may hold: a hostile or broken backend cannot make the router buffer more. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/**
 * GET `url + path` parsed by `schema`; null for a 404 (no such endpoint). A backend that gives no answer
 * throws NoAnswer; one that answers another status, more than MAX_REPLY_BYTES or a body the schema refuses
 * throws an Error naming the path.
 */
async function getReply<T>(
  url: string,
  path: string,
  query: string,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  what: string,
  timeoutMs: number,
): Promise<T | null> {
  let res: Response;
  try {
    res = await fetch(`${url}${path}?${query}`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    // fetch says only "fetch failed"; its cause says why (ECONNREFUSED, a timeout, a port it refuses).
    const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string'
          ? cause.message
          : err instanceof Error
            ? err.message
            : String(err);
    throw new NoAnswer(why);
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`GET ${path} answered ${res.status}`);
  }
  const text = await boundedText(res, path);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`GET ${path} answered a body that is not JSON`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`GET ${path} answered a body that is not a ${what} reply`);
  return parsed.data;
}

async function boundedText(res: Response, path: string): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_REPLY_BYTES) {
      await reader.cancel();
      throw new Error(`GET ${path} answered more than ${MAX_REPLY_BYTES / 1048576} MiB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function getKvBlocks(url: string, hashes: readonly string[], timeoutMs: number) {
  const query = `hashes=${hashes.join(',')}`;
  const body = await getReply(url, KV_BLOCKS_PATH, query, KvBlocksResponseSchema, 'kv-blocks', timeoutMs);
  if (body === null) return { status: 404 as const };
  if (body.held.length !== hashes.length)
    throw new Error(`GET ${KV_BLOCKS_PATH} answered ${body.held.length} flags for ${hashes.length} hashes`);
  return { status: 200 as const, body };
}

/**
 * One page of a backend's KV events after `after`; null when it has no such endpoint (404). Events must come
 * after `after`, in order: a feed that goes back would have the router apply them twice, out of order.
 */
async function getKvEvents(url: string, after: number, timeoutMs: number): Promise<KvEventsResponse | null> {
  const query = `after=${after}&limit=${KV_EVENTS_MAX_LIMIT}`;
  const body = await getReply(url, KV_EVENTS_PATH, query, KvEventsResponseSchema, 'kv-events', timeoutMs);
  if (body === null || body.reset) return body;
  let last = after;
  for (const e of body.events) {
    if (e.seq <= last) throw new Error(`GET ${KV_EVENTS_PATH} answered event ${e.seq} after ${last}`);
    last = e.seq;
  }
  return body;
}

export class KvBlockView {
  private readonly known = new Map<string, true>();
  private readonly held: Set<string>[];
  private readonly failing: boolean[];
  /** Per backend: the last KV event applied, or null when it has no event feed (hashes are queried). */
  private readonly cursor: (number | null)[];
  private readonly maxKnown: number;
  private readonly timeoutMs: number;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly opts: KvBlockViewOptions) {
    this.held = opts.urls.map(() => new Set());
    this.failing = opts.urls.map(() => false);
    this.cursor = opts.urls.map(() => null);
    this.maxKnown = opts.maxKnown ?? DEFAULT_MAX_KNOWN_HASHES;
    this.timeoutMs = opts.timeoutMs ?? 2000;
  }

  /** The blocks backend `url` held at the last refresh. */
  cachedBlocks(url: string): ReadonlySet<string> | undefined {
    const i = this.opts.urls.indexOf(url);
    return i < 0 ? undefined : this.held[i];
  }

  /** A routed request's hashes become known (most recent last; the oldest go past maxKnown). */
  note(hashes: readonly string[]): void {
    for (const h of hashes) {
      this.known.delete(h);
      this.known.set(h, true);
    }
    for (const k of this.known.keys()) {
      if (this.known.size <= this.maxKnown) break;
      this.known.delete(k);
    }
  }

  get knownCount(): number {
    return this.known.size;
  }

  /** Each backend's answer to an empty query: whether it has the endpoint, and its block size. */
  probe(): Promise<KvBlocksProbe[]> {
    return Promise.all(
      this.opts.urls.map(async (url): Promise<KvBlocksProbe> => {
        try {
          const r = await getKvBlocks(url, [], this.timeoutMs);
          if (r.status === 404)
            return {
              url,
              ok: false,
              missing: true,
              silent: false,
              why: `it has no GET ${KV_BLOCKS_PATH} (404)`,
            };
          return { url, ok: true, blockSize: r.body.blockSize, prefixCaching: r.body.prefixCaching };
        } catch (err) {
          const why = err instanceof NoAnswer ? `no answer: ${err.message}` : (err as Error).message;
          return { url, ok: false, missing: false, silent: err instanceof NoAnswer, why };
        }
      }),
    );
  }

  /**
   * Throws a RouterUsageError naming every backend whose KV blocks the router cannot read as its own;
   * with `allowMissing`, answers 'missing' instead when the only problem is backends without the endpoint.
   */
  async check(allowMissing = false): Promise<'ok' | 'missing'> {
    const probes = await this.probeWaiting();
    const missing = probes.filter((p) => !p.ok && p.missing);
    const bad = probes.flatMap((p) => {
      if (!p.ok) return [`${p.url}: ${p.why}`];
      if (p.blockSize !== this.opts.blockSize)
        return [`${p.url}: its engines use ${p.blockSize}-token blocks, the router ${this.opts.blockSize}`];
      if (!p.prefixCaching)
        return [
          `${p.url}: its engines run without prefix caching and hold no reusable blocks (start it with --prefix-caching)`,
        ];
      return [];
    });
    if (bad.length === 0) {
      await this.findEventFeeds();
      return 'ok';
    }
    if (allowMissing && bad.length === missing.length) return 'missing';
    throw new RouterUsageError(
      `--policy kv-aware with --kv-events reads each backend's KV blocks (GET ${KV_BLOCKS_PATH}, which infx sim serve answers), and cannot for: ${bad.join('; ')}`,
      'pass --no-kv-events to predict caches from the routing history, --kv-events-fallback history to do so only when a backend lacks the endpoint, --kv-cache-block-size equal to the engines’ block size, or a longer --backend-wait for engines still starting',
    );
  }

  /**
   * probe(), asked again while some backend gives no answer at all, until all answer or `waitMs` has
   * passed; the probes of the last round. A backend that answers wrongly is not waited for.
   */
  private async probeWaiting(): Promise<KvBlocksProbe[]> {
    const waitMs = this.opts.waitMs ?? DEFAULT_BACKEND_WAIT_MS;
    const started = Date.now();
    let logged = Number.NEGATIVE_INFINITY;
    let probes = await this.probe();
    for (;;) {
      const silent = probes.filter((p): p is Extract<KvBlocksProbe, { ok: false }> => !p.ok && p.silent);
      const waited = Date.now() - started;
      if (silent.length === 0 || waited >= waitMs) return probes;
      if (waited - logged >= WAIT_LOG_MS) {
        logged = waited;
        this.opts.log?.(
          `kv-aware: waiting for ${silent.map((p) => `${p.url} (${p.why})`).join(', ')}: ` +
            `${Math.round(waited / 1000)} s of ${Math.round(waitMs / 1000)} s`,
        );
      }
      await new Promise((r) => setTimeout(r, Math.min(RETRY_MS, waitMs - waited)));
      probes = await this.probe();
    }
  }

  /** Asks every backend which known hashes it holds now (one refresh at a time; a second call joins it). */
  refresh(): Promise<void> {
    this.refreshing ??= this.refreshAll().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refreshAll(): Promise<void> {
    const hashes = [...this.known.keys()];
    await Promise.all(this.opts.urls.map((url, i) => this.refreshOne(url, i, hashes)));
  }

  /** Which backends have an event feed: they are followed from their first event on. */
  private async findEventFeeds(): Promise<void> {
    await Promise.all(
      this.opts.urls.map(async (url, i) => {
        try {
          if ((await getKvEvents(url, 0, this.timeoutMs)) !== null) this.cursor[i] = 0;
        } catch {
          // No usable feed: its hashes are queried.
        }
      }),
    );
  }

  /** Which of `hashes` the backend holds now. */
  private async queryHeld(url: string, hashes: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (let at = 0; at < hashes.length; at += KV_BLOCKS_MAX_HASHES) {
      const page = hashes.slice(at, at + KV_BLOCKS_MAX_HASHES);
      const r = await getKvBlocks(url, page, this.timeoutMs);
      if (r.status === 404) throw new Error(`it no longer answers GET ${KV_BLOCKS_PATH} (404)`);
      r.body.held.forEach((h, k) => {
        if (h) held.add(page[k]!);
      });
    }
    return held;
  }

  /** Applies the backend's events since the last one applied (events are idempotent: add or delete). */
  private async followEvents(url: string, i: number, hashes: readonly string[]): Promise<void> {
    for (let page = 0; page < EVENT_PAGES; page++) {
      const r = await getKvEvents(url, this.cursor[i]!, this.timeoutMs);
      if (r === null) throw new Error(`it no longer answers GET ${KV_EVENTS_PATH} (404)`);
      if (r.reset) {
        this.held[i] = await this.queryHeld(url, hashes);
        this.cursor[i] = r.next - 1;
        return;
      }
      const held = this.held[i]!;
      for (const e of r.events) {
        if (e.kind === 'stored') held.add(e.hash);
        else held.delete(e.hash);
      }
      if (r.events.length > 0) this.cursor[i] = r.events.at(-1)!.seq;
      if (r.events.length < KV_EVENTS_MAX_LIMIT) return;
    }
  }

  private async refreshOne(url: string, i: number, hashes: readonly string[]): Promise<void> {
    try {
      if (this.cursor[i] !== null) await this.followEvents(url, i, hashes);
      else this.held[i] = await this.queryHeld(url, hashes);
    } catch (err) {
      if (!this.failing[i])
        this.opts.log?.(
          `kv-aware: backend ${url}: KV blocks not refreshed (${err instanceof Error ? err.message : String(err)}); routing on its last known blocks`,
        );
      this.failing[i] = true;
      return;
    }
    if (this.failing[i]) this.opts.log?.(`kv-aware: backend ${url}: KV blocks refreshed again`);
    this.failing[i] = false;
  }

  /** Whether backend `url` is followed by its KV events (else its known hashes are queried). */
  followsEvents(url: string): boolean {
    const i = this.opts.urls.indexOf(url);
    return i >= 0 && this.cursor[i] !== null;
  }
}
