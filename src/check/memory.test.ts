import { describe, expect, it } from 'vitest';
import { accelerator, GIB, model, weightBytesPerRank } from '../catalog/index.ts';
import { type EngineSettings, planPool, poolFindings, starts } from './memory.ts';
import type { CheckPoint, Pool } from './points.ts';

const pool = (over: Partial<Pool> = {}): Pool => ({
  role: null,
  engines: 1,
  tp: 8,
  ep: 1,
  pp: 1,
  dpAttn: false,
  dcp: 1,
  pcp: 1,
  hardware: 'b200',
  sequences: 64,
  maxNumSeqs: null,
  offloadDramGb: 0,
  ...over,
});

const point = (over: Partial<CheckPoint> = {}): CheckPoint => ({
  scenario: 'fixed-seq-len',
  image: 'img:v1.0',
  model: 'dsr1',
  modelPrefix: 'dsr1',
  precision: 'fp8',
  framework: 'vllm',
  runner: 'b200',
  specDecoding: 'none',
  conc: 64,
  isl: 8192,
  osl: 1024,
  maxModelLen: 9472,
  kvOffloading: 'none',
  pools: [],
  label: 'tp=8 ep=1 conc=64 isl=8192 osl=1024',
  topology: 'tp=8 ep=1 isl=8192 osl=1024',
  ...over,
});

const settings: EngineSettings = { gpuMemoryUtilization: 0.9, kvCacheDtype: 'auto' };
const dsr1 = model('dsr1');
const b200 = accelerator('b200');
const weights = weightBytesPerRank(dsr1, 'fp8', { tp: 8, pp: 1, ep: 1, dpAttn: false });

describe('the budget each engine family reads from the utilization fraction', () => {
  it('vllm: weights + reserve + KV inside memory × u', () => {
    const p = planPool(point(), pool(), dsr1, b200, 'fp8', settings);
    expect(p.family).toBe('vllm');
    expect(p.budget).toBeCloseTo(180 * 0.9 * GIB);
    expect(p.kvPool).toBeCloseTo(180 * 0.9 * GIB - weights - 8 * GIB);
  });

  it('sglang: the static pool holds weights and KV; the reserve lives in the other 1 − u', () => {
    const p = planPool(point({ framework: 'sglang' }), pool(), dsr1, b200, 'fp8', settings);
    expect(p.kvPool).toBeCloseTo(180 * 0.9 * GIB - weights);
    // A reserve larger than the other 10% spills into the pool.
    const big = planPool(point({ framework: 'sglang' }), pool(), dsr1, b200, 'fp8', {
      ...settings,
      reserveGiB: 20,
    });
    expect(big.kvPool).toBeCloseTo(180 * 0.9 * GIB - weights - 2 * GIB);
  });

  it('trtllm: KV gets u of what is left after weights and reserve', () => {
    const p = planPool(point({ framework: 'dynamo-trt' }), pool(), dsr1, b200, 'fp8', settings);
    expect(p.kvPool).toBeCloseTo((180 * GIB - weights - 8 * GIB) * 0.9);
  });
});

describe('running set and start', () => {
  it('fixed-seq-len: conc × (isl + osl) tokens; dp-attn splits the sequences over the ranks', () => {
    const p = planPool(point(), pool(), dsr1, b200, 'fp8', settings);
    expect(p.seqsPerRank).toBe(64);
    expect(p.runNeed).toBeCloseTo(64 * 9216 * p.kvPerToken);
    const dp = planPool(point(), pool({ dpAttn: true, ep: 8 }), dsr1, b200, 'fp8', settings);
    expect(dp.seqsPerRank).toBe(8);
  });

  it('agentic: 2 × conc sequences, one native-context sequence to start, DRAM extends the running set only', () => {
    const agentic = point({ scenario: 'agentic-coding', isl: null, osl: null, maxModelLen: null, conc: 32 });
    const p = planPool(agentic, pool({ sequences: 64, offloadDramGb: 800 }), dsr1, b200, 'fp8', settings);
    expect(p.maxModelLen).toBe(dsr1.maxContext);
    expect(p.seqsPerRank).toBe(64);
    expect(p.dramPerRank).toBeCloseTo(100e9);
    expect(starts(p)).toBe(true);
  });

  it('a start failure an fp8 KV cache would cure is a warning; one beyond the margin is an error', () => {
    const m = model('minimaxm3');
    const agentic = point({ scenario: 'agentic-coding', isl: null, osl: null, maxModelLen: null, conc: 1 });
    const tp2 = pool({ tp: 2, sequences: 2 });
    const p = planPool(agentic, tp2, m, b200, 'fp4', settings);
    const fp8 = planPool(agentic, tp2, m, b200, 'fp4', { ...settings, kvCacheDtype: 'fp8' });
    const [warn] = poolFindings(agentic, p, fp8, () => null);
    expect(warn).toMatchObject({ severity: 'warning', rule: 'memory.kv-context' });
    const [err] = poolFindings(agentic, p, p, () => null);
    expect(err).toMatchObject({ severity: 'error', rule: 'memory.kv-context' });
  });
});

describe('Engram tables (DeepSeek-V4.1-Flash, user thread 003)', () => {
  const flash = model('dsv41flash');
  const mi355x = accelerator('mi355x');
  const agentic = point({
    scenario: 'agentic-coding',
    model: 'dsv41flash',
    modelPrefix: 'dsv41flash',
    precision: 'fp4',
    runner: 'mi355x',
    conc: 64,
    isl: null,
    osl: null,
    maxModelLen: null,
  });
  const plan = (tp: number, engramOffload?: boolean) =>
    planPool(agentic, pool({ tp, hardware: 'mi355x' }), flash, mi355x, 'fp4', { ...settings, engramOffload });

  it('costs 47.2 GiB per rank at TP4 and 94.4 at TP2 when GPU-resident, none in host memory', () => {
    expect(plan(4).engram / GIB).toBeCloseTo(47.2, 6);
    expect(plan(2).engram / GIB).toBeCloseTo(94.4, 6);
    expect(plan(2, true).engram).toBe(0);
    // Charged before KV: the offload gives the KV pool exactly the tables' bytes back.
    expect(plan(2, true).kvPool - plan(2).kvPool).toBeCloseTo(plan(2).engram, 0);
    expect(plan(2).parts.map(([n]) => n)).toContain('Engram tables (GPU-resident)');
    expect(model('dsv4flash').engramTablesGiB).toBeUndefined();
  });

  it('a finding that the tables cause names them and the host-memory fix', () => {
    // On a card small enough that the TP2 tables leave no room, the fix says how to move them.
    const h200 = accelerator('h200');
    const p = planPool(agentic, pool({ tp: 2, hardware: 'h200' }), flash, h200, 'fp4', settings);
    const fp8 = planPool(agentic, pool({ tp: 2, hardware: 'h200' }), flash, h200, 'fp4', {
      ...settings,
      kvCacheDtype: 'fp8',
    });
    const f = poolFindings(agentic, p, fp8, () => null).find((x) => x.rule.startsWith('memory.'));
    expect(f?.message).toContain('Engram tables (GPU-resident)');
    expect(f?.fix).toContain(`--engram-config '{"cpu_offload":true}'`);
  });
});
