import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RouterUsageError } from '../src/router/backends.ts';
import { KvBlockView } from '../src/router/kv-blocks.ts';
import { type RouterProxy, startRouterProxy } from '../src/router/proxy.ts';
import {
  KV_BLOCKS_MAX_HASHES,
  KvBlocksResponseSchema,
  KvEventsResponseSchema,
} from '../src/schema/kv-blocks.ts';
import { requestBlockHasher } from '../src/sim/serve/prefix-hash.ts';
import { type SimServer, startSimServer } from '../src/sim/serve/server.ts';

/** kv-aware routing on the engines' own KV blocks: `GET /infx/kv-blocks` of sim serve and the router's view. */

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
/** One token per character: 16 characters make one block. */
const tokenize = (text: string) => Array.from(text, (c) => c.codePointAt(0)!);
const hasher = requestBlockHasher(tokenize, 16);
const PREFIX = 'P'.repeat(160);

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.reverse()) await c();
  closers = [];
});

async function sim(port = 0, prefixCaching = true): Promise<SimServer> {
  const s = await startSimServer({
    setup: { model: MODEL, hardware: 'h100', prefixCaching },
    timeScale: 200,
    tokenize,
    port,
  });
  closers.push(() => s.close());
  return s;
}

async function complete(url: string, prompt: string): Promise<void> {
  const res = await fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, prompt, max_tokens: 2, ignore_eos: true }),
  });
  expect(res.status).toBe(200);
  await res.text();
}

async function held(url: string, hashes: string[]): Promise<boolean[]> {
  const res = await fetch(`${url}/infx/kv-blocks?hashes=${hashes.join(',')}`);
  expect(res.status).toBe(200);
  const body = KvBlocksResponseSchema.parse(await res.json());
  expect(body.blockSize).toBe(16);
  return body.held;
}

async function router(backends: string[], extra: Partial<Parameters<typeof startRouterProxy>[0]> = {}) {
  const p: RouterProxy = await startRouterProxy({
    backends,
    port: 0,
    healthIntervalSecs: 0,
    kvRefreshMs: 0,
    blockHashes: hasher,
    router: { policy: 'kv-aware' },
    ...extra,
  });
  closers.push(() => p.close());
  return p;
}

describe('GET /infx/kv-blocks on infx sim serve', () => {
  it('answers which prefix-block hashes the engine holds, as the router computes them', async () => {
    const s = await sim();
    const hashes = hasher('/v1/completions', { prompt: PREFIX })!.hashes;
    expect(hashes).toHaveLength(10);
    expect(await held(s.url, hashes)).toEqual(Array(10).fill(false));
    await complete(s.url, `${PREFIX}tail`);
    expect(await held(s.url, [...hashes, 'abc'])).toEqual([...Array(10).fill(true), false]);
    expect(await held(s.url, [])).toEqual([]);
  });

  it('refuses a malformed hash and more than the page bound, naming the query parameter', async () => {
    const s = await sim();
    const bad = await fetch(`${s.url}/infx/kv-blocks?hashes=ab,NOT_A_HASH`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('hashes[1]');
    const many = Array.from({ length: KV_BLOCKS_MAX_HASHES + 1 }, (_, i) => i.toString(16));
    const tooMany = await fetch(`${s.url}/infx/kv-blocks?hashes=${many.join(',')}`);
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(await tooMany.json())).toContain(`at most ${KV_BLOCKS_MAX_HASHES}`);
  });
});

describe('GET /infx/kv-events on infx sim serve', () => {
  it('lists the blocks its engines cache, after a sequence number, and refuses bad parameters by name', async () => {
    const s = await sim();
    const events = async (query: string) => {
      const res = await fetch(`${s.url}/infx/kv-events?${query}`);
      expect(res.status).toBe(200);
      return KvEventsResponseSchema.parse(await res.json());
    };
    expect(await events('after=0')).toMatchObject({ next: 1, reset: false, events: [], blockSize: 16 });
    await complete(s.url, `${PREFIX}tail`);
    const all = await events('after=0');
    const hashes = hasher('/v1/completions', { prompt: PREFIX })!.hashes;
    expect(all.events.map((e) => [e.kind, e.hash]).slice(0, 10)).toEqual(hashes.map((h) => ['stored', h]));
    expect(all.events.map((e) => e.seq)).toEqual(all.events.map((_, i) => i + 1));
    expect(all.next).toBe(all.events.length + 1);
    // After the last one: nothing; a page of two; a cursor from a restarted server's past: reset.
    expect((await events(`after=${all.next - 1}`)).events).toEqual([]);
    expect((await events('after=3&limit=2')).events.map((e) => e.seq)).toEqual([4, 5]);
    expect((await events(`after=${all.next + 100}`)).reset).toBe(true);
    for (const [query, param] of [
      ['after=-1', 'after'],
      ['after=1.5', 'after'],
      ['limit=99999999', 'limit'],
    ] as const) {
      const res = await fetch(`${s.url}/infx/kv-events?${query}`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain(`"param":"${param}"`);
    }
  });
});

describe('infx router --policy kv-aware with KV events', () => {
  it('routes a repeated prefix to the engine that holds it, not where the router last sent it', async () => {
    const a = await sim();
    const b = await sim();
    const p = await router([a.url, b.url]);
    // Equal costs: the first request goes to the lower index, a.
    await complete(p.url, `${PREFIX}one`);
    expect(p.pool.metrics().workers.map((w) => w.requests)).toEqual([1, 0]);
    // b learns the prefix from a direct request; a restarts with an empty cache on the same URL.
    await complete(b.url, `${PREFIX}two`);
    const port = Number(new URL(a.url).port);
    await a.close();
    await sim(port);
    await p.refreshKvBlocks();
    await complete(p.url, `${PREFIX}three`);
    // History would say a; the engines say b.
    expect(p.pool.metrics().workers.map((w) => w.requests)).toEqual([1, 1]);
    expect(p.pool.metrics().workers[1]!.estimatedHits).toEqual({ unit: 'blocks', matched: 10, total: 10 });
  });

  it('follows each engine’s KV events: a prefix it never routed, cached by direct traffic, is routed there', async () => {
    const a = await sim();
    const b = await sim();
    const lines: string[] = [];
    const p = await router([a.url, b.url], { log: (l) => lines.push(l) });
    expect(lines).toContain('kv-aware: following the KV events of every backend (GET /infx/kv-events)');
    const OTHER = 'Q'.repeat(160);
    // Only b ever sees this prefix, and not through the router: a hash query would not know to ask about it.
    await complete(b.url, `${OTHER}direct`);
    await p.refreshKvBlocks();
    await complete(p.url, `${OTHER}routed`);
    expect(p.pool.metrics().workers.map((w) => w.requests)).toEqual([0, 1]);
    expect(p.pool.metrics().workers[1]!.estimatedHits).toEqual({ unit: 'blocks', matched: 10, total: 10 });
  });

  it('refuses to start when a backend has no /infx/kv-blocks, naming it; falls back only when told', async () => {
    const s = await sim();
    const plain = http.createServer((_req, res) => {
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => plain.close(() => r())));
    const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    const err = await router([s.url, plainUrl]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RouterUsageError);
    expect((err as Error).message).toContain(`${plainUrl}: it has no GET /infx/kv-blocks (404)`);
    expect((err as Error).message).not.toContain(`${s.url}:`);
    const lines: string[] = [];
    const p = await router([s.url, plainUrl], { kvEventsFallback: 'history', log: (l) => lines.push(l) });
    expect(lines.join('\n')).toContain('routing on the router’s own history');
    await complete(p.url, `${PREFIX}x`);
  });

  it('waits for a backend that is not listening yet, and refuses it by name once the wait is over', async () => {
    const free = http.createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise<void>((r) => free.close(() => r()));
    const url = `http://127.0.0.1:${port}`;
    const lines: string[] = [];
    const gone = await router([url], { backendWaitMs: 600, log: (l) => lines.push(l) }).catch(
      (e: unknown) => e,
    );
    expect(gone).toBeInstanceOf(RouterUsageError);
    expect((gone as Error).message).toContain(`${url}: no answer: ECONNREFUSED`);
    expect(lines.join('\n')).toMatch(
      /kv-aware: waiting for http:\/\/127\.0\.0\.1:\d+ \(no answer: ECONNREFUSED\)/,
    );
    // The engine comes up while the router waits: the router starts and routes to it.
    const starting = router([url], { backendWaitMs: 20_000 });
    await new Promise((r) => setTimeout(r, 500));
    await sim(port);
    const p = await starting;
    await complete(p.url, `${PREFIX}late`);
  });

  it('a hostile backend cannot make it buffer without bound or apply events out of order', async () => {
    let mode: 'ok' | 'backwards' | 'huge' = 'ok';
    const hostile = http.createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      const reply = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const head = { schemaVersion: 1, blockSize: 16, prefixCaching: true };
      if (path === '/infx/kv-blocks') return reply({ ...head, held: [] });
      if (mode === 'huge') {
        // 17 MiB of a JSON string, never closed: the router must stop reading, not buffer it.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"x":"');
        const mib = Buffer.alloc(1 << 20, 'a');
        for (let i = 0; i < 17; i++) res.write(mib);
        return res.end();
      }
      const events = mode === 'ok' ? [] : [5, 3].map((seq) => ({ seq, kind: 'stored', hash: `h${seq}` }));
      reply({ ...head, next: 6, reset: false, events });
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => hostile.close(() => r())));
    const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    const lines: string[] = [];
    const view = new KvBlockView({ urls: [url], blockSize: 16, log: (l) => lines.push(l), waitMs: 0 });
    expect(await view.check()).toBe('ok');
    expect(view.followsEvents(url)).toBe(true);
    mode = 'backwards';
    await view.refresh();
    expect(lines.at(-1)).toContain('GET /infx/kv-events answered event 3 after 5');
    expect(view.cachedBlocks(url)?.has('h3')).toBe(false);
    mode = 'huge';
    await view.refresh();
    mode = 'ok';
    await view.refresh();
    // One failure line (the first), then recovery: the 17 MiB page was cut at 16 MiB.
    expect(lines.join('\n')).toContain('KV blocks refreshed again');
    const fresh: string[] = [];
    const other = new KvBlockView({ urls: [url], blockSize: 16, log: (l) => fresh.push(l), waitMs: 0 });
    expect(await other.check()).toBe('ok');
    mode = 'huge';
    await other.refresh();
    expect(fresh.join('\n')).toContain('GET /infx/kv-events answered more than 16 MiB');
  });

  it('refuses a block size other than the engines’, and a router with no way to hash requests', async () => {
    const s = await sim();
    const err = await router([s.url], { router: { policy: 'kv-aware', kvAware: { blockSize: 32 } } }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toContain('its engines use 16-token blocks, the router 32');
    const noCache = await sim(0, false);
    const off = await router([noCache.url]).catch((e: unknown) => e);
    expect((off as Error).message).toContain(`${noCache.url}: its engines run without prefix caching`);
    const noHasher = await startRouterProxy({
      backends: [s.url],
      port: 0,
      healthIntervalSecs: 0,
      router: { policy: 'kv-aware' },
    }).catch((e: unknown) => e);
    expect(noHasher).toBeInstanceOf(RouterUsageError);
  });
});
