import { describe, expect, it } from 'vitest';
import { createPoolRouter, defaultPoolPolicy } from '../src/router/pool-router.ts';
import type { PoolBlockSource, PoolRoute, PoolRouter, RouterOptionsInput } from '../src/schema/router.ts';
import { AggregatePool } from '../src/sim/engine/aggregate.ts';
import type { SimSetup } from '../src/sim/engine/config.ts';
import { DisaggCluster } from '../src/sim/engine/disagg.ts';
import { startSimServer } from '../src/sim/serve/server.ts';

/**
 * The simulated engine's pools behind the router code of src/router (issue 18 part 3): a disaggregated
 * pool's prefill and decode workers behind session affinity, so a conversation's turns reach the workers
 * that hold its KV; an aggregated pool behind cache-aware; and the HTTP server handing the router the
 * request's headers and text.
 */

const one: SimSetup = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100', tp: 1 };

/** A router that records where each request went, around the real one. */
function recording(options: RouterOptionsInput, engines: number, blocks?: PoolBlockSource) {
  const inner = createPoolRouter(options, engines, blocks);
  const picks = new Map<string, number>();
  const seen: (PoolRoute | null)[] = [];
  const router: PoolRouter = {
    name: inner.name,
    pick(id, route) {
      const i = inner.pick(id, route);
      picks.set(id, i);
      seen.push(route);
      return i;
    },
    firstToken: (id) => inner.firstToken(id),
    done: (id) => inner.done(id),
  };
  return { router, picks, seen };
}

const route = (conversation: string, text: string): PoolRoute => ({
  headers: { 'x-correlation-id': conversation },
  body: null,
  rawBody: '',
  text,
  inputTokens: 64,
});

describe('simulated pools behind the router code', () => {
  it('session affinity: every turn of a conversation reaches the same prefill and decode worker', () => {
    const prefill = recording(defaultPoolPolicy('prefill'), 2);
    const decode = recording(defaultPoolPolicy('decode'), 3);
    const cluster = new DisaggCluster(
      { prefill: { workers: 2, setup: one }, decode: { workers: 3, setup: one } },
      {},
      { prefill: prefill.router, decode: decode.router },
    );
    const conversations = Array.from({ length: 8 }, (_, i) => `conv-${i}`);
    for (let turn = 0; turn < 3; turn++) {
      // Each turn in another order: a least-loaded choice would then move conversations between workers.
      const order = [...conversations.slice(turn * 3), ...conversations.slice(0, turn * 3)].reverse();
      for (const c of order)
        cluster.submit(
          { id: `${c}/${turn}`, promptTokens: 64, maxTokens: 4, ignoreEos: true },
          undefined,
          route(c, c),
        );
      cluster.runUntilIdle();
    }
    for (const { picks } of [prefill, decode]) {
      for (const c of conversations) {
        const workers = new Set([0, 1, 2].map((turn) => picks.get(`${c}/${turn}`)));
        expect(workers.size, c).toBe(1);
      }
      // Different conversations do not all land on one worker.
      expect(new Set(conversations.map((c) => picks.get(`${c}/0`))).size).toBeGreaterThan(1);
    }
    expect(cluster.gauges().requestsFinishedTotal).toBe(24);
  });

  it('cache-aware: a request that shares a long prefix with an earlier one goes where that one went', () => {
    const { router, picks } = recording(defaultPoolPolicy('aggregate'), 2);
    const pool = new AggregatePool({ replicas: 2, setup: one }, {}, router);
    const a = 'You are a coding agent. '.repeat(40);
    const b = 'Summarize this changelog. '.repeat(40);
    pool.submit({ id: 'a1', promptTokens: 200, maxTokens: 64, ignoreEos: true }, undefined, route('x', a));
    pool.submit({ id: 'b1', promptTokens: 200, maxTokens: 64, ignoreEos: true }, undefined, route('y', b));
    // Both engines hold one request: balanced, so the longest prefix match decides.
    pool.submit(
      { id: 'a2', promptTokens: 220, maxTokens: 4, ignoreEos: true },
      undefined,
      route('x', `${a} next`),
    );
    pool.submit(
      { id: 'b2', promptTokens: 220, maxTokens: 4, ignoreEos: true },
      undefined,
      route('y', `${b} next`),
    );
    expect(picks.get('a1')).not.toBe(picks.get('b1'));
    expect(picks.get('a2')).toBe(picks.get('a1'));
    expect(picks.get('b2')).toBe(picks.get('b1'));
  });

  it('the server hands the router each request’s headers and prompt text, and says which router it runs', async () => {
    const rec = recording({ policy: 'consistent-hash', hashFlavor: 'vllm' }, 2);
    const server = await startSimServer({
      setup: { replicas: 2, setup: one },
      timeScale: 50,
      poolRouter: () => rec.router,
    });
    try {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Correlation-ID': 'session-7' },
        body: JSON.stringify({
          model: one.model,
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: [{ type: 'text', text: 'hello' }] },
          ],
          max_tokens: 3,
        }),
      });
      expect(res.status).toBe(200);
      await res.json();
      expect(rec.seen).toHaveLength(1);
      expect(rec.seen[0]).toMatchObject({
        headers: { 'x-correlation-id': 'session-7' },
        text: 'be brief\nhello',
      });
      const models = (await (await fetch(`${server.url}/v1/models`)).json()) as {
        data: { infx: Record<string, unknown> }[];
      };
      expect(models.data[0]?.infx).toMatchObject({ replicas: 2, gpus: 2, routing: 'consistent-hash (vllm)' });
    } finally {
      await server.close();
    }
  });

  it('kv-aware with KV events reads the engines’ caches: a prefix goes back to the engine that holds it', () => {
    let pool: AggregatePool | null = null;
    const { router, picks } = recording(
      { policy: 'kv-aware' },
      2,
      (i, h) => pool?.engines[i]?.holdsBlock(h) ?? false,
    );
    pool = new AggregatePool({ replicas: 2, setup: { ...one, prefixCaching: true } }, {}, router);
    const hashes = Array.from({ length: 32 }, (_, i) => `block-${i}`);
    const submit = (id: string, maxTokens: number, prefixHashes?: string[]) =>
      pool?.submit(
        { id, promptTokens: 512, maxTokens, ignoreEos: true, ...(prefixHashes ? { prefixHashes } : {}) },
        undefined,
        { ...route(id, ''), inputTokens: 512, ...(prefixHashes ? { blockHashes: prefixHashes } : {}) },
      );
    // A long request keeps engine 0 busy, so the prefix's first request goes to engine 1 and is cached there.
    submit('filler', 2000);
    submit('first', 4, hashes);
    expect([picks.get('filler'), picks.get('first')]).toEqual([0, 1]);
    pool.runUntilIdle();
    expect(pool.engines[1]?.holdsBlock('block-0')).toBe(true);
    expect(pool.engines[0]?.holdsBlock('block-0')).toBe(false);
    // Both idle now: least-loaded would take engine 0; the overlap takes engine 1.
    submit('again', 4, hashes);
    expect(picks.get('again')).toBe(1);
  });
});
