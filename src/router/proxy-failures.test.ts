import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { getJson, open, sseChunk, TestBackend } from '../../test/support/router-backend.ts';
import { type RouterMetrics, RouterMetricsSchema } from '../schema/router.ts';
import { type RouterProxy, type RouterProxyOptions, startRouterProxy } from './proxy.ts';

/** The proxy under resets, refused connections and failing health checks, against loopback backends. */

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

async function router(urls: string[], extra: Partial<RouterProxyOptions> = {}): Promise<RouterProxy> {
  const proxy = await startRouterProxy({ backends: urls, port: 0, healthIntervalSecs: 0, ...extra });
  started.push(proxy);
  return proxy;
}

async function metrics(proxy: RouterProxy): Promise<RouterMetrics> {
  return RouterMetricsSchema.parse((await getJson(proxy.url, '/metrics')).body);
}

const completion = { model: 'm', prompt: 'p', max_tokens: 2, stream: true };
const reset = (socket: Socket) => socket.resetAndDestroy();

describe('infx router: backend failures', () => {
  it('a backend that resets before answering gets a 502 naming it, and counts failed', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!.url]);
    const client = open(proxy.url, '/v1/completions', completion);
    reset((await b!.next()).req.socket);
    const r = await client;
    expect(r.status).toBe(502);
    const body = JSON.parse((await r.rest()).text);
    expect(body.error.backend).toBe(b!.url);
    expect(body.error.message).toContain(`backend ${b!.url} failed before answering (ECONNRESET)`);
    expect((await metrics(proxy)).workers[0]).toMatchObject({ load: 0, failed: 1, completed: 0 });
  });

  it('a refused connection gets a 502 naming the backend', async () => {
    const [b] = await backends(1);
    const url = b!.url;
    await b!.close();
    started.splice(started.indexOf(b!), 1);
    const proxy = await router([url]);
    const r = await open(proxy.url, '/v1/completions', completion);
    expect(r.status).toBe(502);
    expect(JSON.parse((await r.rest()).text).error.message).toMatch(
      new RegExp(`backend ${url} failed before answering \\(ECONNREFUSED\\)`),
    );
  });

  it('a reset on a reused keep-alive socket is retried once on a fresh one', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!.url]);
    const first = open(proxy.url, '/v1/completions', completion);
    (await b!.next()).res.writeHead(200).end('one');
    await (await first).rest();
    const second = open(proxy.url, '/v1/completions', completion);
    const e1 = await b!.next();
    const socket = e1.req.socket;
    reset(socket);
    const e2 = await b!.next(); // the same request again, on another socket
    expect(e2.req.socket).not.toBe(socket);
    expect(e2.body).toBe(e1.body);
    e2.res.writeHead(200).end('two');
    expect(await (await second).rest()).toEqual({ text: 'two', complete: true });
    expect((await metrics(proxy)).workers[0]).toMatchObject({ requests: 2, completed: 2, failed: 0 });
  });

  it('a reset mid-stream cuts the client stream short and counts failed', async () => {
    const [b] = await backends(1);
    const proxy = await router([b!.url]);
    const client = open(proxy.url, '/v1/completions', completion);
    const e = await b!.next();
    e.res.writeHead(200, { 'content-type': 'text/event-stream' });
    e.res.write(sseChunk('one'));
    const c = await client;
    expect(await c.piece()).toBe(sseChunk('one'));
    reset(e.req.socket);
    expect(await c.rest()).toEqual({ text: '', complete: false });
    expect((await metrics(proxy)).workers[0]).toMatchObject({ load: 0, failed: 1, completed: 0 });
  });
});

describe('infx router: health polling', () => {
  it('skips a backend after failed polls and takes it back after it recovers', async () => {
    const bs = await backends(2);
    for (const b of bs) b.auto = ['t'];
    const proxy = await router(
      bs.map((b) => b.url),
      { healthFailureThreshold: 2 },
    );
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) await (await open(proxy.url, '/v1/completions', completion)).rest();
    };
    bs[0]!.healthStatus = 500;
    await proxy.pollHealth();
    expect((await metrics(proxy)).workers[0]!.healthy).toBe(true); // one failure is under the threshold
    await proxy.pollHealth();
    expect((await metrics(proxy)).workers.map((w) => w.healthy)).toEqual([false, true]);
    await send(3);
    expect(bs.map((b) => b.received.length)).toEqual([0, 3]);
    expect((await getJson(proxy.url, '/health')).status).toBe(200);
    bs[0]!.healthStatus = 200;
    await proxy.pollHealth();
    expect((await metrics(proxy)).workers.map((w) => w.healthy)).toEqual([true, true]);
    await send(4);
    expect(bs.map((b) => b.received.length)).toEqual([2, 5]);
  });

  it('marks a backend that stopped unhealthy', async () => {
    const bs = await backends(2);
    const proxy = await router(
      bs.map((b) => b.url),
      { healthFailureThreshold: 1 },
    );
    await bs[1]!.close();
    started.splice(started.indexOf(bs[1]!), 1);
    await proxy.pollHealth();
    expect((await metrics(proxy)).workers.map((w) => w.healthy)).toEqual([true, false]);
  });
});
