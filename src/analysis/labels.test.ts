import { describe, expect, it } from 'vitest';
import { identity } from '../../test/support/curve-points.ts';
import { configLabel, curveLabel, engineLabel, fullLabel, poolLabel, workloadLabel } from './labels.ts';

const pool = { tp: 8, ep: 1, dpAttn: false, pp: 1, dcp: 1, pcp: 1, workers: 0, gpus: 8 };

describe('labels', () => {
  it('parallelism as the dashboard writes it', () => {
    expect(poolLabel(pool)).toBe('tp8');
    expect(poolLabel({ ...pool, ep: 8 })).toBe('tep8');
    expect(poolLabel({ ...pool, ep: 8, dpAttn: true })).toBe('dep8');
    expect(poolLabel({ ...pool, ep: 4 })).toBe('tp8-ep4');
    expect(poolLabel({ ...pool, tp: 4, pp: 2, gpus: 8 })).toBe('tp4-pp2');
  });

  it('config, workload and full labels', () => {
    expect(configLabel(identity())).toBe('h200 sglang fp8 tp8');
    expect(configLabel(identity({ specDecoding: 'mtp' }))).toBe('h200 sglang fp8 tp8 mtp');
    expect(workloadLabel(identity({ isl: 8192, osl: 1024 }))).toBe('dsr1 8k/1k');
    expect(workloadLabel(identity({ isl: 256, osl: 64 }))).toBe('dsr1 256/64');
    expect(fullLabel(identity())).toBe('dsr1 1k/1k h200 sglang fp8 tp8');
  });

  it('simulated curves say so; real ones carry nothing', () => {
    expect(curveLabel(identity(), 'simulated')).toBe('dsr1 1k/1k h200 sglang fp8 tp8 (simulated)');
    expect(curveLabel(identity(), 'real')).toBe('dsr1 1k/1k h200 sglang fp8 tp8');
    expect(engineLabel({ kind: 'simulated', simulator: 'infx-sim/0.1.0+m2' })).toBe(
      'simulated · infx-sim/0.1.0+m2',
    );
    expect(engineLabel({ kind: 'simulated', simulator: null })).toBe(
      'simulated · simulator version not recorded',
    );
    expect(engineLabel({ kind: 'real', simulator: null })).toBe('real engine');
  });

  it('multi-node disaggregated: workers × pool, prefill + decode', () => {
    const id = identity({
      hardware: 'gb200',
      framework: 'dynamo-trt',
      precision: 'fp4',
      disagg: true,
      multiNode: true,
      prefill: { ...pool, tp: 4, workers: 2 },
      decode: { ...pool, tp: 16, ep: 16, dpAttn: true, workers: 1, gpus: 16 },
    });
    expect(configLabel(id)).toBe('gb200 dynamo-trt fp4 2×tp4+1×dep16 disagg');
  });
});
