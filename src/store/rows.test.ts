import { describe, expect, it } from 'vitest';
import { AGENTIC_BENCH, agenticRow, fixedRow, LEGACY_FIXED_BENCH } from '../../test/rows.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import { type PointBench, PointBenchSchema, type PointSpec, type RunManifest } from '../schema/run-dir.ts';
import { runRows } from './rows.ts';

const FIXED = PointBenchSchema.parse(LEGACY_FIXED_BENCH);
const AGENTIC = AGENTIC_BENCH;

const spec = (pointId: string, row: MatrixRow, bench: PointBench): PointSpec => ({
  schemaVersion: 1,
  runId: 'r1',
  pointId,
  index: 0,
  bucket: 'single-node 8k1k',
  canary: false,
  conc: 4,
  row,
  gpus: { total: 8, prefill: null, decode: null },
  bench,
  engine: {
    kind: 'sim',
    container: 'none',
    simTimeScale: null,
    readyTimeoutS: 60,
    acceptance: 'golden',
    faults: [],
  },
});

function rowsOf(specs: PointSpec[]) {
  const manifest = {
    schemaVersion: 1,
    runId: 'r1',
    createdAt: '2026-01-01T00:00:00.000Z',
    infxVersion: '0.1.0',
    host: { hostname: 'h', platform: 'linux', arch: 'x64', node: 'v20', cpus: 2 },
    source: { kind: 'matrix', file: { path: 'm.json', sha256: 'b'.repeat(64) } },
    seed: 0,
    options: { executor: 'local', retries: 0, failFast: false, canary: false, parallel: 1, slurm: null },
    points: specs,
    skipped: [],
  } satisfies RunManifest;
  return runRows({
    runDir: '/runs/r1',
    manifest,
    manifestJson: '{}',
    manifestSha256: 'c'.repeat(64),
    points: specs.map((s) => ({ spec: s, attempts: [] })),
    issues: [],
  });
}

describe('runRows by workload kind', () => {
  it('stores fixed-seq-len points under their config key and refuses the others, saying why', () => {
    const rows = rowsOf([
      spec('fixed', fixedRow(), FIXED),
      spec('agentic', agenticRow(8, 4), AGENTIC),
      spec('agentic-row', agenticRow(8, 4), FIXED),
      spec('agentic-bench', fixedRow(), AGENTIC),
    ]);
    expect(rows.points.map((p) => [p.point_id, p.outcome])).toEqual([['fixed', 'missing']]);
    expect(rows.configs).toHaveLength(1);
    expect(rows.configs[0]?.config_key).toMatch(/\|8192\|1024\|sim$/);
    const agentic = 'an agentic point: the store holds fixed-seq-len points only; not stored';
    expect(rows.issues.map((i) => [i.pointId, i.problem])).toEqual([
      ['agentic', agentic],
      ['agentic-row', agentic],
      ['agentic-bench', agentic],
    ]);
    expect(rows.issues[0]?.file).toBe('/runs/r1/manifest.json');
  });
});
