import { describe, expect, it } from 'vitest';
import { closedLoop, type LoopResult, type LoopTarget } from './closed-loop.ts';
import { createSimEngine, type SimSetup } from './config.ts';
import { DisaggCluster, workerSeed } from './disagg.ts';
import { predictDisagg } from './predict-disagg.ts';

/**
 * The trade real P/D sweeps show against TP8 aggregation on the same 8 GPUs: decode that no prefill
 * interrupts (higher throughput per GPU at mid interactivity), paid for with a TTFT that includes the
 * KV transfer and a lower interactivity where the decode pool has fewer GPUs than the aggregated engine.
 */

const MODEL = 'meta-llama/Llama-3.3-70B-Instruct';
const base: SimSetup = { model: MODEL, hardware: 'h100', precision: 'fp8' };
const ISL = 4096;
const OSL = 256;

function aggregated(tp: number): LoopTarget {
  const { engine } = createSimEngine({ ...base, tp, maxNumSeqs: 512 });
  return {
    get hooks() {
      return engine.hooks;
    },
    set hooks(h) {
      engine.hooks = h;
    },
    submit: (req, at) => {
      engine.advanceTo(at);
      engine.submit(req);
    },
    runUntil: (stop) => {
      while (!stop() && engine.step());
    },
    get kvUsage() {
      return engine.kvUsage;
    },
  };
}

const disagg = () =>
  new DisaggCluster({
    prefill: { workers: 1, setup: { ...base, tp: 4 } },
    decode: { workers: 1, setup: { ...base, tp: 4, maxNumSeqs: 512 } },
  });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const point = (r: LoopResult, gpus: number) => ({
  tputPerGpu: (r.inputTokens + r.outputTokens) / (r.windowMs / 1000) / gpus,
  interactivity: 1000 / median(r.tpotMs),
  ttft: median(r.ttftMs),
});
const run = (target: LoopTarget, conc: number) =>
  closedLoop(target, { concurrency: conc, isl: ISL, osl: OSL, measured: 3 * conc });

describe('disaggregated prefill/decode', () => {
  it('moves the KV at the scale-out rate: 4096 tokens of a 70B model take milliseconds', () => {
    const c = disagg();
    expect(c.gpus).toBe(8);
    // 80 layers x 2 x 8 KV heads x 128 x 1 B (fp8 KV) ... over 4 NICs at 50 GB/s x 0.7, plus the fixed cost.
    const ms = c.transferMs(ISL);
    expect(ms).toBeGreaterThan(2);
    expect(ms).toBeLessThan(50);
    expect(c.transferMs(2 * ISL) - 2).toBeCloseTo(2 * (ms - 2), 6);
  });

  it('TTFT includes the transfer: one request takes prefill + transfer to its first token', () => {
    const lone = run(disagg(), 1);
    const prefillOnly = run(aggregated(4), 1);
    expect(median(lone.ttftMs)).toBeGreaterThan(
      median(prefillOnly.ttftMs) + 0.9 * disagg().transferMs(ISL * 0.8),
    );
  });

  it('at mid concurrency it beats TP8 aggregation on throughput/GPU and interactivity, at a higher TTFT', () => {
    const agg = point(run(aggregated(8), 16), 8);
    const dis = point(run(disagg(), 16), 8);
    expect(dis.tputPerGpu).toBeGreaterThan(agg.tputPerGpu);
    expect(dis.interactivity).toBeGreaterThan(agg.interactivity);
    expect(dis.ttft).toBeGreaterThan(agg.ttft);
  });

  it('at concurrency 1-4 the TP8 engine decodes faster than a TP4 decode pool', () => {
    const agg = point(run(aggregated(8), 4), 8);
    const dis = point(run(disagg(), 4), 8);
    expect(agg.interactivity).toBeGreaterThan(dis.interactivity);
  });

  it('counts every token once: the prefill worker makes the first, the decode worker the rest', () => {
    const c = disagg();
    const seen: number[] = [];
    let finished = -1;
    c.hooks = {
      onToken: (_id, total) => seen.push(total),
      onFinish: (_id, info) => {
        finished = info.outputTokens;
      },
    };
    c.submit({ id: 'a', promptTokens: 1000, maxTokens: 5, ignoreEos: true }, 0);
    c.runUntilIdle();
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(finished).toBe(5);
    expect(c.gauges().generationTokensTotal).toBe(5);
  });
});

describe('the closed loop on a disaggregated cluster', () => {
  it('reports the peak KV usage of the window, not what is left when the loop stops', () => {
    const r = run(disagg(), 64);
    // 64 users of 4k/256 on one TP4 decode worker: their KV is a visible share of the pool.
    expect(r.peakKvUsage).toBeGreaterThan(0.01);
    expect(r.peakKvUsage).toBeLessThanOrEqual(1);
    // A lone user holds less than 64 do.
    expect(run(disagg(), 1).peakKvUsage).toBeLessThan(r.peakKvUsage);
  });
});

describe('acceptance seeds of a cluster', () => {
  const spec = { method: 'mtp' as const, draftTokens: 3, acceptanceLength: 2.5 };
  const setup: SimSetup = { model: MODEL, hardware: 'h100', precision: 'fp8', tp: 4, spec };
  // Fixed lengths: only the acceptance draws can tell two runs apart.
  const w = { isl: 1024, osl: 256, concurrency: 8, rangeRatio: 1, engine: 'same' as const };

  it("each worker draws its own stream, and the point's seed reaches them", () => {
    expect(workerSeed(0, 0, 0)).not.toBe(workerSeed(0, 1, 0));
    expect(workerSeed(0, 1, 0)).not.toBe(workerSeed(0, 1, 1));
    expect(workerSeed(5, 1, 1)).not.toBe(workerSeed(0, 1, 1));
    const two = { prefill: { workers: 1, setup }, decode: { workers: 2, setup } };
    const tpots = (seed: number) => predictDisagg(two, { ...w, seed }).tpotMs;
    // A different seed gives other draws (before, a disaggregated point's seed only drew the lengths).
    expect(tpots(1).median).not.toBe(tpots(0).median);
    expect(tpots(0).median).toBe(tpots(0).median);
  });
});

describe('disaggregated co-simulation in virtual time', () => {
  it('no prefill worker takes a request into a step that starts before the request arrived', () => {
    // Two prefill workers: a returning user (submitted from inside the decode worker's step, at its end)
    // can be routed to one whose clock is behind that time.
    const one: SimSetup = { model: 'meta-llama/Llama-3.1-8B-Instruct', hardware: 'h100', precision: 'fp8' };
    for (const choice of ['exact', 'auto'] as const) {
      const cluster = new DisaggCluster(
        { prefill: { workers: 2, setup: one }, decode: { workers: 1, setup: one } },
        {},
        {},
        choice,
      );
      const sentAt = new Map<string, number>();
      const submit = cluster.submit.bind(cluster);
      cluster.submit = (req, atMs, route) => {
        sentAt.set(req.id, atMs ?? 0);
        return submit(req, atMs, route);
      };
      let early = 0;
      let seen = 0;
      for (const e of cluster.prefill) {
        const finish = e.hooks.onFinish!;
        e.hooks.onFinish = (id, info) => {
          seen++;
          if (info.arrivalMs < sentAt.get(id)! - 1e-9) early++;
          finish(id, info);
        };
      }
      closedLoop(cluster, { concurrency: 48, isl: 2048, osl: 64, measured: 400 });
      expect(seen, choice).toBeGreaterThan(400);
      expect(early, choice).toBe(0);
    }
  });
});
