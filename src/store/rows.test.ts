import { describe, expect, it, vi } from 'vitest';
import { AGENTIC_BENCH, agenticRow, fixedRow, LEGACY_FIXED_BENCH } from '../../test/rows.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import { type PointBench, PointBenchSchema, type PointSpec, type RunManifest } from '../schema/run-dir.ts';
import { runRows } from './rows.ts';

// Whether agentic points can run is metrics/aggregate.ts's to say; both answers are tested here.
const gate = vi.hoisted(() => ({ agenticRunnable: false }));
vi.mock('../metrics/aggregate.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../metrics/aggregate.ts')>();
  return {
    ...real,
    notRunnable: (kind: Parameters<typeof real.notRunnable>[0]) =>
      kind === 'agentic-coding' && gate.agenticRunnable
        ? null
        : (real.notRunnable(kind) ?? (kind === 'agentic-coding' ? { store: 'not runnable yet' } : null)),
  };
});

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
    sweepActive: false,
    manifestSha256: 'c'.repeat(64),
    points: specs.map((s) => ({ spec: s, attempts: [] })),
    issues: [],
  });
}

describe('runRows by workload kind', () => {
  const specs = () => [
    spec('fixed', fixedRow(), FIXED),
    spec('agentic', agenticRow(8, 4), AGENTIC),
    spec('agentic-row', agenticRow(8, 4), FIXED),
    spec('agentic-bench', fixedRow(), AGENTIC),
  ];

  it('refuses agentic points while their kind cannot run, saying why', () => {
    gate.agenticRunnable = false;
    const rows = rowsOf(specs());
    expect(rows.points.map((p) => [p.point_id, p.outcome])).toEqual([['fixed', 'missing']]);
    expect(rows.configs).toHaveLength(1);
    expect(rows.configs[0]?.config_key).toMatch(/\|8192\|1024\|sim$/);
    expect(rows.issues.map((i) => i.pointId)).toEqual(['agentic', 'agentic-row', 'agentic-bench']);
    expect(rows.issues[0]?.file).toBe('/runs/r1/manifest.json');
  });

  it('stores agentic points under their agentic_traces key once they can run; a mixed plan names no curve', () => {
    gate.agenticRunnable = true;
    const rows = rowsOf(specs());
    expect(rows.points.map((p) => [p.point_id, p.outcome])).toEqual([
      ['fixed', 'missing'],
      ['agentic', 'missing'],
    ]);
    const agentic = rows.configs.find((c) => c.benchmark_type === 'agentic_traces');
    expect(agentic).toMatchObject({ isl: 0, osl: 0, kv_offload: 'none' });
    expect(agentic?.config_key).toMatch(/\|agentic_traces\|kvnone\|sim$/);
    expect(rows.configs.find((c) => c.benchmark_type === 'fixed_seq_len')?.kv_offload).toBeNull();
    expect(rows.issues.map((i) => [i.pointId, i.problem])).toEqual([
      ['agentic-row', 'its row is a agentic-coding row but its bench a fixed-seq-len one; not stored'],
      ['agentic-bench', 'its row is a fixed-seq-len row but its bench a agentic-coding one; not stored'],
    ]);
  });
});
