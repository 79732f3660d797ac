import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineKind } from '../../src/schema/curve.ts';
import { type FixedRow, isMultiNode, type SingleNodeFixedRow } from '../../src/schema/matrix-row.ts';
import { POINT_RESULT_SCHEMA_VERSION, type PointResult, type Stats } from '../../src/schema/point-result.ts';
import {
  REFERENCE_BENCH,
  referencePromptCount,
  referenceWarmupCount,
} from '../../src/schema/reference-client.ts';
import {
  ATTEMPT_FILES,
  POINT_FILES,
  type PointAttempt,
  type PointPhase,
  type PointSpec,
  type PointStatus,
  RUN_DIR_SCHEMA_VERSION,
  type RunManifest,
} from '../../src/schema/run-dir.ts';
import { attemptDirIn, fileIn, manifestPath, pointDir, pointsDir } from '../../src/schema/run-dir-paths.ts';
import { assertFixedSeqLen } from '../../src/schema/workload.ts';

/**
 * Synthetic run directories, every file valid against its schema, written in the documented layout: for
 * the store's tests (edge cases a real sweep rarely produces) and its benchmark (10,000-point runs). Their
 * results say a real engine served them (planned as a recipe), unless `engine: 'simulated'` (planned on
 * the simulated engine, results from it, as `infx sweep` on `infx sim serve` writes them).
 */

export type SyntheticAttempt =
  | { kind: 'ok'; tput?: number }
  | { kind: 'failed'; phase: PointPhase; reason: string; withResult?: boolean }
  | { kind: 'interrupted'; phase: PointPhase }
  /** An attempt folder without status.json (killed before it finished). */
  | { kind: 'no-status' };

export interface SyntheticPoint {
  /** Single-node, or multi-node (disaggregated pools; its GPUs are both pools'). */
  row: FixedRow;
  conc: number;
  attempts: readonly SyntheticAttempt[];
}

export const syntheticRow = (over: Partial<SingleNodeFixedRow> = {}): SingleNodeFixedRow => ({
  image: 'lmsysorg/sglang:v0.5.2',
  model: 'deepseek-ai/DeepSeek-R1-0528',
  'model-prefix': 'dsr1',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'h200-nv_0',
  isl: 1024,
  osl: 1024,
  tp: 8,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
  conc: 4,
  'max-model-len': 2248,
  ep: 1,
  'dp-attn': false,
  'spec-decoding': 'none',
  'exp-name': 'dsr1_1k1k',
  disagg: false,
  'run-eval': false,
  ...over,
});

export function syntheticSpec(
  runId: string,
  index: number,
  row: FixedRow,
  conc: number,
  engine: EngineKind = 'real',
): PointSpec {
  const pool = (w: { 'num-worker': number; tp: number; pp: number; 'pcp-size': number }) =>
    w['num-worker'] * w.tp * w.pp * w['pcp-size'];
  const multi = isMultiNode(row);
  const parallel = multi
    ? `p${row.prefill['num-worker']}x${row.prefill.tp}-d${row.decode['num-worker']}x${row.decode.tp}`
    : `tp${row.tp}-ep${row.ep}`;
  const gpus = multi
    ? { total: pool(row.prefill) + pool(row.decode), prefill: pool(row.prefill), decode: pool(row.decode) }
    : { total: row.tp * row.pp * row['pcp-size'], prefill: null, decode: null };
  return {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    runId,
    pointId: `${row['exp-name']}_${row.precision}_${row.framework}_${parallel}_${row.runner}_conc${conc}`,
    index,
    bucket: multi ? 'multi-node 1k1k' : 'single-node 1k1k',
    canary: false,
    conc,
    row: multi ? { ...row, conc: [conc] } : { ...row, conc },
    gpus,
    bench: {
      kind: 'fixed-seq-len',
      ...REFERENCE_BENCH,
      isl: row.isl,
      osl: row.osl,
      numPrompts: referencePromptCount(conc),
      warmup: referenceWarmupCount(conc),
    },
    engine:
      engine === 'simulated'
        ? {
            kind: 'sim',
            container: 'none',
            simTimeScale: 20,
            readyTimeoutS: 1800,
            acceptance: 'golden',
            faults: [],
          }
        : {
            kind: 'recipe',
            container: 'none',
            simTimeScale: null,
            readyTimeoutS: 1800,
            acceptance: 'real',
            faults: [],
          },
  };
}

const SIMULATED_ENGINE: PointResult['engine'] = {
  kind: 'simulated',
  simulator: 'infx-sim/synthetic',
  timeScale: 20,
  clock: 'engine',
  lockstep: true,
  lag: null,
  engineLimited: false,
  reasons: [],
};

const REAL_ENGINE: PointResult['engine'] = {
  kind: 'real',
  simulator: null,
  timeScale: null,
  clock: 'wall',
  lockstep: false,
  lag: null,
  engineLimited: false,
  reasons: [],
};

function stats(median: number, n: number): Stats {
  return {
    count: n,
    mean: median * 1.02,
    std: median * 0.1,
    min: median * 0.7,
    max: median * 1.6,
    median,
    p75: median * 1.1,
    p90: median * 1.2,
    p95: median * 1.3,
    p99: median * 1.5,
    'p99.9': median * 1.55,
  };
}

/** A plausible result for a point: throughput falls and latency rises with concurrency. */
export function syntheticResult(spec: PointSpec, tput = 500 + 40 * Math.sqrt(spec.conc)): PointResult {
  assertFixedSeqLen(spec.bench);
  const n = spec.bench.numPrompts;
  const tpot = 5 + spec.conc * 0.05;
  const ttft = 40 + spec.conc * 2;
  const intvty = (m: number) => 1000 / m;
  const gpus = spec.gpus.total;
  const total = tput * gpus;
  const out = (total * spec.bench.osl) / (spec.bench.isl + spec.bench.osl);
  const latency = {
    ttftMs: stats(ttft, n),
    tpotMs: stats(tpot, n),
    itlMs: stats(tpot, n * 10),
    e2elMs: stats(ttft + tpot * spec.bench.osl, n),
  };
  const t = latency.tpotMs;
  return {
    schemaVersion: POINT_RESULT_SCHEMA_VERSION,
    kind: 'point-result',
    tool: { name: 'infx', version: '0.1.0' },
    createdAt: '2026-01-01T00:00:00.000Z',
    seed: 0,
    target: {
      baseUrl: 'http://127.0.0.1:8000/',
      model: spec.row.model,
      endpoint: 'completions',
    },
    engine: spec.engine.kind === 'sim' ? SIMULATED_ENGINE : REAL_ENGINE,
    workload: {
      kind: 'fixed-seq-len',
      isl: spec.bench.isl,
      osl: spec.bench.osl,
      randomRangeRatio: spec.bench.randomRangeRatio,
      numPrompts: n,
      warmup: spec.bench.warmup,
      ignoreEos: true,
      tokenizer: { kind: 'builtin', name: 'o200k_base', path: null },
      chatTemplate: false,
    },
    load: { concurrency: spec.conc, requestRate: 'inf', burstiness: 1 },
    gpus: { total: gpus, prefill: null, decode: null },
    timing: {
      clockOriginUnixMs: 1.7e12,
      startMs: 1000,
      endMs: 61000,
      durationS: 60,
      wallStartMs: 1000,
      wallEndMs: 61000,
      wallDurationS: 60,
      startUnixMs: 1.7e12 + 1000,
      endUnixMs: 1.7e12 + 61000,
    },
    counts: {
      scheduled: n,
      completed: n,
      failed: 0,
      cancelled: 0,
      failureRate: 0,
      warmupCompleted: spec.bench.warmup,
      warmupFailed: 0,
      shortOutput: 0,
    },
    tokens: {
      totalInput: n * spec.bench.isl,
      totalOutput: n * spec.bench.osl,
      source: 'server',
      mismatch: { input: 0, output: 0 },
    },
    errors: { byCategory: {}, warmupByCategory: {}, samples: [] },
    throughput: {
      requestsPerS: total / (spec.bench.isl + spec.bench.osl),
      inputTokensPerS: total - out,
      outputTokensPerS: out,
      totalTokensPerS: total,
      perGpu: { total: tput, output: out / gpus, input: (total - out) / gpus },
    },
    latency,
    queueInclusive: { queueMs: stats(0.1, n), ttftMs: latency.ttftMs, e2elMs: latency.e2elMs },
    interactivity: {
      mean: intvty(t.mean!),
      median: intvty(t.median!),
      p75: intvty(t.p75!),
      p90: intvty(t.p90!),
      p95: intvty(t.p95!),
      p99: intvty(t.p99!),
      'p99.9': intvty(t['p99.9']!),
    },
    steadyState: null,
    wallClock: null,
    client: {
      workers: 1,
      eventLoopDelayMs: { p50: 0.1, p99: 1, max: 2 },
      eventLoopUtilization: 0.2,
      cpuPercent: 20,
      sendLagMs: { p50: 0.1, p99: 1, max: 2 },
      clientLimited: false,
      reasons: [],
    },
    gate: { maxFailureRate: spec.bench.maxFailureRate, passed: true, reason: null },
    valid: true,
  };
}

export function syntheticManifest(runId: string, createdAt: string, points: PointSpec[]): RunManifest {
  const sha = (c: string) => c.repeat(64);
  return {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    runId,
    createdAt,
    infxVersion: '0.1.0',
    host: { hostname: 'bench-host', platform: 'linux', arch: 'x64', node: 'v20.0.0', cpus: 2 },
    source: { kind: 'matrix', file: { path: '/work/matrix.json', sha256: sha('a') } },
    seed: 0,
    options: { executor: 'local', retries: 1, failFast: false, canary: false, parallel: 1, slurm: null },
    points,
    skipped: [],
  };
}

const write = (path: string, value: unknown) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

function writeAttempt(dir: string, spec: PointSpec, n: number, a: SyntheticAttempt, startedAt: string): void {
  mkdirSync(dir, { recursive: true });
  const point: PointAttempt = {
    ...spec,
    attempt: n,
    host: 'bench-host',
    startedAt,
    launch: null,
    slurmJobId: null,
  };
  write(fileIn(dir, ATTEMPT_FILES.point), point);
  if (a.kind === 'no-status') return;
  const ok = a.kind === 'ok';
  const status: PointStatus = {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    pointId: spec.pointId,
    attempt: n,
    status: ok ? 'ok' : 'failed',
    phase: ok ? null : a.phase,
    reason: a.kind === 'failed' ? a.reason : a.kind === 'interrupted' ? 'interrupted (Ctrl-C)' : null,
    interrupted: a.kind === 'interrupted',
    valid: ok ? true : null,
    startedAt,
    finishedAt: startedAt,
    durationS: 60,
    host: 'bench-host',
    engineExit: null,
    logTail: [],
  };
  write(fileIn(dir, ATTEMPT_FILES.status), status);
  if (ok || (a.kind === 'failed' && a.withResult))
    write(fileIn(dir, ATTEMPT_FILES.result), syntheticResult(spec, a.kind === 'ok' ? a.tput : undefined));
}

/** Writes a run directory `<out>/<runId>` and returns its path. */
export function writeSyntheticRun(
  out: string,
  runId: string,
  points: readonly SyntheticPoint[],
  createdAt = '2026-01-01T00:00:00.000Z',
  opts: { engine?: EngineKind; manifest?: Partial<RunManifest> } = {},
): string {
  const runDir = join(out, runId);
  const specs = points.map((p, i) => syntheticSpec(runId, i, p.row, p.conc, opts.engine));
  mkdirSync(pointsDir(runDir), { recursive: true });
  write(manifestPath(runDir), { ...syntheticManifest(runId, createdAt, specs), ...opts.manifest });
  specs.forEach((spec, i) => {
    const dir = pointDir(runDir, spec.pointId);
    mkdirSync(dir, { recursive: true });
    write(fileIn(dir, POINT_FILES.spec), spec);
    points[i]!.attempts.forEach((a, k) => {
      writeAttempt(attemptDirIn(dir, k + 1), spec, k + 1, a, createdAt);
    });
  });
  return runDir;
}
