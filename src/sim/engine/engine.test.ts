import { describe, expect, it } from 'vitest';
import { createSimEngine } from './config.ts';
import { type FinishInfo, SimEngine, type SimRequest, SimRequestError, type StepTimer } from './engine.ts';

/** A step costs 1 ms plus 0.01 ms per token: simple enough to reason about exact timings. */
const timer: StepTimer = {
  stepTimeMs: (entries) => 1 + 0.01 * entries.reduce((a, e) => a + e.newTokens, 0),
};

function recorder() {
  const tokens: [string, number, number][] = [];
  const finished = new Map<string, FinishInfo>();
  return {
    tokens,
    finished,
    hooks: {
      onToken: (id: string, n: number, t: number) => tokens.push([id, n, t]),
      onFinish: (id: string, info: FinishInfo) => finished.set(id, info),
    },
  };
}

const req = (
  id: string,
  promptTokens: number,
  maxTokens: number,
  extra: Partial<SimRequest> = {},
): SimRequest => ({
  id,
  promptTokens,
  maxTokens,
  ignoreEos: true,
  ...extra,
});

describe('SimEngine scheduling', () => {
  it('decodes take from the token budget, unless decodesInBudget is false (then every running decode runs)', () => {
    const decodedInFirstSteps = (decodesInBudget: boolean) => {
      const rec = recorder();
      const engine = new SimEngine(
        { timer, kvBlocks: 4096, maxNumSeqs: 64, maxNumBatchedTokens: 32, decodesInBudget },
        rec.hooks,
      );
      // Two 16-token prompts fit a step's budget: 32 steps admit all 64, none finishes before step 200.
      for (let i = 0; i < 64; i++) engine.submit(req(`r${i}`, 16, 200));
      const steps = Array.from({ length: 40 }, () => engine.step()!);
      return steps.map((s) => s.decodeTokens);
    };
    const inside = decodedInFirstSteps(true);
    const outside = decodedInFirstSteps(false);
    // Inside the budget a step never decodes more than 32; outside, every running request decodes.
    expect(Math.max(...inside)).toBeLessThanOrEqual(32);
    expect(Math.max(...outside)).toBe(64);
  });

  it('splits a long prompt into chunks within the token budget, then decodes one token per step', () => {
    const rec = recorder();
    const engine = new SimEngine({ timer, kvBlocks: 4096, maxNumBatchedTokens: 8192 }, rec.hooks);
    engine.submit(req('a', 20000, 3));
    const steps = [engine.step()!, engine.step()!, engine.step()!];
    expect(steps.map((s) => s.prefillTokens)).toEqual([8192, 8192, 3616]);
    expect(rec.tokens).toEqual([['a', 1, steps[2]!.endMs]]);
    engine.runUntilIdle();
    expect(rec.tokens.map((t) => t[1])).toEqual([1, 2, 3]);
    expect(rec.finished.get('a')).toMatchObject({ reason: 'length', outputTokens: 3, promptTokens: 20000 });
    expect(engine.gauges()).toMatchObject({ running: 0, waiting: 0, kvUsage: 0, generationTokensTotal: 3 });
    expect(engine.gauges().promptTokensTotal).toBe(20000);
  });

  it('admits at most maxNumSeqs and shares the token budget between prefills', () => {
    const engine = new SimEngine({ timer, kvBlocks: 4096, maxNumSeqs: 4, maxNumBatchedTokens: 100 });
    for (let i = 0; i < 10; i++) engine.submit(req(`r${i}`, 60, 5));
    const first = engine.step()!;
    expect(first.prefillTokens).toBe(100); // 60 + a 40-token chunk of the second prompt
    expect(engine.gauges()).toMatchObject({ running: 2, waiting: 8 });
    engine.step();
    engine.step();
    expect(engine.gauges().running).toBe(4);
    engine.runUntilIdle();
    expect(engine.gauges()).toMatchObject({ requestsFinishedTotal: 10, generationTokensTotal: 50 });
  });

  it('stops at the simulated EOS unless ignore_eos is set', () => {
    const rec = recorder();
    const engine = new SimEngine({ timer, kvBlocks: 64 }, rec.hooks);
    engine.submit({ id: 'eos', promptTokens: 10, maxTokens: 8, stopAfter: 3 });
    engine.submit({ id: 'ign', promptTokens: 10, maxTokens: 8, stopAfter: 3, ignoreEos: true });
    engine.runUntilIdle();
    expect(rec.finished.get('eos')).toMatchObject({ reason: 'stop', outputTokens: 3 });
    expect(rec.finished.get('ign')).toMatchObject({ reason: 'length', outputTokens: 8 });
  });

  it('preempts the newest request when KV blocks run out and recomputes it later', () => {
    const rec = recorder();
    // 20 blocks = 320 tokens; four requests of 64 + 64 tokens need 512.
    const engine = new SimEngine({ timer, kvBlocks: 20 }, rec.hooks);
    for (let i = 0; i < 4; i++) engine.submit(req(`r${i}`, 64, 64));
    let sawFull = false;
    while (engine.step()) if (engine.gauges().kvUsage > 0.9) sawFull = true;
    expect(sawFull).toBe(true);
    const g = engine.gauges();
    expect(g.preemptionsTotal).toBeGreaterThan(0);
    expect(g.requestsFinishedTotal).toBe(4);
    for (let i = 0; i < 4; i++) expect(rec.finished.get(`r${i}`)!.outputTokens).toBe(64);
    // The oldest request is never the victim; a newer one is.
    expect(rec.finished.get('r0')!.preemptions).toBe(0);
    expect(Math.max(...[1, 2, 3].map((i) => rec.finished.get(`r${i}`)!.preemptions))).toBeGreaterThan(0);
    // Token counts stay monotone per request across the recompute.
    const last = new Map<string, number>();
    for (const [id, n] of rec.tokens) {
      expect(n).toBeGreaterThan(last.get(id) ?? 0);
      last.set(id, n);
    }
  });

  it('rejects requests that can never fit and duplicate ids', () => {
    const engine = new SimEngine({ timer, kvBlocks: 4 });
    expect(() => engine.submit(req('big', 60, 10))).toThrow(SimRequestError);
    engine.submit(req('x', 10, 10));
    expect(() => engine.submit(req('x', 10, 10))).toThrow(/already/);
    expect(() => engine.submit(req('y', 0, 10))).toThrow(/promptTokens/);
  });

  it('aborts a running request, frees its blocks and reports it', () => {
    const rec = recorder();
    const engine = new SimEngine({ timer, kvBlocks: 64 }, rec.hooks);
    engine.submit(req('a', 100, 50));
    engine.step();
    engine.step();
    expect(engine.gauges().kvUsage).toBeGreaterThan(0);
    expect(engine.abort('a')).toBe(true);
    expect(engine.abort('a')).toBe(false);
    expect(rec.finished.get('a')).toMatchObject({ reason: 'abort', outputTokens: 2 });
    expect(engine.gauges()).toMatchObject({ kvUsage: 0, running: 0 });
    expect(engine.step()).toBeNull();
  });
});

describe('SimEngine prefix caching', () => {
  const hashes = (n: number, tag = 'p') => Array.from({ length: n }, (_, i) => `${tag}${i}`);

  function ttfts(prefixCaching: boolean) {
    const rec = recorder();
    const { engine } = createSimEngine({ model: 'llama3.1-8b', hardware: 'h100', prefixCaching }, rec.hooks);
    // 4096-token shared prefix (256 blocks) + a distinct 100-token tail each.
    engine.submit(req('first', 4196, 4, { prefixHashes: hashes(256) }));
    engine.runUntilIdle();
    engine.submit(req('second', 4196, 4, { prefixHashes: [...hashes(256), 'tail-b'] }));
    engine.runUntilIdle();
    const t = (id: string) => rec.finished.get(id)!.firstTokenMs! - rec.finished.get(id)!.arrivalMs;
    return { first: t('first'), second: t('second'), gauges: engine.gauges(), rec };
  }

  it('skips the prefill of cached blocks: a repeated prefix cuts TTFT', () => {
    const on = ttfts(true);
    expect(on.second).toBeLessThan(on.first * 0.25);
    expect(on.rec.finished.get('second')!.cachedTokens).toBe(4096);
    expect(on.gauges.prefixCacheHitRate).toBeGreaterThan(0.4);
    const off = ttfts(false);
    expect(off.second).toBeCloseTo(off.first, 6);
    expect(off.gauges.prefixCacheHitRate).toBe(0);
  });
});

describe('SimEngine determinism', () => {
  function timings(seed: number) {
    const rec = recorder();
    const { engine } = createSimEngine(
      {
        model: 'llama3.1-8b',
        hardware: 'h100',
        seed,
        spec: { method: 'mtp', draftTokens: 3, acceptanceLength: 2.5 },
      },
      rec.hooks,
    );
    for (let i = 0; i < 8; i++) engine.submit(req(`r${i}`, 200 + 37 * i, 64));
    engine.runUntilIdle();
    return rec.tokens;
  }

  it('gives identical token timings for the same seed and different ones for another seed', () => {
    const a = timings(7);
    expect(timings(7)).toEqual(a);
    expect(timings(8)).not.toEqual(a);
    // Spec decoding emits several tokens in some steps.
    const jumps = new Map<string, number>();
    let multi = 0;
    for (const [id, n] of a) {
      if (n - (jumps.get(id) ?? 0) > 1) multi++;
      jumps.set(id, n);
    }
    expect(multi).toBeGreaterThan(0);
  });
});

describe('SimEngine real-time driver', () => {
  it('emits tokens when the (scaled) wall clock reaches their virtual time', async () => {
    const fast = recorder();
    const ref = new SimEngine({ timer, kvBlocks: 64 }, fast.hooks);
    ref.submit(req('a', 100, 5));
    ref.runUntilIdle();

    let wall = 1000;
    const rec = recorder();
    const wallAtToken: number[] = [];
    const engine = new SimEngine(
      { timer, kvBlocks: 64 },
      {
        onToken: (id, n, t) => {
          rec.hooks.onToken(id, n, t);
          wallAtToken.push(wall);
        },
        onFinish: () => stop.abort(),
      },
    );
    const stop = new AbortController();
    const sleeps: number[] = [];
    const running = engine.runRealtime({
      timeScale: 10,
      signal: stop.signal,
      now: () => wall,
      sleep: async (ms) => {
        sleeps.push(ms);
        wall += ms;
      },
      minSleepMs: 0,
    });
    engine.submit(req('a', 100, 5));
    await running;
    expect(rec.tokens).toEqual(fast.tokens);
    for (let i = 0; i < rec.tokens.length; i++) {
      expect(wallAtToken[i]! - 1000).toBeCloseTo(rec.tokens[i]![2] / 10, 9);
    }
    expect(sleeps.length).toBeGreaterThan(0);
  });

  it('stamps arrivals after an idle gap with the virtual wall time', async () => {
    let wall = 0;
    const rec = recorder();
    const engine = new SimEngine(
      { timer, kvBlocks: 64 },
      {
        ...rec.hooks,
        onFinish: (id, i) => {
          rec.hooks.onFinish(id, i);
          stop.abort();
        },
      },
    );
    const stop = new AbortController();
    const running = engine.runRealtime({
      timeScale: 4,
      signal: stop.signal,
      now: () => wall,
      sleep: async (ms) => {
        wall += ms;
      },
    });
    await new Promise((r) => setImmediate(r));
    wall += 50; // idle for 50 wall ms = 200 virtual ms
    engine.submit(req('late', 10, 2));
    await running;
    expect(rec.finished.get('late')!.arrivalMs).toBeCloseTo(200, 9);
  });
});
