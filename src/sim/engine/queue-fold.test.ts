import { describe, expect, it } from 'vitest';
import type { SimSetup } from './config.ts';
import type { PredictResult } from './predict.ts';
import { predictPoint } from './predict.ts';
import { predictDisagg } from './predict-disagg.ts';
import { foldedUsers, foldMeasured, foldWaitMs, inServiceEstimate, QueueWatch } from './queue-fold.ts';

/**
 * Queue folding (queue-fold.ts) against the loop with every user: past saturation the folded prediction
 * simulates fewer users and adds their queue's wait, and agrees with the full loop; where the queue runs dry
 * or the engine preempts it is refused and the prediction is the full loop's, exactly.
 */

const off = (x: number, y: number) => Math.abs(x / y - 1);

function expectClose(folded: PredictResult, full: PredictResult, what: string, ttftTol = 0.03) {
  expect(off(folded.throughputPerGpu, full.throughputPerGpu), `${what}: throughput`).toBeLessThan(0.01);
  expect(off(folded.interactivity, full.interactivity), `${what}: interactivity`).toBeLessThan(0.01);
  expect(off(folded.ttftMs.median, full.ttftMs.median), `${what}: median TTFT`).toBeLessThan(ttftTol);
  expect(off(folded.e2eMs.median, full.e2eMs.median), `${what}: median E2E`).toBeLessThan(0.02);
  expect(folded.concurrency).toBe(full.concurrency);
  expect(folded.gpus).toBe(full.gpus);
}

const LLAMA_8B: SimSetup = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100' };
const DSR1: SimSetup = { model: 'deepseek-ai/DeepSeek-R1-0528', hardware: 'b200', tp: 8, precision: 'fp8' };

describe('queue folding', () => {
  it('a batch cap far below the users: fewer users simulated, the same prediction', () => {
    const w = { ...LLAMA_8B, maxNumSeqs: 64, isl: 1024, osl: 128, concurrency: 1024 };
    const folded = predictPoint(w);
    const full = predictPoint({ ...w, fold: false });
    expect(full.fold).toBeNull();
    expect(folded.fold).not.toBeNull();
    const f = folded.fold!;
    expect(f.place).toBe('before-first-token');
    expect(f.users).toBeLessThan(0.3 * w.concurrency);
    // Little's law for the users left out: their wait is their count over the completion rate.
    expect(f.queueMs).toBeCloseTo(
      foldWaitMs(w.concurrency - f.users, folded.measuredRequests, folded.windowMs),
      6,
    );
    expect(folded.measuredRequests).toBe(full.measuredRequests);
    expect(folded.steps).toBeLessThan(full.steps);
    expectClose(folded, full, 'maxNumSeqs 64, 1024 users');
  });

  it('no queue, no fold: every user in service', () => {
    const w = { ...LLAMA_8B, isl: 1024, osl: 128, concurrency: 256 };
    expect(predictPoint(w).fold).toBeNull();
    expect(predictPoint(w)).toEqual(predictPoint({ ...w, fold: false }));
  });

  it('the full co-simulation and the as-measured method never fold', () => {
    const w = { ...LLAMA_8B, maxNumSeqs: 32, isl: 256, osl: 32, concurrency: 512 };
    expect(predictPoint({ ...w, engine: 'exact' }).fold).toBeNull();
    expect(predictPoint({ ...w, method: 'as-measured', numPrompts: 600 }).fold).toBeNull();
  });

  it('refused where the window preempts: admissions come in bursts', () => {
    const w = {
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      hardware: 'l4',
      precision: 'fp8' as const,
      isl: 2048,
      osl: 512,
      concurrency: 512,
      measureRequests: 128,
    };
    const full = predictPoint({ ...w, fold: false });
    expect(full.preemptions).toBeGreaterThan(0);
    const p = predictPoint(w);
    expect(p.fold).toBeNull();
    expect(p).toEqual(full);
  });

  it('a disaggregated point bound by its prefill pool: the queue before the first token', () => {
    const setup = { prefill: { workers: 1, setup: DSR1 }, decode: { workers: 1, setup: DSR1 } };
    const w = { isl: 8192, osl: 256, concurrency: 2048 };
    const folded = predictDisagg(setup, w);
    const full = predictDisagg(setup, { ...w, fold: false });
    expect(folded.fold?.place).toBe('before-first-token');
    expect(folded.fold!.users).toBeLessThan(0.7 * w.concurrency);
    expectClose(folded, full, 'prefill-bound');
  });

  it('a disaggregated point bound by its decode pool: the wait after the first token, in TPOT', () => {
    const decode = { ...DSR1, maxNumSeqs: 48 };
    const setup = { prefill: { workers: 2, setup: DSR1 }, decode: { workers: 1, setup: decode } };
    const w = { isl: 512, osl: 256, concurrency: 1024 };
    const folded = predictDisagg(setup, w);
    const full = predictDisagg(setup, { ...w, fold: false });
    expect(folded.fold?.place).toBe('after-first-token');
    // The queue is behind the first token: TTFT stays the in-service one, TPOT carries the wait.
    expect(folded.ttftMs.median).toBeLessThan(0.1 * folded.e2eMs.median);
    expectClose(folded, full, 'decode-bound', 0.1);
  });
});

describe('queue folding, disaggregated: what the probe and the watch decide', () => {
  it('far past saturation the folded loop measures whole rounds of its users, and agrees', () => {
    const setup = { prefill: { workers: 1, setup: DSR1 }, decode: { workers: 1, setup: DSR1 } };
    const w = { isl: 8192, osl: 256, concurrency: 8192 };
    const folded = predictDisagg(setup, w);
    const full = predictDisagg(setup, { ...w, fold: false });
    const users = folded.fold!.users;
    expect(users).toBeLessThan(0.3 * w.concurrency);
    expect(full.measuredRequests).toBe(w.concurrency);
    expect(folded.measuredRequests).toBe(foldMeasured(users, w.concurrency));
    expect(folded.measuredRequests % users).toBe(0);
    expect(folded.measuredRequests).toBeLessThan(full.measuredRequests);
    expectClose(folded, full, 'prefill-bound, 8192 users');
  });

  it('a cluster that preempts is not folded: the prediction is the full loop, exactly', () => {
    const setup = { prefill: { workers: 1, setup: DSR1 }, decode: { workers: 1, setup: DSR1 } };
    for (const w of [
      { isl: 8192, osl: 2048, concurrency: 4096 },
      { isl: 8192, osl: 1024, concurrency: 2048 },
    ]) {
      const p = predictDisagg(setup, w);
      expect(p.fold, `${w.isl}/${w.osl} at ${w.concurrency}`).toBeNull();
      expect(p.preemptions).toBeGreaterThan(0);
      expect(p).toEqual(predictDisagg(setup, { ...w, fold: false }));
    }
  });
});

describe('queue folding: its parts', () => {
  it("folds only where it spares a good share of the full loop's completions", () => {
    expect(foldedUsers(10_000, 1000, 10_000)).toBe(1532);
    expect(foldedUsers(1000, 10, 2000)).toBe(47);
    // 1,832 users leave out more than half of 4,096, but their two warm-up rounds spare only 432 of the
    // full loop's 8,192 completions.
    expect(foldedUsers(4096, 1200, 4096)).toBe(4096);
    expect(foldedUsers(2000, 1000, 4000)).toBe(2000);
    expect(foldedUsers(100, 0, 200)).toBe(100);
  });

  it("a folded window: whole rounds of the folded users, at least 4,096 completions, at most the full loop's", () => {
    expect(foldMeasured(2417, 16_384)).toBe(4834);
    expect(foldMeasured(5000, 8192)).toBe(5000);
    expect(foldMeasured(100, 2048)).toBe(2048);
  });

  it('the in-service estimate: the sequence cap, or what the KV cache holds at the mean footprint', () => {
    const w = { isl: 1000, osl: 200, rangeRatio: 1 };
    expect(inServiceEstimate({ capacityTokens: 1e9, maxNumSeqs: 256 }, w)).toBe(256);
    expect(inServiceEstimate({ capacityTokens: 110_000, maxNumSeqs: 256 }, w)).toBe(100);
  });

  it('a queue watch holds while every admission left one waiting', () => {
    const q = new QueueWatch();
    expect(q.held).toBe(true);
    q.see(3);
    q.see(1);
    expect(q.held).toBe(true);
    q.see(0);
    expect(q.held).toBe(false);
    expect(q.low).toBe(0);
  });
});
