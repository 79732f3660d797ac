import { describe, expect, it } from 'vitest';
import { resolveSim, SimSetupError } from './config.ts';
import { SimEngine, type SimRequest, type StepTimer } from './engine.ts';
import { HostTier } from './host-tier.ts';
import { setupOfRow } from './rows.ts';

/** 1 ms plus 0.01 ms per token, so a shorter prefill is visible in the step time. */
const timer: StepTimer = {
  stepTimeMs: (entries) => 1 + 0.01 * entries.reduce((a, e) => a + e.newTokens, 0),
};

const hashes = (conv: string, n: number) => Array.from({ length: n }, (_, i) => `${conv}${i}`);
const req = (id: string, conv: string, blocks: number): SimRequest => ({
  id,
  promptTokens: blocks * 16,
  maxTokens: 1,
  ignoreEos: true,
  prefixHashes: hashes(conv, blocks),
});

/**
 * 64 GPU blocks; three conversations of 30 prompt blocks run one after the other (one output token each: it
 * finishes with the prefill), then the first comes back with 10 more blocks. C takes the last 4 untouched
 * blocks and evicts 26 of A's cached ones (tail first: a29 … a4), so without a tier a0 … a3 survive.
 */
function replay(hostBlocks: number | null) {
  const engine = new SimEngine({
    timer,
    kvBlocks: 64,
    prefixCaching: true,
    hostKv: hostBlocks === null ? null : { blocks: hostBlocks, loadMsPerToken: 0.001, bytesPerToken: 100 },
  });
  for (const [id, conv] of [
    ['a', 'a'],
    ['b', 'b'],
    ['c', 'c'],
  ] as const) {
    engine.submit(req(id, conv, 30));
    engine.runUntilIdle();
  }
  engine.submit(req('a2', 'a', 40));
  const step = engine.step()!;
  engine.runUntilIdle();
  return { engine, step };
}

describe('host-memory KV tier (kv-offloading: dram)', () => {
  it('turns blocks the GPU evicted into prefix hits, and charges their copy back to the prefill', () => {
    const without = replay(null);
    expect(without.step.prefillTokens).toBe(640 - 4 * 16);
    expect(without.step.kvLoadMs).toBe(0);
    expect(without.engine.gauges().hostKv).toBeNull();

    const withTier = replay(100);
    // 4 blocks on the GPU + 26 from the host: 30 × 16 = 480 tokens not recomputed, 160 left.
    expect(withTier.step.prefillTokens).toBe(160);
    expect(withTier.step.kvLoadMs).toBeCloseTo(26 * 16 * 0.001, 9);
    expect(withTier.step.durationMs).toBeCloseTo(1 + 1.6 + 0.416, 9);
    const g = withTier.engine.gauges();
    expect(g.prefixCacheQueries).toBe(3 * 480 + 640);
    expect(g.prefixCacheHits).toBe(64);
    expect(g.hostKv).toMatchObject({
      capacityTokens: 1600,
      queries: 3 * 480 + 640,
      hits: 26 * 16,
      bytesCpuToGpu: 26 * 16 * 100,
    });
    expect(g.hostKv!.secondsCpuToGpu).toBeCloseTo(0.000416, 12);
    expect(g.hostKv!.bytesGpuToCpu).toBeGreaterThanOrEqual(26 * 16 * 100);
    expect(g.prefixCacheHits + g.hostKv!.hits).toBeGreaterThan(without.engine.gauges().prefixCacheHits);
  });

  it('keeps the most recently evicted blocks when the DRAM budget is smaller than the spill', () => {
    // a29 … a4 are evicted in that order; 10 blocks keep a13 … a4: the hit runs a0 … a3 (GPU), a4 … a13 (host).
    const { step, engine } = replay(10);
    expect(step.prefillTokens).toBe(640 - 14 * 16);
    expect(engine.gauges().hostKv!.hits).toBe(10 * 16);
  });

  it('publishes copied-back blocks on the GPU: the next turn hits them there, with no copy', () => {
    const { engine } = replay(100);
    engine.submit(req('a3', 'a', 41));
    const step = engine.step()!;
    expect(step.kvLoadMs).toBe(0);
    expect(step.prefillTokens).toBe(16); // 40 blocks hit on the GPU; one block left to compute
  });

  it('is LRU by hash', () => {
    const tier = new HostTier({ blocks: 2, loadMsPerToken: 1, bytesPerToken: 1 });
    tier.store('x');
    tier.store('y');
    tier.load(['x'], 0, 1, 16); // x is now the most recent
    tier.store('z');
    expect(tier.lookup(['x', 'z'], 0, 2)).toBe(2);
    expect(tier.lookup(['y'], 0, 1)).toBe(0);
  });
});

describe('host tier from a setup and a matrix row', () => {
  const base = { model: 'dsr1', hardware: 'h200', precision: 'fp8' as const, tp: 8, prefixCaching: true };

  it('sizes the tier from the DRAM budget and the per-rank KV bytes, with the PCIe default bandwidth', () => {
    const r = resolveSim({ ...base, kvOffloadDramGb: 1000 });
    const perRank = r.plan.kvBytesPerTokenPerRank;
    const host = r.engineOptions.hostKv!;
    expect(host.blocks).toBe(Math.floor(1e12 / 8 / (perRank * 16)));
    expect(host.loadMsPerToken).toBeCloseTo((perRank / 50e9) * 1000, 15);
    expect(resolveSim(base).engineOptions.hostKv).toBeNull();
    expect(() => resolveSim({ ...base, prefixCaching: false, kvOffloadDramGb: 10 })).toThrow(SimSetupError);
  });

  it('gives an agentic dram row prefix caching and its total-cpu-dram-gb', () => {
    const row = {
      model: 'deepseek-ai/DeepSeek-R1-0528',
      'model-prefix': 'dsr1',
      runner: 'h200',
      precision: 'fp8',
      tp: 8,
      ep: 1,
      pp: 1,
      'scenario-type': 'agentic-coding',
      'kv-offloading': 'dram',
      'total-cpu-dram-gb': 1500,
    };
    expect(setupOfRow(row)).toMatchObject({ prefixCaching: true, kvOffloadDramGb: 1500 });
    expect(setupOfRow({ ...row, 'kv-offloading': 'none' })).toMatchObject({ prefixCaching: true });
    expect(setupOfRow({ ...row, 'kv-offloading': 'none' })).not.toHaveProperty('kvOffloadDramGb');
    expect(() => setupOfRow({ ...row, 'total-cpu-dram-gb': 0 })).toThrow(/total-cpu-dram-gb/);
  });
});
