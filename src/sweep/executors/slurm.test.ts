import { describe, expect, it } from 'vitest';
import { fixedRow, multiRow, rowWorker } from '../../../test/rows.ts';
import type { MatrixRow } from '../../schema/matrix-row.ts';
import { REFERENCE_BENCH } from '../../schema/reference-client.ts';
import type { PointSpec } from '../../schema/run-dir.ts';
import { planPoints } from '../points.ts';
import { jobSize, pointJobScript } from './slurm.ts';

function spec(row: MatrixRow, kind: 'sim' | 'recipe' = 'recipe'): PointSpec {
  const { points } = planPoints([row], {
    runId: 'r7',
    canary: false,
    bench: { ...REFERENCE_BENCH, requestTimeoutS: 60 },
    engine: { kind, container: 'srun', simTimeScale: null, readyTimeoutS: 60, acceptance: 'golden' },
    faults: [],
  });
  return points[0] as PointSpec;
}

describe('Slurm job sizing', () => {
  it('asks for whole nodes of GPUs, a heterogeneous job for a disaggregated point, one bare node for sim', () => {
    expect(jobSize(spec(fixedRow({ tp: 8 })), 8)).toEqual({ nodes: 1, gpusPerNode: 8 });
    expect(jobSize(spec(fixedRow({ tp: 4 })), 8)).toEqual({ nodes: 1, gpusPerNode: 4 });
    expect(jobSize(spec(fixedRow({ tp: 8, pp: 2 })), 8)).toEqual({ nodes: 2, gpusPerNode: 8 });
    const disagg = multiRow([4], { prefill: rowWorker(2, 4), decode: rowWorker(1, 16) });
    expect(jobSize(spec(disagg), 8)).toEqual({
      components: [
        { nodes: 2, gpusPerNode: 4 },
        { nodes: 2, gpusPerNode: 8 },
      ],
    });
    expect(jobSize(spec(disagg, 'sim'), 8)).toEqual({ nodes: 1, gpusPerNode: 0 });
  });

  it('writes a batch script that runs infx sweep point into the attempt directory', () => {
    const s = spec(fixedRow({ tp: 4 }));
    const script = pointJobScript(
      { spec: s, attempt: 2, dir: '/runs/r7/points/p/attempt-2', specFile: '/runs/r7/points/p/spec.json' },
      {
        runId: 'r7',
        runDir: '/runs/r7',
        gpuRequest: 'gres',
        gpusPerNode: 8,
        args: ['--partition=gpu'],
        timeLimitMin: 30,
      },
    );
    expect(script).toContain('#SBATCH --job-name=infx-r7-1');
    expect(script).toContain('#SBATCH --output=/runs/r7/points/p/attempt-2/infx.log');
    expect(script).toContain('#SBATCH --nodes=1');
    expect(script).toContain('#SBATCH --gres=gpu:4');
    expect(script).toContain('#SBATCH --time=30');
    expect(script).toContain('#SBATCH --partition=gpu');
    expect(script).toMatch(
      /\nexec \S+ \S+bin\/infx\.js sweep point --point \/runs\/r7\/points\/p\/spec\.json --out \/runs\/r7\/points\/p\/attempt-2 --attempt 2\n/,
    );
    const het = pointJobScript(
      { spec: spec(multiRow([4])), attempt: 1, dir: '/d', specFile: '/s' },
      {
        runId: 'r7',
        runDir: '/runs/r7',
        gpuRequest: 'gpus-per-node',
        gpusPerNode: 8,
        args: [],
        timeLimitMin: 30,
      },
    );
    expect(het).toContain('#SBATCH hetjob');
  });
});
