import { describe, expect, it } from 'vitest';
import { agenticRow, fixedRow, LEGACY_FIXED_BENCH } from '../../test/rows.ts';
import { jsonSchemaOf, SCHEMAS, type SchemaName } from './registry.ts';
import { PointSpecSchema } from './run-dir.ts';
import {
  type AgenticCodingBench,
  assertFixedSeqLen,
  type FixedSeqLenBench,
  rowWorkloadKind,
  type Workload,
  WorkloadBenchSchema,
  WorkloadKindError,
  WorkloadSchema,
  workloadMismatch,
} from './workload.ts';

const OLD_BENCH = { ...LEGACY_FIXED_BENCH, isl: 1024 };

const TRACES = {
  name: 'semianalysis_cc_traces_weka_062126',
  files: [{ path: 'traces.jsonl', sha256: 'a'.repeat(64) }],
};
const AGENTIC_BENCH: AgenticCodingBench = {
  kind: 'agentic-coding',
  traces: TRACES,
  durationS: 3600,
  warmup: { startMinRatio: 0.25, startMaxRatio: 0.75, requestsPerLane: 10, graceS: 1800 },
  maxContextTokens: null,
  fast: false,
  endpoint: 'chat',
  tokenizer: null,
  seed: 42,
  maxFailureRate: 0.1,
  requestTimeoutS: 14400,
};

const FIXED_RESULT: Workload = {
  kind: 'fixed-seq-len',
  isl: 1024,
  osl: 1024,
  randomRangeRatio: 0.8,
  numPrompts: 40,
  warmup: 8,
  ignoreEos: true,
  tokenizer: { kind: 'builtin', name: 'o200k_base', path: null },
  chatTemplate: false,
};

describe('the workload bench of a point spec', () => {
  it('reads a bench without kind (older run directories) as fixed-seq-len, fields unchanged', () => {
    expect(WorkloadBenchSchema.parse(OLD_BENCH)).toEqual({ kind: 'fixed-seq-len', ...OLD_BENCH });
  });

  it('reads a whole point spec written before kinds', () => {
    const spec = {
      schemaVersion: 1,
      runId: 'r1',
      pointId: 'x_8k1k_conc4',
      index: 0,
      bucket: 'single-node 8k1k',
      canary: false,
      conc: 4,
      row: fixedRow(),
      gpus: { total: 8, prefill: null, decode: null },
      bench: OLD_BENCH,
      engine: {
        kind: 'sim',
        container: 'none',
        simTimeScale: null,
        readyTimeoutS: 600,
        acceptance: 'golden',
        faults: [],
      },
    };
    expect(PointSpecSchema.parse(spec).bench.kind).toBe('fixed-seq-len');
  });

  it('keeps each kind to its own fields', () => {
    expect(WorkloadBenchSchema.parse(AGENTIC_BENCH)).toEqual(AGENTIC_BENCH);
    // An agentic bench has no lengths, a fixed one no traces; the replay is chat only.
    expect(WorkloadBenchSchema.safeParse({ ...AGENTIC_BENCH, isl: 1024 }).success).toBe(false);
    expect(WorkloadBenchSchema.safeParse({ ...OLD_BENCH, traces: TRACES }).success).toBe(false);
    expect(WorkloadBenchSchema.safeParse({ ...AGENTIC_BENCH, endpoint: 'completions' }).success).toBe(false);
    expect(WorkloadBenchSchema.safeParse({ ...OLD_BENCH, kind: 'eval' }).success).toBe(false);
    // A result's workload always names its kind.
    const { kind: _, ...untagged } = FIXED_RESULT;
    expect(WorkloadSchema.safeParse(untagged).success).toBe(false);
  });
});

describe('rowWorkloadKind', () => {
  it("is a row's scenario type; fixed-seq-len rows have none", () => {
    expect(rowWorkloadKind(fixedRow())).toBe('fixed-seq-len');
    expect(rowWorkloadKind(agenticRow(8, 4))).toBe('agentic-coding');
  });
});

describe('assertFixedSeqLen', () => {
  it('passes a fixed-seq-len workload and stops any other kind', () => {
    const fixed: FixedSeqLenBench = {
      kind: 'fixed-seq-len',
      ...(OLD_BENCH as Omit<FixedSeqLenBench, 'kind'>),
    };
    expect(() => assertFixedSeqLen(fixed)).not.toThrow();
    expect(() => assertFixedSeqLen(AGENTIC_BENCH)).toThrow(WorkloadKindError);
    expect(() => assertFixedSeqLen(AGENTIC_BENCH)).toThrow(/a point of kind agentic-coding/);
  });
});

describe('workloadMismatch', () => {
  const planned = WorkloadBenchSchema.parse(OLD_BENCH);
  it('is null when the result ran what the point planned', () => {
    expect(workloadMismatch(FIXED_RESULT, planned)).toBeNull();
  });

  it('names other lengths, as ingest always has, and another kind', () => {
    expect(workloadMismatch({ ...FIXED_RESULT, osl: 256 }, planned)).toEqual({
      problem: "workload 1024/256 is not the point's 1024/1024",
      path: 'workload',
    });
    const agentic: Workload = {
      kind: 'agentic-coding',
      traces: TRACES,
      durationS: 3600,
      warmup: AGENTIC_BENCH.warmup,
      maxContextTokens: null,
      fast: false,
      tokenizer: FIXED_RESULT.tokenizer,
    };
    expect(workloadMismatch(agentic, planned)).toEqual({
      problem: "workload agentic-coding is not the point's fixed-seq-len",
      path: 'workload.kind',
    });
    expect(workloadMismatch(agentic, AGENTIC_BENCH)).toBeNull();
    expect(workloadMismatch({ ...agentic, durationS: 1200 }, AGENTIC_BENCH)?.path).toBe('workload.durationS');
    const other = { ...TRACES, files: [{ path: 'traces.jsonl', sha256: 'b'.repeat(64) }] };
    expect(workloadMismatch({ ...agentic, traces: other }, AGENTIC_BENCH)?.path).toBe('workload.traces');
  });
});

describe('JSON Schema of every contract', () => {
  it('generates, with the workload tagged by kind in results and specs', () => {
    for (const name of Object.keys(SCHEMAS) as SchemaName[])
      expect(() => JSON.stringify(jsonSchemaOf(name)), name).not.toThrow();
    const field = (name: SchemaName, key: string) =>
      JSON.stringify((jsonSchemaOf(name).properties as Record<string, unknown>)[key]);
    for (const json of [field('point-result', 'workload'), field('point-spec', 'bench')]) {
      expect(json).toContain('"const":"fixed-seq-len"');
      expect(json).toContain('"const":"agentic-coding"');
    }
  });
});
