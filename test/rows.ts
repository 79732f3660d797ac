import type { MatrixRow } from '../src/schema/matrix-row.ts';
import type { PointBench } from '../src/schema/run-dir.ts';

/** Matrix rows of each kind (matrix-spec §6.1–§6.4) for tests, with fields overridable. */

export type Fields = Record<string, unknown>;

export const rowWorker = (n: number, tp: number, extra: Fields = {}): Fields => ({
  'num-worker': n,
  tp,
  ep: 1,
  'dp-attn': false,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
  ...extra,
});

/** Single-node fixed-seq-len, 8k1k by default. */
export const fixedRow = (over: Fields = {}) =>
  ({
    image: 'img',
    model: 'm',
    'model-prefix': 'x',
    precision: 'fp8',
    framework: 'sglang',
    runner: 'mi300x',
    isl: 8192,
    osl: 1024,
    tp: 8,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    conc: 4,
    'max-model-len': 9472,
    ep: 1,
    'dp-attn': false,
    'spec-decoding': 'none',
    'exp-name': 'x_8k1k',
    disagg: false,
    'run-eval': false,
    ...over,
  }) as unknown as MatrixRow;

/** DeepSeek-R1 FP8 on 8×H200 at 1k/256: a row the simulated engine knows (catalog model and hardware). */
export const dsr1H200Row = (over: Fields = {}) =>
  fixedRow({
    image: 'lmsysorg/sglang:v0.5.12-cu130',
    model: 'deepseek-ai/DeepSeek-R1-0528',
    'model-prefix': 'dsr1',
    runner: 'h200-dgxc',
    isl: 1024,
    osl: 256,
    'max-model-len': 2048,
    'exp-name': 'dsr1_1k1k',
    ...over,
  });

/** Multi-node fixed-seq-len (disaggregated over nixl), 8k1k by default. */
export const multiRow = (conc: number[], over: Fields = {}) =>
  ({
    image: 'img',
    model: 'm',
    'model-prefix': 'x',
    precision: 'fp4',
    framework: 'dynamo-trt',
    runner: 'gb200',
    isl: 8192,
    osl: 1024,
    'spec-decoding': 'none',
    prefill: rowWorker(1, 4),
    decode: rowWorker(1, 8),
    conc,
    'max-model-len': 9472,
    'exp-name': 'x_8k1k',
    disagg: true,
    'run-eval': false,
    'kv-p2p-transfer': 'nixl',
    ...over,
  }) as unknown as MatrixRow;

/** Single-node agentic, no KV offload by default. */
export const agenticRow = (tp: number, conc: number, over: Fields = {}) =>
  ({
    image: 'img',
    model: 'm',
    'model-prefix': 'x',
    precision: 'fp8',
    framework: 'sglang',
    runner: 'cluster:b300-nv',
    tp,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    ep: 1,
    'dp-attn': false,
    'spec-decoding': 'none',
    conc,
    'kv-offloading': 'none',
    'total-cpu-dram-gb': 0,
    duration: 3600,
    'exp-name': `x_tp${tp}_conc${conc}_kvnone`,
    'scenario-type': 'agentic-coding',
    ...over,
  }) as unknown as MatrixRow;

/** Multi-node agentic: one concurrency per row. */
export const multiAgenticRow = (conc: number, over: Fields = {}) =>
  ({
    image: 'img',
    model: 'm',
    'model-prefix': 'x',
    precision: 'fp4',
    framework: 'dynamo-sglang',
    runner: 'cluster:gb200-nv',
    'spec-decoding': 'none',
    prefill: rowWorker(1, 4),
    decode: rowWorker(1, 4),
    conc: [conc],
    'kv-offloading': 'none',
    'total-cpu-dram-gb': 0,
    duration: 3600,
    'exp-name': `x_p1x4_d1x4_conc${conc}`,
    disagg: true,
    'scenario-type': 'agentic-coding',
    'kv-p2p-transfer': 'nixl',
    ...over,
  }) as unknown as MatrixRow;

/** A point's fixed-seq-len bench as run directories held it before workloads had kinds (no `kind`). */
export const LEGACY_FIXED_BENCH = {
  isl: 8192,
  osl: 1024,
  randomRangeRatio: 0.8,
  numPrompts: 40,
  warmup: 8,
  endpoint: 'completions',
  tokenizer: null,
  seed: 0,
  maxFailureRate: 0.05,
  requestTimeoutS: 21600,
} as const;

/** An agentic-coding point's bench. */
export const AGENTIC_BENCH: PointBench = {
  kind: 'agentic-coding',
  traces: { name: 'cc-traces', files: [{ path: 'traces.jsonl', sha256: 'a'.repeat(64) }] },
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
