import { once } from 'node:events';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { getJson, open, sseChunk, TestBackend } from '../../test/support/router-backend.ts';
import { type RouterMetrics, RouterMetricsSchema, type RouterOptionsInput } from '../schema/router.ts';
import { type RouterProxy, startRouterProxy } from './proxy.ts';

/**
 * The proxy against real loopback backends (test/support/router-backend.ts): at most three backends and
 * one router per test, every wait a hand-shake on an event, never on a clock.
 */

const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close();
});

async function backends(n: number): Promise<TestBackend[]> {
  const out: TestBackend[] = [];
  for (let i = 0; i < n; i++) {
    const b = await new TestBackend(`b${i}`).start();
    started.push(b);
    out.push(b);
  }
  return out;
}

async function router(bs: TestBackend[], router: RouterOptionsInput = {}, extra = {}): Promise<RouterProxy> {
  const proxy = await startRouterProxy({
    backends: bs.map((b) => b.url),
    router,
    port: 0,
    healthIntervalSecs: 0,
    ...extra,
  });
  started.push(proxy);
  return proxy;
}

async function metrics(proxy: RouterProxy): Promise<RouterMetrics> {
  const r = await getJson(proxy.url, '/metrics');
  expect(r.status).toBe(200);
  return RouterMetricsSchema.parse(r.body);
}

const completion = (prompt: string) => ({ model: 'm', prompt, max_tokens: 3, stream: true });

describe('infx router: streaming', () => {
  it('passes a stream through in order, each chunk before the backend writes the next', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!]);
    const client = open(proxy.url, '/v1/completions', completion('hello'));
    const e = await b!.next();
    expect(e.path).toBe('/v1/completions');
    expect(JSON.parse(e.body)).toEqual(completion('hello'));
    e.res.writeHead(200, { 'content-type': 'text/event-stream' });
    e.res.write(sseChunk('one'));
    const c = await client;
    expect(c.status).toBe(200);
    expect(c.headers['content-type']).toBe('text/event-stream');
    // The client holds the first chunk while the backend has not written the second: nothing is buffered.
    expect(await c.piece()).toBe(sseChunk('one'));
    const during = await metrics(proxy);
    expect(during.workers[0]).toMatchObject({ load: 1, requests: 1, completed: 0 });
    e.res.write(sseChunk('two'));
    expect(await c.piece()).toBe(sseChunk('two'));
    e.res.end('data: [DONE]\n\n');
    expect(await c.rest()).toEqual({ text: 'data: [DONE]\n\n', complete: true });
    const after = await metrics(proxy);
    expect(after.workers[0]).toMatchObject({ load: 0, requests: 1, completed: 1, failed: 0 });
  });

  it('chat requests and other paths pass through; /metrics parses with the router-metrics schema', async () => {
    const [b] = await backends(1);
    b!.auto = ['x'];
    const proxy = await router([b!], { policy: 'cache-aware' });
    const chat = { model: 'm', messages: [{ role: 'user', content: 'hi there' }], stream: true };
    const c = await open(proxy.url, '/v1/chat/completions', chat);
    expect((await c.rest()).text).toBe(`${sseChunk('x')}data: [DONE]\n\n`);
    const other = await open(proxy.url, '/v1/anything?x=1', 'not json');
    expect(other.status).toBe(200);
    await other.rest();
    expect(b!.received.map((e) => e.path)).toEqual(['/v1/chat/completions', '/v1/anything?x=1']);
    expect(b!.received[1]!.body).toBe('not json');
    const m = await metrics(proxy);
    expect(m.policy).toBe('cache-aware');
    expect(m.workers[0]).toMatchObject({ url: b!.url, requests: 2, completed: 2, load: 0 });
    expect(m.workers[0]!.estimatedHits).toMatchObject({ unit: 'chars' });
  });

  it('a slow backend does not hold up another stream', async () => {
    const [slow, fast] = await backends(2);
    fast!.auto = ['a', 'b'];
    const proxy = await router([slow!, fast!]);
    const first = open(proxy.url, '/v1/completions', completion('1'));
    const held = await slow!.next();
    const second = await open(proxy.url, '/v1/completions', completion('2'));
    expect(await second.rest()).toEqual({
      text: `${sseChunk('a')}${sseChunk('b')}data: [DONE]\n\n`,
      complete: true,
    });
    expect((await metrics(proxy)).workers.map((w) => w.load)).toEqual([1, 0]);
    held.res.writeHead(200).end('late');
    expect(await (await first).rest()).toEqual({ text: 'late', complete: true });
  });

  it('a client that goes away aborts the backend request and counts it failed', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!]);
    const client = open(proxy.url, '/v1/completions', completion('bye'));
    const e = await b!.next();
    e.res.writeHead(200, { 'content-type': 'text/event-stream' });
    e.res.write(sseChunk('one'));
    const c = await client;
    expect(await c.piece()).toBe(sseChunk('one'));
    c.destroy();
    await e.closed; // the backend's response closes: the router dropped its request
    expect(e.res.writableFinished).toBe(false);
    const m = await metrics(proxy);
    expect(m.workers[0]).toMatchObject({ load: 0, failed: 1, completed: 0 });
  });

  it('holds the backend back while the client does not read (backpressure), then delivers every byte', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!]);
    const response = new Promise<http.IncomingMessage>((resolve) =>
      http
        .request(`${proxy.url}/v1/completions`, { method: 'POST', agent: false }, resolve)
        .end(JSON.stringify(completion('big'))),
    );
    const e = await b!.next();
    e.res.writeHead(200, { 'content-type': 'text/event-stream' });
    e.res.flushHeaders();
    const res = await response;
    res.pause(); // the client reads nothing for now
    const piece = Buffer.alloc(256 * 1024, 'a');
    const cap = 256; // 64 MiB: far more than the sockets on both sides buffer
    // The backend writes as fast as its socket takes it. It stalls (no 'drain' for a while: the trigger to
    // look, not what is asserted) once the router stops reading because the client's socket is full.
    let written = 0;
    while (written < cap) {
      written++;
      if (e.res.write(piece)) continue;
      const drained = await Promise.race([
        once(e.res, 'drain').then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 300)),
      ]);
      if (!drained) break;
    }
    expect(written).toBeLessThan(cap); // without backpressure the router would have swallowed all 64 MiB
    let received = 0;
    res.on('data', (c: Buffer) => {
      received += c.length;
    });
    res.resume();
    e.res.end();
    await once(res, 'end');
    expect(received).toBe(written * piece.length);
  });

  it('sends a body over the limit back with 413 and never routes it', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!], {}, { maxBodyBytes: 1024 });
    const big = await open(proxy.url, '/v1/completions', completion('x'.repeat(2000)));
    expect(big.status).toBe(413);
    expect(JSON.parse((await big.rest()).text).error.message).toMatch(/over the limit of 1024 bytes/);
    const ok = open(proxy.url, '/v1/completions', completion('small'));
    (await b!.next()).res.writeHead(200).end('fine');
    expect((await (await ok).rest()).text).toBe('fine');
    expect((await metrics(proxy)).workers[0]!.requests).toBe(1);
  });
});

describe('infx router: routing through the policies', () => {
  it('consistent-hash sends one session to one backend, request after request', async () => {
    const bs = await backends(3);
    for (const b of bs) b.auto = ['t'];
    const proxy = await router(bs, { policy: 'consistent-hash', hashFlavor: 'vllm' });
    const workerOf = async (session: string) => {
      const before = (await metrics(proxy)).workers.map((w) => w.requests);
      await (
        await open(proxy.url, '/v1/completions', completion(session), { 'X-Session-ID': session })
      ).rest();
      const after = (await metrics(proxy)).workers.map((w) => w.requests);
      return after.findIndex((n, i) => n !== before[i]);
    };
    for (const session of ['alpha', 'beta', 'gamma']) {
      const first = await workerOf(session);
      expect(first).toBeGreaterThanOrEqual(0);
      for (let k = 0; k < 3; k++) expect(await workerOf(session)).toBe(first);
    }
  });

  it('cache-aware sends a shared prefix to the backend that holds it, not to the idle one', async () => {
    const bs = await backends(3);
    const proxy = await router(bs, { policy: 'cache-aware' });
    const alpha = 'alpha '.repeat(40);
    const beta = 'beta '.repeat(40);
    // Two held streams: the trees are empty, so each goes to the least-loaded backend (b0, then b1).
    const a = open(proxy.url, '/v1/completions', completion(alpha));
    const ea = await bs[0]!.next();
    const b = open(proxy.url, '/v1/completions', completion(beta));
    const eb = await bs[1]!.next();
    // b2 is idle, but b1 holds beta's prefix: the match rate is far above 0.3.
    const c = open(proxy.url, '/v1/completions', completion(`${beta}and more`));
    const ec = await bs[1]!.next();
    expect(JSON.parse(ec.body).prompt).toBe(`${beta}and more`);
    const m = await metrics(proxy);
    expect(m.workers.map((w) => w.load)).toEqual([1, 2, 0]);
    expect(m.workers[1]!.estimatedHits!.matched).toBeGreaterThan(beta.length - 1);
    for (const [e, client] of [
      [ea, a],
      [eb, b],
      [ec, c],
    ] as const) {
      e.res.writeHead(200).end('ok');
      await (await client).rest();
    }
    expect((await metrics(proxy)).workers.map((w) => w.load)).toEqual([0, 0, 0]);
  });

  it('kv-aware without KV events sends a prefix back to the backend its routing history put it on', async () => {
    const bs = await backends(2);
    const proxy = await router(bs, { policy: 'kv-aware', kvAware: { kvEvents: false } });
    const a = 'a'.repeat(640); // 160 tokens estimated at 4 characters each: 10 blocks of 16
    const x = open(proxy.url, '/v1/completions', completion('x'.repeat(640)));
    const ex = await bs[0]!.next(); // all costs equal: the lower index
    const first = open(proxy.url, '/v1/completions', completion(a));
    const ea = await bs[1]!.next(); // b0 carries x's prefill and blocks
    for (const [e, c] of [
      [ea, first],
      [ex, x],
    ] as const) {
      e.res.writeHead(200).end('ok');
      await (await c).rest();
    }
    // Both idle now: b0 costs 11 blocks of prefill + 11 of decode; b1 holds a's 10 blocks, so 1 + 11.
    const again = open(proxy.url, '/v1/completions', completion(`${a}${'b'.repeat(64)}`));
    const e = await bs[1]!.next();
    e.res.writeHead(200).end('ok');
    await (await again).rest();
    expect((await metrics(proxy)).workers[1]!.estimatedHits).toEqual({
      unit: 'blocks',
      matched: 10,
      total: 21,
    });
  });

  it('answers 503 with the reason when no backend is healthy', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!]);
    proxy.pool.setHealthy(0, false);
    const r = await open(proxy.url, '/v1/completions', completion('x'));
    expect(r.status).toBe(503);
    const body = JSON.parse((await r.rest()).text);
    expect(body.error.reason).toBe('no-healthy-worker');
    expect((await getJson(proxy.url, '/health')).status).toBe(503);
    expect((await metrics(proxy)).noWorker['no-healthy-worker']).toBe(1);
  });
});
