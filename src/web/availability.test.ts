import { describe, expect, it } from 'vitest';
import type { StoredRun } from '../schema/store.ts';
import type { AvailabilityRow } from '../store/web-queries.ts';
import { type Availability, resolveFilters } from './availability.ts';

/** The availability cascade on hand-made rows: snapping, pruning, narrowing, never an empty combination. */

const run = (runId: string, status: StoredRun['status'], createdAt: string): StoredRun => ({
  runId,
  createdAt,
  infxVersion: '0.1.0',
  host: 'h',
  sourceKind: 'matrix',
  sourceFiles: [],
  executor: 'local',
  seed: 0,
  status,
  ingestedAt: createdAt,
  planned: 1,
  ingested: 1,
  failed: 0,
  missing: 0,
  engine: { kind: 'real', simulated: 0, real: 1 },
  provenance: null,
  sweepActive: false,
});

const row = (
  runId: string,
  model: string,
  hardware: string,
  precision: string,
  framework = 'sglang',
  isl = 1024,
): AvailabilityRow => ({
  configKey: `${model}|${hardware}|${framework}|${precision}|${isl}`,
  runId,
  model,
  isl,
  osl: 1024,
  precision,
  hardware,
  framework,
});

const a: Availability = {
  runs: [
    run('new', 'unofficial', '2026-02-01'),
    run('old', 'official', '2026-01-01'),
    run('empty', 'staged', '2026-03-01'),
  ],
  rows: [
    row('old', 'dsr1', 'h200', 'fp8'),
    row('old', 'dsr1', 'b200', 'fp4'),
    row('old', 'dsr1', 'b200', 'fp8', 'vllm'),
    row('old', 'dsr1', 'h200', 'fp8', 'sglang', 8192),
    row('old', 'gptoss', 'mi355x', 'fp4'),
    row('new', 'qwen', 'h100', 'bf16'),
  ],
};

describe('resolveFilters', () => {
  it('defaults to official, the model and workload with most configs; statuses only with data', () => {
    const f = resolveFilters(a, {});
    expect(f.selection).toMatchObject({
      status: 'official',
      model: 'dsr1',
      isl: 1024,
      osl: 1024,
      precision: [],
    });
    expect(f.options.status.map((s) => s.value)).toEqual(['official', 'unofficial']);
    expect(f.options.model.map((m) => m.value)).toEqual(['dsr1', 'gptoss']);
    expect(f.options.hardware.map((o) => [o.value, o.configs])).toEqual([
      ['b200', 2],
      ['h200', 1],
    ]);
    expect(f.configs).toBe(3);
  });

  it('lists narrow each other; a selected value keeps data with the others', () => {
    const f = resolveFilters(a, { precision: ['fp8'], framework: ['vllm'] });
    expect(f.selection).toMatchObject({ precision: ['fp8'], framework: ['vllm'], hardware: [] });
    expect(f.options.hardware.map((o) => o.value)).toEqual(['b200']);
    expect(f.options.framework.map((o) => o.value)).toEqual(['sglang', 'vllm']);
    expect(f.options.precision.map((o) => o.value)).toEqual(['fp8']);
    expect(f.configs).toBe(1);
    // fp4 exists, h200 exists, but not together: hardware (later in the cascade) gives way.
    const clash = resolveFilters(a, { precision: ['fp4'], hardware: ['h200'] });
    expect(clash.selection).toMatchObject({ precision: ['fp4'], hardware: [] });
    expect(clash.configs).toBe(1);
    // Two precisions where one survives only with the hardware chosen: the other is dropped.
    const pair = resolveFilters(a, { precision: ['fp4', 'fp8'], hardware: ['h200'] });
    expect(pair.selection).toMatchObject({ precision: ['fp8'], hardware: ['h200'] });
  });

  it('a run selects its status and scope; unknown values snap', () => {
    const f = resolveFilters(a, { run: 'new', model: 'dsr1' });
    expect(f.selection).toMatchObject({ status: 'unofficial', run: 'new', model: 'qwen' });
    expect(f.options.run.map((r) => r.runId)).toEqual(['new']);
    const g = resolveFilters(a, { run: 'nope', status: 'staged', isl: 8192, osl: 1024 });
    expect(g.selection).toMatchObject({ status: 'official', run: null, isl: 8192, osl: 1024 });
    expect(resolveFilters({ rows: [], runs: [] }, {}).selection).toMatchObject({ model: null, isl: null });
  });
});
