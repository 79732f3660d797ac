import { describe, expect, it } from 'vitest';
import { closedLoop } from './closed-loop.ts';
import type { SimSetup } from './config.ts';
import { resolveSim } from './config.ts';
import { DisaggCluster } from './disagg.ts';
import { SimEngine } from './engine.ts';
import { FastEngine, useFastEngine } from './fast-engine.ts';
import type { PerfModel } from './perf-model.ts';
import { type PredictResult, predictPoint } from './predict.ts';
import { predictDisagg } from './predict-disagg.ts';
import type { EngineHooks, EngineOptions, StepEngine, StepTimer } from './types.ts';

// These tests hold the engines to the co-simulation step for step: queue folding (a different loop, not a
// different engine) is off here and tested in queue-fold.test.ts.
const point = (c: Parameters<typeof predictPoint>[0]) => predictPoint({ fold: false, ...c });
const disaggPoint = (s: Parameters<typeof predictDisagg>[0], w: Parameters<typeof predictDisagg>[1]) =>
  predictDisagg(s, { fold: false, ...w });
/**
 * The fast engine against the full co-simulation (issue 21): on a grid of models × concurrencies it gives
 * the same steady-state predictions (same scheduling, same step times, speculative decoding's acceptance drawn
 * from the same stream in the same order, `same`), and within 2% with spread draws (the default) or one
 * shared acceptance sequence (`fast`) where the full engine's own seed-to-seed spread is small. Sized for a
 * 2-core machine: short requests, so the full engine's per-sequence steps stay few.
 */

const metrics = (p: PredictResult) => ({
  throughputPerGpu: p.throughputPerGpu,
  interactivity: p.interactivity,
  ttftMedian: p.ttftMs.median,
  e2eMedian: p.e2eMs.median,
  tpotMedian: p.tpotMs.median,
});

/**
 * `skippedPast`: a disaggregated cluster's decode workers may have skipped steps that start before the loop's
 * last event and end after it (fast-engine.ts, skipDecodes), counted in its steps but not in exact's: at most
 * that many more (one, on this file's points).
 */
function expectSame(fast: PredictResult, exact: PredictResult, what: string, skippedPast = 0) {
  const f = metrics(fast);
  const e = metrics(exact);
  for (const k of Object.keys(e) as (keyof typeof e)[]) {
    expect(Math.abs(f[k] / e[k] - 1), `${what}: ${k}`).toBeLessThan(1e-9);
  }
  expect(fast.steps, `${what}: steps`).toBeGreaterThanOrEqual(exact.steps);
  expect(fast.steps, `${what}: steps`).toBeLessThanOrEqual(exact.steps + skippedPast);
  expect(fast.preemptions, `${what}: preemptions`).toBe(exact.preemptions);
  expect(fast.measuredRequests).toBe(exact.measuredRequests);
  expect(fast.peakKvUsage, `${what}: peak KV usage`).toBe(exact.peakKvUsage);
  expect(fast.kvCapacityTokens).toBe(exact.kvCapacityTokens);
  expect(fast.windowMs, `${what}: window`).toBeCloseTo(exact.windowMs, 6);
}

function expectWithin(fast: PredictResult, exact: PredictResult, tol: number, what: string) {
  const f = metrics(fast);
  const e = metrics(exact);
  for (const k of ['throughputPerGpu', 'interactivity', 'e2eMedian'] as const) {
    expect(Math.abs(f[k] / e[k] - 1), `${what}: ${k}`).toBeLessThanOrEqual(tol);
  }
}

const DSR1_B200: SimSetup = {
  model: 'deepseek-ai/DeepSeek-R1-0528',
  hardware: 'b200',
  tp: 8,
  precision: 'fp8',
};

/**
 * 600 users of 512/32 requests on one engine, and on 2 prefill + 1 decode workers: the fast engine = exact
 * (the default without speculative decoding; `same`, its draws per decode, with it).
 */
function expectSameAggAndDisagg(setup: SimSetup, what: string) {
  expect(useFastEngine('auto', resolveSim(setup).engineOptions)).toBe(true);
  const engine = setup.spec ? ('same' as const) : ('auto' as const);
  const w = { ...setup, isl: 512, osl: 32, concurrency: 600, measureRequests: 600 };
  expectSame(point({ ...w, engine }), point({ ...w, engine: 'exact' }), `agg, ${what}`);
  const disagg = { prefill: { workers: 2, setup }, decode: { workers: 1, setup } };
  const d = { isl: 512, osl: 32, concurrency: 600 };
  expectSame(
    disaggPoint(disagg, { ...d, engine }),
    disaggPoint(disagg, { ...d, engine: 'exact' }),
    `disagg, ${what}`,
  );
}

const MODELS: { name: string; setup: SimSetup }[] = [
  {
    name: 'Llama-3.1-8B (dense) h100 tp1',
    setup: { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100' },
  },
  {
    name: 'Llama-3.3-70B (dense) h200 tp4 fp8',
    setup: { model: 'meta-llama/Llama-3.3-70B-Instruct', hardware: 'h200', tp: 4, precision: 'fp8' },
  },
  {
    name: 'DeepSeek-R1 (MoE, MLA) h200 tp8 fp8',
    setup: { model: 'deepseek-ai/DeepSeek-R1-0528', hardware: 'h200', tp: 8, precision: 'fp8' },
  },
  {
    name: 'DeepSeek-V4-Pro (MoE, sparse attention) b200 tp8 ep8 dp-attn fp4',
    setup: {
      model: 'deepseek-ai/DeepSeek-V4-Pro',
      hardware: 'b200',
      tp: 8,
      ep: 8,
      dpAttn: true,
      precision: 'fp4',
    },
  },
];

describe('the fast engine against the full co-simulation', () => {
  for (const { name, setup } of MODELS) {
    it(`${name}: the same predictions at concurrency 1 to 4096`, () => {
      for (const concurrency of [1, 16, 256, 1024, 4096]) {
        const w = { ...setup, isl: 1024, osl: 64, concurrency };
        expectSame(point(w), point({ ...w, engine: 'exact' }), `${name} conc ${concurrency}`);
      }
    });
  }

  it("TensorRT-LLM's attention-DP balancer: the same predictions, holds and skipped steps included", () => {
    const setup: SimSetup = {
      ...DSR1_B200,
      ep: 8,
      dpAttn: true,
      engineFamily: 'trt',
      dpBalanceTimeoutSteps: 60,
    };
    expect(resolveSim(setup).engineOptions.dpBalance).toEqual({ ranks: 8, timeoutSteps: 60 });
    for (const concurrency of [4, 64, 512]) {
      const w = { ...setup, isl: 1024, osl: 256, concurrency };
      // Skipped decode steps may run past the window's last completion: at most one request's decode.
      expectSame(point(w), point({ ...w, engine: 'exact' }), `balancer conc ${concurrency}`, 256);
    }
    // The hold is what sets TTFT at few users: a lone prompt waits for the counter (up to 60 steps).
    const w = { ...setup, isl: 1024, osl: 256, concurrency: 4 };
    const held = point(w);
    const prompt = point({ ...w, dpBalanceTimeoutSteps: undefined });
    expect(held.ttftMs.median).toBeGreaterThan(5 * prompt.ttftMs.median);
  });

  it('DP-attention: the same predictions whether prompts queue behind the budget or not', () => {
    // 2048 tokens a step: at 64 users of 1024-token prompts some wait (the step's prefill is spread over the
    // ranks); alone, one rank carries it.
    const setup = { ...MODELS[3]!.setup, maxNumBatchedTokens: 2048 };
    for (const concurrency of [1, 64]) {
      const w = { ...setup, isl: 1024, osl: 64, concurrency };
      // The fast engine's skipped decode steps can run past the window's last completion (a handful here).
      expectSame(point(w), point({ ...w, engine: 'exact' }), `DP conc ${concurrency}`, 8);
    }
    // Both engines hand the step model the same queue length, step by step.
    const o = resolveSim(setup).engineOptions;
    const perf = o.timer as PerfModel;
    const queues = (make: (opts: EngineOptions) => StepEngine) => {
      const log: number[] = [];
      const timer: StepTimer = {
        attentionTopK: perf.attentionTopK,
        stepTimeMs: (e, d, q = 0) => {
          log.push(q);
          return perf.stepTimeMs(e, d, q);
        },
        stepTimeTotals: (t, d) => {
          log.push(t.queued);
          return perf.stepTimeTotals(t, d);
        },
      };
      const engine = make({ ...o, timer });
      for (let i = 0; i < 32; i++)
        engine.submit({ id: `r${i}`, promptTokens: 1024, maxTokens: 4, ignoreEos: true });
      while (engine.step());
      return log;
    };
    const exact = queues((opts) => new SimEngine(opts, {}));
    expect(queues((opts) => new FastEngine(opts, {}))).toEqual(exact);
    expect(Math.max(...exact)).toBe(30);
  });

  it('the same predictions at 4096 concurrent 8k/1k requests, where the KV cache binds', () => {
    const w = { ...MODELS[2]!.setup, isl: 8192, osl: 128, concurrency: 4096, measureRequests: 2048 };
    const exact = point({ ...w, engine: 'exact' });
    expect(exact.peakKvUsage).toBeGreaterThan(0.9);
    expectSame(point(w), exact, 'DeepSeek-R1 conc 4096');
  });

  it('the same predictions when the KV cache is so small that requests are preempted', () => {
    const w = {
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      hardware: 'l4',
      precision: 'fp8' as const,
      isl: 2048,
      osl: 512,
      concurrency: 64,
      measureRequests: 64,
    };
    const exact = point({ ...w, engine: 'exact' });
    expect(exact.preemptions).toBeGreaterThan(0);
    expectSame(point(w), exact, 'preempting');
  });

  it('a disaggregated point: the same predictions with every worker on the fast engine', () => {
    const one = (tp: number): SimSetup => ({
      model: 'deepseek-ai/DeepSeek-R1-0528',
      hardware: 'b200',
      tp,
      precision: 'fp8',
    });
    const setup = { prefill: { workers: 2, setup: one(8) }, decode: { workers: 1, setup: one(8) } };
    for (const [concurrency, osl] of [
      [1, 512],
      [4, 512],
      [4, 64],
      [64, 64],
      [600, 64],
    ] as const) {
      const w = { isl: 2048, osl, concurrency };
      expectSame(
        disaggPoint(setup, w),
        disaggPoint(setup, { ...w, engine: 'exact' }),
        `disagg ${concurrency} osl ${osl}`,
        4,
      );
    }
  });

  it('the same predictions when more sequences may run than the token budget holds (one token per decode)', () => {
    // Budget 256, up to 1024 running: decodes alone fill the budget, as a big disaggregated decode worker's do.
    const setup: SimSetup = {
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      hardware: 'h100',
      maxNumSeqs: 1024,
      maxNumBatchedTokens: 256,
    };
    expectSameAggAndDisagg(setup, 'budget-bound');
  });

  it('the same predictions with decodes outside the token budget (SGLang), with and without drafts', () => {
    const base: SimSetup = {
      ...DSR1_B200,
      maxNumSeqs: 1024,
      maxNumBatchedTokens: 256,
      decodesInBudget: false,
    };
    for (const spec of [null, { method: 'mtp' as const, draftTokens: 3, acceptanceLength: 2.5 }]) {
      expectSameAggAndDisagg({ ...base, spec }, `decodes outside the budget, spec ${spec?.method}`);
    }
  });

  it('speculative decoding: the same predictions with draws per decode; within 2% spread or shared', () => {
    const setup: SimSetup = {
      ...DSR1_B200,
      spec: { method: 'mtp', draftTokens: 3, acceptanceLength: 2.5 },
    };
    for (const concurrency of [1, 64, 512]) {
      const w = { ...setup, isl: 1024, osl: 128, concurrency };
      expectSame(
        point({ ...w, engine: 'same' }),
        point({ ...w, engine: 'exact' }),
        `mtp conc ${concurrency}`,
      );
    }
    const w = { ...setup, isl: 1024, osl: 256, concurrency: 256 };
    const exact = point({ ...w, engine: 'exact' });
    expectWithin(point({ ...w, engine: 'fast' }), exact, 0.02, 'shared');
    expectWithin(point(w), exact, 0.02, 'spread (the default)');
    const disagg = { prefill: { workers: 1, setup }, decode: { workers: 1, setup } };
    const d = { isl: 1024, osl: 64, concurrency: 128 };
    expectSame(
      disaggPoint(disagg, { ...d, engine: 'same' }),
      disaggPoint(disagg, { ...d, engine: 'exact' }),
      'disagg mtp',
    );
    expectWithin(
      disaggPoint(disagg, d),
      disaggPoint(disagg, { ...d, engine: 'exact' }),
      0.02,
      'disagg spread',
    );
    expect(useFastEngine('auto', resolveSim(setup).engineOptions)).toBe(true);
  });

  it('spread draws under KV pressure: preemptions, and within 2% of the full co-simulation', () => {
    const setup: SimSetup = {
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      hardware: 'h100',
      gpuMemoryUtilization: 0.32,
      maxNumSeqs: 512,
      maxNumBatchedTokens: 4096,
      spec: { method: 'mtp', draftTokens: 3, acceptanceLength: 2.5 },
    };
    const w = { ...setup, isl: 2048, osl: 512, concurrency: 64 };
    const exact = point({ ...w, engine: 'exact' });
    const spread = point(w);
    expect(exact.preemptions).toBeGreaterThan(0);
    expect(spread.preemptions).toBeGreaterThan(0);
    expect(spread.peakKvUsage).toBeLessThanOrEqual(1);
    expectWithin(spread, exact, 0.02, 'spread, KV-bound');
  });

  it("spread draws keep each request's TPOT spread, as the full co-simulation; one shared sequence loses it", () => {
    const setup: SimSetup = { ...DSR1_B200, spec: { method: 'mtp', draftTokens: 3, acceptanceLength: 2.5 } };
    // Fixed lengths, so the spread of TPOT is the acceptance draws' alone.
    const w = { ...setup, isl: 1024, osl: 256, concurrency: 64, rangeRatio: 1 };
    const width = (p: PredictResult) => (p.tpotMs.p90 - p.tpotMs.median) / p.tpotMs.median;
    const exact = width(point({ ...w, engine: 'exact' }));
    const spread = width(point(w));
    const shared = width(point({ ...w, engine: 'fast' }));
    expect(exact).toBeGreaterThan(0.01);
    expect(Math.abs(spread / exact - 1)).toBeLessThan(0.25);
    expect(shared).toBeLessThan(exact / 4);
  });

  it('skips decode steps in the steady state: fewer calls than steps, the same clock', () => {
    const setup = resolveSim({ model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100' });
    const engine = new FastEngine(setup.engineOptions, {}, true);
    engine.submit({ id: 'a', promptTokens: 100, maxTokens: 500, ignoreEos: true });
    let calls = 0;
    while (engine.step()) calls++;
    const steps = engine.gauges().stepsTotal;
    expect(steps).toBe(500);
    expect(calls).toBeLessThan(10);
    expect(engine.gauges().generationTokensTotal).toBe(500);
  });

  it('refuses setups it does not model (prefix caching, unchunked prefill, batches over the budget)', () => {
    const opts = (s: Partial<SimSetup>) =>
      resolveSim({ model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100', ...s }).engineOptions;
    expect(useFastEngine('fast', opts({ prefixCaching: true }))).toBe(false);
    expect(useFastEngine('fast', opts({ chunkedPrefill: false }))).toBe(false);
    const mtp = { method: 'mtp' as const, draftTokens: 3, acceptanceLength: 2.5 };
    expect(useFastEngine('fast', opts({ maxNumSeqs: 8192, spec: mtp }))).toBe(false);
    expect(useFastEngine('fast', opts({ maxNumSeqs: 8192 }))).toBe(true);
    expect(useFastEngine('auto', opts({}))).toBe(true);
    expect(useFastEngine('exact', opts({}))).toBe(false);
  });

  it("a disaggregated cluster's decode worker skips steps when its arrivals are closed, none when open", () => {
    const one: SimSetup = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100', precision: 'fp8' };
    const setup = { prefill: { workers: 1, setup: one }, decode: { workers: 1, setup: one } };
    const calls = (closed: boolean) => {
      const cluster = new DisaggCluster(setup, {}, {}, 'auto');
      const decode = cluster.decode[0]!;
      let n = 0;
      const step = decode.step.bind(decode);
      decode.step = () => {
        n++;
        return step();
      };
      if (closed) closedLoop(cluster, { concurrency: 2, isl: 512, osl: 400, measured: 8 });
      else {
        for (let i = 0; i < 2; i++) cluster.submit({ id: `r${i}`, promptTokens: 512, maxTokens: 400 }, 0);
        cluster.runUntilIdle();
      }
      return { calls: n, steps: decode.gauges().stepsTotal };
    };
    const closed = calls(true);
    expect(closed.steps).toBeGreaterThan(1000);
    expect(closed.calls).toBeLessThan(closed.steps / 10);
    const open = calls(false);
    expect(open.calls).toBe(open.steps);
  });

  it('aborts a waiting or a decoding request as the full engine does (found by a scan: it keeps no id map)', () => {
    const o = resolveSim({ model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100' }).engineOptions;
    const run = (make: (hooks: EngineHooks) => StepEngine) => {
      const finished: [string, string, number][] = [];
      const engine = make({ onFinish: (id, info) => finished.push([id, info.reason, info.outputTokens]) });
      for (let i = 0; i < 3; i++)
        engine.submit({ id: `r${i}`, promptTokens: 64, maxTokens: 32, ignoreEos: true });
      engine.submit({ id: 'late', promptTokens: 64, maxTokens: 32, ignoreEos: true });
      // One step: the prompts' (the fast engine skips decode-only steps after it, but not after a prefill).
      engine.step();
      const aborted = [engine.abort('r1'), engine.abort('r1'), engine.abort('nobody')];
      while (engine.step());
      return { aborted, finished };
    };
    const exact = run((hooks) => new SimEngine({ ...o, maxNumSeqs: 3 }, hooks));
    expect(exact.aborted).toEqual([true, false, false]);
    expect(exact.finished.find(([id]) => id === 'r1')?.[1]).toBe('abort');
    expect(run((hooks) => new FastEngine({ ...o, maxNumSeqs: 3 }, hooks))).toEqual(exact);
    // A request still waiting (the batch holds 3) is found too.
    const waiting = run((hooks) => new FastEngine({ ...o, maxNumSeqs: 1 }, hooks));
    expect(waiting.aborted).toEqual([true, false, false]);
    expect(waiting.finished.find(([id]) => id === 'r1')).toEqual(['r1', 'abort', 0]);
  });
});
