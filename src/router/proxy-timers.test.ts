import { afterEach, describe, expect, it, vi } from 'vitest';
import { getJson, open, TestBackend } from '../../test/support/router-backend.ts';
import { type RouterMetrics, RouterMetricsSchema } from '../schema/router.ts';
import { type RouterProxyOptions, startRouterProxy } from './proxy.ts';

/**
 * The proxy's timers (health polls, the policy's eviction) under faked setInterval: the test moves the
 * clock, the sockets stay real.
 */

const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close();
  vi.useRealTimers();
});

async function setup(n: number, extra: Partial<RouterProxyOptions>) {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const bs: TestBackend[] = [];
  for (let i = 0; i < n; i++) {
    const b = await new TestBackend(`b${i}`).start();
    started.push(b);
    bs.push(b);
  }
  const proxy = await startRouterProxy({ backends: bs.map((b) => b.url), port: 0, ...extra });
  started.push(proxy);
  const metrics = async (): Promise<RouterMetrics> =>
    RouterMetricsSchema.parse((await getJson(proxy.url, '/metrics')).body);
  return { bs, proxy, metrics };
}

const completion = (prompt: string) => ({ model: 'm', prompt, max_tokens: 2, stream: true });

describe('infx router: timers', () => {
  it('polls health every --health-interval seconds', async () => {
    const { bs, metrics } = await setup(2, { healthIntervalSecs: 5, healthFailureThreshold: 1 });
    bs[1]!.healthStatus = 503;
    expect((await metrics()).workers[1]!.healthy).toBe(true); // no poll yet
    vi.advanceTimersByTime(5000);
    while ((await metrics()).workers[1]!.healthy) await new Promise((r) => setImmediate(r));
    bs[1]!.healthStatus = 200;
    vi.advanceTimersByTime(5000);
    while (!(await metrics()).workers[1]!.healthy) await new Promise((r) => setImmediate(r));
  });

  it('runs the cache-aware eviction every --eviction-interval seconds', async () => {
    const { bs, proxy, metrics } = await setup(3, {
      healthIntervalSecs: 0,
      router: { policy: 'cache-aware', cacheAware: { evictionIntervalSecs: 30, maxTreeSize: 0 } },
    });
    const beta = 'beta '.repeat(40);
    // x held on b0, beta held on b1: b2 is the idle one.
    const x = open(proxy.url, '/v1/completions', completion('x'.repeat(200)));
    const ex = await bs[0]!.next();
    const b = open(proxy.url, '/v1/completions', completion(beta));
    const eb = await bs[1]!.next();
    const before = open(proxy.url, '/v1/completions', completion(`${beta}1`));
    const e1 = await bs[1]!.next(); // the tree still holds beta under b1
    e1.res.writeHead(200).end('ok');
    await (await before).rest();
    vi.advanceTimersByTime(30_000); // eviction to a tree size of 0: b1 no longer holds beta
    const after = open(proxy.url, '/v1/completions', completion(`${beta}2`));
    const e2 = await bs[2]!.next(); // no match left: the least-loaded backend
    e2.res.writeHead(200).end('ok');
    await (await after).rest();
    for (const [e, c] of [
      [ex, x],
      [eb, b],
    ] as const) {
      e.res.writeHead(200).end('ok');
      await (await c).rest();
    }
    expect((await metrics()).workers.map((w) => w.requests)).toEqual([1, 2, 1]);
  });
});
