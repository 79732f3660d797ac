import { describe, expect, it } from 'vitest';
import {
  AGENTIC_BENCH,
  agenticRow,
  fixedRow,
  LEGACY_FIXED_BENCH,
  multiAgenticRow,
  rowWorker,
} from '../../test/rows.ts';
import type { MultiNodeFixedRow, SingleNodeFixedRow } from '../schema/matrix-row.ts';
import { PointBenchSchema } from '../schema/run-dir.ts';
import {
  type AgenticRow,
  agenticConfigKey,
  agenticIdentity,
  configIdentity,
  configKey,
  deploymentKey,
  hardwareKey,
  keyEngine,
  pointConfigKey,
  pointIdentity,
} from './identity.ts';

describe('hardwareKey', () => {
  it('strips cluster:, the node index and site or purpose suffixes (dashboard-spec §3.3)', () => {
    const cases: [string, string][] = [
      ['h200', 'h200'],
      ['H100-SXM', 'h100'],
      ['cluster:gb300-nv', 'gb300'],
      ['h100-dgxc-slurm_03', 'h100'],
      ['mi355x-amds_0', 'mi355x'],
      ['mi355x-disagg', 'mi355x'],
      ['b200-trt', 'b200'],
      ['gb200-nv-multinode', 'gb200'],
      ['b300-nb_1', 'b300'],
      ['mi300x-amd', 'mi300x'],
      ['h200-cw_12', 'h200'],
    ];
    for (const [label, key] of cases) expect(hardwareKey(label), label).toBe(key);
  });

  it('keeps an accelerator the catalog does not know (never drops the row)', () => {
    expect(hardwareKey('tpu-v7-nv_2')).toBe('tpu-v7');
  });
});

describe('configIdentity and configKey', () => {
  it('single-node: both pools are the server, workers 0', () => {
    const id = configIdentity(
      fixedRow({ runner: 'mi355x-amds_3', tp: 4, ep: 4, 'dp-attn': true }) as SingleNodeFixedRow,
    );
    const pool = { tp: 4, ep: 4, dpAttn: true, pp: 1, dcp: 1, pcp: 1, workers: 0, gpus: 4 };
    expect(id).toEqual({
      model: 'x',
      hardware: 'mi355x',
      framework: 'sglang',
      precision: 'fp8',
      specDecoding: 'none',
      disagg: false,
      multiNode: false,
      prefill: pool,
      decode: pool,
      isl: 8192,
      osl: 1024,
    });
    const real =
      'x|mi355x|sglang|fp8|none|agg|sn|tp4-ep4-dpa1-pp1-dcp1-pcp1-w0-g4|tp4-ep4-dpa1-pp1-dcp1-pcp1-w0-g4|8192|1024';
    expect(configKey(id, 'real')).toBe(real);
    // A simulated result of the same deployment is another curve: its key says so.
    expect(configKey(id, 'simulated')).toBe(`${real}|sim`);
    expect([keyEngine(real), keyEngine(`${real}|sim`)]).toEqual(['real', 'simulated']);
    expect(deploymentKey(`${real}|sim`)).toBe(real);
    expect(deploymentKey(real)).toBe(real);
  });

  it('multi-node: the prefill and decode worker pools; the key tells every topology apart', () => {
    const row = {
      ...fixedRow({ runner: 'gb200-nv', framework: 'dynamo-trt' }),
      prefill: rowWorker(2, 4, { ep: 4 }),
      decode: rowWorker(1, 8, { ep: 8, 'dp-attn': true }),
      conc: [64],
      disagg: true,
      'kv-p2p-transfer': 'nixl',
    } as unknown as MultiNodeFixedRow;
    const id = configIdentity(row);
    expect(id).toMatchObject({ hardware: 'gb200', disagg: true, multiNode: true });
    expect(id.prefill).toEqual({ tp: 4, ep: 4, dpAttn: false, pp: 1, dcp: 1, pcp: 1, workers: 2, gpus: 8 });
    expect(id.decode).toMatchObject({ workers: 1, gpus: 8, dpAttn: true });
    const other = configIdentity({ ...row, decode: rowWorker(2, 8) } as MultiNodeFixedRow);
    expect(configKey(other, 'real')).not.toBe(configKey(id, 'real'));
    // Stable: the same row always gives the same key, whatever the runner's node index.
    expect(configKey(configIdentity({ ...row, runner: 'gb200-nv_7' }), 'real')).toBe(configKey(id, 'real'));
  });
});

describe('agenticIdentity (client-metrics §7.6: agentic_traces, no isl/osl, conc = users)', () => {
  const pool = { tp: 8, ep: 1, dpAttn: false, pp: 1, dcp: 1, pcp: 1, workers: 0, gpus: 8 };

  it('single-node: the deployment, no lengths, and the KV offload', () => {
    const id = agenticIdentity(agenticRow(8, 16) as AgenticRow);
    expect(id).toEqual({
      model: 'x',
      hardware: 'b300',
      framework: 'sglang',
      precision: 'fp8',
      specDecoding: 'none',
      disagg: false,
      multiNode: false,
      prefill: pool,
      decode: pool,
      benchmarkType: 'agentic_traces',
      isl: null,
      osl: null,
      offload: { mode: 'none', backend: null },
    });
    expect(agenticConfigKey(id, 'real')).toBe(
      'x|b300|sglang|fp8|none|agg|sn|tp8-ep1-dpa0-pp1-dcp1-pcp1-w0-g8|tp8-ep1-dpa0-pp1-dcp1-pcp1-w0-g8|agentic_traces|kvnone',
    );
    expect(keyEngine(agenticConfigKey(id, 'simulated'))).toBe('simulated');
  });

  it('tells offload settings apart; the backend counts only when something is offloaded', () => {
    const dram = (backend: unknown) =>
      agenticIdentity(
        agenticRow(8, 16, {
          'kv-offloading': 'dram',
          'total-cpu-dram-gb': 512,
          'kv-offload-backend': backend,
        }) as AgenticRow,
      );
    const hicache = dram({ name: 'hicache', version: '1.2' });
    expect(hicache.offload).toEqual({ mode: 'dram', backend: { name: 'hicache', version: '1.2' } });
    expect(agenticConfigKey(hicache, 'real')).toMatch(/\|agentic_traces\|kvdram-hicache@1\.2$/);
    expect(agenticConfigKey(dram({ name: 'lmcache' }), 'real')).toMatch(/\|kvdram-lmcache$/);
    const none = agenticIdentity(
      agenticRow(8, 16, { 'kv-offload-backend': { name: 'hicache' } }) as AgenticRow,
    );
    expect(none.offload).toEqual({ mode: 'none', backend: null });
  });

  it('multi-node: the worker pools, as a fixed multi-node key without lengths', () => {
    const id = agenticIdentity(multiAgenticRow(32) as AgenticRow);
    expect(id).toMatchObject({ hardware: 'gb200', disagg: true, multiNode: true, isl: null, osl: null });
    expect(id.prefill).toMatchObject({ tp: 4, workers: 1, gpus: 4 });
  });
});

describe('pointIdentity chooses by kind', () => {
  const fixedBench = PointBenchSchema.parse(LEGACY_FIXED_BENCH);
  const agenticBench = AGENTIC_BENCH;

  it('fixed-seq-len: the curve of configIdentity, at the point concurrency (today’s key)', () => {
    const row = fixedRow();
    const id = pointIdentity({ row, bench: fixedBench, conc: 4 });
    expect(id).toEqual({ kind: 'fixed-seq-len', config: configIdentity(row as SingleNodeFixedRow), conc: 4 });
    expect(pointConfigKey(id!, 'real')).toBe(configKey(configIdentity(row as SingleNodeFixedRow), 'real'));
  });

  it('agentic-coding: the agentic identity, with the users as conc', () => {
    const row = agenticRow(8, 16);
    const id = pointIdentity({ row, bench: agenticBench, conc: 16 });
    expect(id).toEqual({ kind: 'agentic-coding', config: agenticIdentity(row as AgenticRow), conc: 16 });
    expect(pointConfigKey(id!, 'real')).toBe(agenticConfigKey(agenticIdentity(row as AgenticRow), 'real'));
  });

  it('names no curve when the row and the bench are of different kinds', () => {
    expect(pointIdentity({ row: agenticRow(8, 16), bench: fixedBench, conc: 16 })).toBeNull();
    expect(pointIdentity({ row: fixedRow(), bench: agenticBench, conc: 4 })).toBeNull();
  });
});
