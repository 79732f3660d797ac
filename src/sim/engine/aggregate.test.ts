import { describe, expect, it } from 'vitest';
import { AggregatePool } from './aggregate.ts';
import { createSimEngine, type SimSetup } from './config.ts';
import type { PredictResult } from './predict.ts';
import { predictPoint } from './predict.ts';
import { predictReplicas } from './predict-replicas.ts';
import { setupOfRow } from './rows.ts';

/** Packed TP4: two TP4 engines of Llama-3.3-70B on one 8-GPU H100 node, behind one endpoint. */

const one: SimSetup = {
  model: 'meta-llama/Llama-3.3-70B-Instruct',
  hardware: 'h100',
  precision: 'fp8',
  tp: 4,
};
const worker = { 'num-worker': 2, tp: 4, ep: 1, 'dp-attn': false, pp: 1, 'dcp-size': 1, 'pcp-size': 1 };
const packedRow = {
  model: one.model,
  'model-prefix': 'llama3.3-70b',
  precision: 'fp8',
  runner: 'h100',
  'spec-decoding': 'none',
  prefill: worker,
  decode: { ...worker, 'num-worker': 0 },
  isl: 1024,
  osl: 128,
};

describe('aggregated pool of identical engines', () => {
  it('a multi-node row without a decode pool is num-worker engines of the prefill parallelism', () => {
    expect(setupOfRow(packedRow)).toMatchObject({ replicas: 2, setup: { tp: 4, hardware: 'h100' } });
    const single = { ...packedRow, prefill: { ...worker, 'num-worker': 1 } };
    expect(setupOfRow(single)).toMatchObject({ tp: 4 });
    expect('replicas' in (setupOfRow(single) as object)).toBe(false);
  });

  it('balances requests over its engines, counts every GPU and sums the gauges', () => {
    const pool = new AggregatePool({ replicas: 2, setup: one });
    const { resolved } = createSimEngine(one);
    expect(pool.gpus).toBe(2 * resolved.gpus);
    for (let i = 0; i < 4; i++)
      pool.submit({ id: `r${i}`, promptTokens: 256, maxTokens: 8, ignoreEos: true });
    expect(pool.engines.map((e) => e.gauges().waiting + e.gauges().running)).toEqual([2, 2]);
    expect(pool.gauges().waiting + pool.gauges().running).toBe(4);
    expect(pool.gauges().kvCapacityTokens).toBe(2 * pool.capacityTokens);
    expect(pool.abort('r3')).toBe(true);
    expect(pool.abort('r3')).toBe(false);
  });
});

describe('predicting an aggregated pool', () => {
  const at = (concurrency: number): PredictResult =>
    predictPoint({ ...one, isl: 1024, osl: 128, concurrency, measureRequests: 32 });

  it('an even split is one engine at conc / N, over all N engines’ GPUs', () => {
    const pool = predictReplicas(2, 16, at);
    const half = at(8);
    expect(pool.gpus).toBe(2 * half.gpus);
    expect(pool.concurrency).toBe(16);
    expect(pool.throughputPerGpu).toBeCloseTo(half.throughputPerGpu, 9);
    expect(pool.interactivity).toBeCloseTo(half.interactivity, 9);
  });

  it('an uneven split sums the engines; fewer users than engines leaves GPUs idle', () => {
    const three = predictReplicas(2, 3, at);
    const [two, onlyOne] = [at(2), at(1)];
    expect(three.throughputPerGpu).toBeCloseTo((two.throughputPerGpu + onlyOne.throughputPerGpu) / 2, 9);
    const lonely = predictReplicas(2, 1, at);
    expect(lonely.gpus).toBe(2 * onlyOne.gpus);
    expect(lonely.throughputPerGpu).toBeCloseTo(onlyOne.throughputPerGpu / 2, 9);
    expect(lonely.interactivity).toBeCloseTo(onlyOne.interactivity, 9);
  });
});
