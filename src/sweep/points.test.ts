import { describe, expect, it } from 'vitest';
import { agenticRow, fixedRow, multiRow } from '../../test/rows.ts';
import { REFERENCE_BENCH } from '../schema/reference-client.ts';
import { type PlanPointsOptions, parseFaultRule, planPoints, SweepPlanError } from './points.ts';

const options = (over: Partial<PlanPointsOptions> = {}): PlanPointsOptions => ({
  runId: 'r1',
  canary: false,
  bench: { ...REFERENCE_BENCH, seed: 7, requestTimeoutS: 600 },
  engine: { kind: 'sim', container: 'none', simTimeScale: 10, readyTimeoutS: 60, acceptance: 'golden' },
  faults: [],
  ...over,
});

describe('planPoints', () => {
  it('makes one point per row and concurrency, named as the reference names its results', () => {
    const { points, skipped } = planPoints(
      [fixedRow({ conc: 4 }), multiRow([8, 16], { 'exp-name': 'x_8k1k' })],
      options(),
    );
    expect(skipped).toEqual([]);
    expect(points.map((p) => p.pointId)).toEqual([
      'x_8k1k_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc4_mi300x',
      'x_8k1k_fp4_dynamo-trt_prefill-tp4-pp1-dcp1-pcp1-ep1-dpfalse-nw1_decode-tp8-pp1-dcp1-pcp1-ep1-dpfalse-nw1_disagg-true_spec-none_conc8_gb200',
      'x_8k1k_fp4_dynamo-trt_prefill-tp4-pp1-dcp1-pcp1-ep1-dpfalse-nw1_decode-tp8-pp1-dcp1-pcp1-ep1-dpfalse-nw1_disagg-true_spec-none_conc16_gb200',
    ]);
    expect(points.map((p) => [p.index, p.bucket, p.conc])).toEqual([
      [0, 'single-node 8k1k', 4],
      [1, 'multi-node 8k1k', 8],
      [2, 'multi-node 8k1k', 16],
    ]);
    expect(points[1]?.gpus).toEqual({ total: 12, prefill: 4, decode: 8 });
    expect(points[0]?.gpus).toEqual({ total: 8, prefill: null, decode: null });
    // The reference's client defaults: 10 x and 2 x the concurrency.
    expect(points[2]?.bench).toMatchObject({ isl: 8192, osl: 1024, numPrompts: 160, warmup: 32, seed: 7 });
  });

  it('keeps identical rows apart and lists the rows it cannot run', () => {
    const { points, skipped } = planPoints(
      [fixedRow(), fixedRow(), agenticRow(8, 4), fixedRow({ 'eval-only': true, conc: 2 })],
      options(),
    );
    expect(points.map((p) => p.pointId.replace(/.*_conc/, 'conc'))).toEqual([
      'conc4_mi300x',
      'conc4_mi300x~2',
    ]);
    expect(skipped.map((s) => [s.index, s.reason.split(',')[0]])).toEqual([
      [
        2,
        'agentic-coding rows need a trace corpus: give infx sweep --traces FILE (infx trace synth writes one)',
      ],
      [3, 'an eval-only row without run-eval has nothing to run (no benchmark'],
    ]);
  });

  it('plans agentic rows with the corpus the sweep was given: duration, fast mode, the chat endpoint, users', () => {
    const traces = { name: 'synthetic', files: [{ path: 'c.jsonl', sha256: 'a'.repeat(64) }] };
    const { points, skipped } = planPoints([agenticRow(8, 4), fixedRow()], {
      ...options(),
      agentic: { traces, maxContextTokens: null, fast: false, durationS: null },
    });
    expect(skipped).toEqual([]);
    const agentic = points.filter((p) => p.bench.kind === 'agentic-coding');
    expect(agentic.length).toBeGreaterThan(0);
    for (const p of agentic) {
      if (p.bench.kind !== 'agentic-coding') continue;
      expect(p.bench.traces).toEqual(traces);
      expect(p.bench.endpoint).toBe('chat');
      expect(p.bench.durationS).toBe((p.row as { duration: number }).duration);
      expect(p.bench.fast).toBe(false);
      expect(p.bench.warmup.requestsPerLane).toBe(10);
      expect(p.bench.maxFailureRate).toBe(0.1);
      expect(p.bucket).toMatch(/agentic$/);
    }
  });

  it('plans agentx-fast (1200 s, one warmup request per lane) and a given duration', () => {
    const traces = { name: 'synthetic', files: [{ path: 'c.jsonl', sha256: 'a'.repeat(64) }] };
    const plan = (fast: boolean, durationS: number | null) =>
      planPoints([agenticRow(8, 4)], {
        ...options(),
        agentic: { traces, maxContextTokens: null, fast, durationS },
      }).points[0]?.bench;
    expect(plan(true, null)).toMatchObject({ durationS: 1200, fast: true, warmup: { requestsPerLane: 1 } });
    expect(plan(true, 300)).toMatchObject({ durationS: 300, fast: true });
    expect(plan(false, 300)).toMatchObject({ durationS: 300, fast: false, warmup: { requestsPerLane: 10 } });
  });

  it('puts the canary first: lowest concurrency over single-node 1k1k then 8k1k points, first on ties', () => {
    const rows = [
      fixedRow({ conc: 4 }),
      fixedRow({ conc: 8, isl: 1024, osl: 1024, 'exp-name': 'x_1k1k' }),
      fixedRow({ conc: 4, isl: 1024, osl: 1024, 'exp-name': 'x_1k1k' }),
      multiRow([1]),
    ];
    const { points } = planPoints(rows, options({ canary: true }));
    expect(points[0]).toMatchObject({ canary: true, conc: 4, bucket: 'single-node 1k1k', index: 0 });
    expect(points.filter((p) => p.canary)).toHaveLength(1);
    expect(points.map((p) => p.index)).toEqual([0, 1, 2, 3]);
    // Without a 1k1k point the 8k1k one is the canary; multi-node points never are.
    expect(
      planPoints([multiRow([1]), fixedRow({ conc: 2 })], options({ canary: true })).points[0],
    ).toMatchObject({
      canary: true,
      conc: 2,
    });
  });

  it('attaches faults to the points they select', () => {
    const rows = [fixedRow({ conc: 1 }), fixedRow({ conc: 2 })];
    const { points } = planPoints(
      rows,
      options({ faults: [parseFaultRule('conc2=crash-after:5@1,2'), parseFaultRule('#1=hang')] }),
    );
    expect(points[0]?.engine.faults).toEqual([{ kind: 'hang', requests: null, attempts: null }]);
    expect(points[1]?.engine.faults).toEqual([{ kind: 'crash-after', requests: 5, attempts: [1, 2] }]);
    expect(() => planPoints(rows, options({ faults: [parseFaultRule('conc9=no-start')] }))).toThrow(
      "--sim-fault 'conc9' matches no point",
    );
  });
});

describe('parseFaultRule', () => {
  it('reads SELECTOR=KIND[:N][@ATTEMPTS] and explains mistakes', () => {
    expect(parseFaultRule('a=b=no-start')).toEqual({
      match: 'a=b',
      fault: { kind: 'no-start', requests: null, attempts: null },
    });
    expect(() => parseFaultRule('conc1=crash-after')).toThrow('crash-after needs a request count');
    expect(() => parseFaultRule('conc1=boom')).toThrow(SweepPlanError);
    expect(() => parseFaultRule('no-start')).toThrow('expected SELECTOR=');
  });
});
