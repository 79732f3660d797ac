import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgenticMetrics, AgenticStats } from '../../src/schema/agentic-metrics.ts';
import type { AgenticRequestRecord } from '../../src/schema/agentic-record.ts';
import type { MatrixRow } from '../../src/schema/matrix-row.ts';
import type { PointResult } from '../../src/schema/point-result.ts';
import {
  ATTEMPT_FILES,
  POINT_FILES,
  PointBenchSchema,
  type PointSpec,
  RUN_DIR_SCHEMA_VERSION,
} from '../../src/schema/run-dir.ts';
import { attemptDirIn, fileIn, manifestPath, pointDir, pointsDir } from '../../src/schema/run-dir-paths.ts';
import { AGENTIC_BENCH, agenticRow, LEGACY_FIXED_BENCH } from '../rows.ts';
import { arec } from './agentic-records.ts';
import { syntheticManifest, syntheticResult } from './synthetic.ts';

/**
 * Hand-built agentic-coding run directories (every file valid against its schema) for the store's and the
 * dashboard's tests: one point per number of users, served by the simulated engine, each result with an
 * agentic block whose figures follow from `users` (so a test can say which point is which).
 */

const stats = (v: number, count = 100): AgenticStats => ({
  count,
  mean: v,
  p50: v,
  p75: v,
  p90: v,
  p95: v,
  std: 0,
});
const intvty = (p50: number, p90: number) => ({ mean: p50, p50, p75: p50, p90, p95: p90, std: 0 });

/** The figures of the agentic block of the point at `users`. */
export const agenticFigures = (users: number) => ({
  e2eP50: 60 - users,
  e2eP90: 40 - users,
  genP90: 80 - users,
  ttftP90: 200 + 10 * users,
  tputPerGpu: 1000 + 50 * users,
  hitRate: 0.9,
});

export function agenticBlock(users: number, submissionValid = true): AgenticMetrics {
  const f = agenticFigures(users);
  return {
    accounting: {
      recordsTotal: 120,
      recordsProfiled: 100,
      recordsDroppedTotal: 20,
      recordsWarmupDropped: 20,
      recordsErrorDropped: 0,
      recordsCancelled: 0,
      errorCategories: {},
    },
    latency: {
      ttftMs: { ...stats(150), p90: f.ttftP90 },
      e2elMs: stats(2000),
      itlMs: stats(12),
      tpotMs: stats(12),
      fullResponseItlMs: stats(12),
    },
    interactivity: {
      intvty: intvty(90, f.genP90),
      e2eNormIntvty: intvty(f.e2eP50, f.e2eP90),
      fullResponseIntvty: intvty(90, f.genP90),
    },
    tokens: {
      input: stats(50000),
      outputActual: stats(500),
      outputExpected: stats(500),
      totalInput: 5_000_000,
      totalOutput: 50_000,
    },
    throughput: {
      durationS: 600,
      inputTokensPerS: f.tputPerGpu * 8,
      outputTokensPerS: 10,
      totalTokensPerS: f.tputPerGpu * 8,
      gpus: 8,
      perGpu: { total: f.tputPerGpu, output: 10, input: f.tputPerGpu - 10 },
    },
    qps: null,
    cache: {
      theoreticalPrefixCacheHit: { unit: '%', avg: 90, sum: 900, count: 1000 },
      theoreticalCacheHitRate: f.hitRate,
    },
    health: {
      contextOverflowCount: 0,
      contextOverflowRate: 0,
      oslMismatchCount: 0,
      creditDropCount: 0,
      cancelledCount: 0,
      branchStats: { childrenSpawned: 2, childrenErrored: 0, childrenTruncated: 0 },
    },
    coverage: {
      phaseStartMs: 0,
      phaseEndMs: 600_000,
      lastObservationMs: 599_000,
      fraction: 0.998,
      required: 0.98,
      passed: true,
    },
    errorGate: { errors: 0, completed: 100, threshold: 0.1, passed: true, message: null },
    submissionValid,
    submissionInvalidReasons: submissionValid ? [] : ['duration_below_submission_minimum'],
    server: null,
  };
}

export function agenticSpec(runId: string, index: number, users: number, row?: MatrixRow): PointSpec {
  return {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    runId,
    pointId: `x_agentic_tp8_users${users}`,
    index,
    bucket: 'single-node agentic',
    canary: false,
    conc: users,
    row: row ?? agenticRow(8, users),
    gpus: { total: 8, prefill: null, decode: null },
    bench: AGENTIC_BENCH,
    engine: {
      kind: 'sim',
      container: 'none',
      simTimeScale: null,
      readyTimeoutS: 60,
      acceptance: 'golden',
      faults: [],
    },
  };
}

/** `requests`: the point's records, which result.json's counts must match (the store checks them). */
export function agenticResult(
  spec: PointSpec,
  requests: readonly AgenticRequestRecord[],
  submissionValid = true,
): PointResult {
  const n = requests.filter((r) => r.phase === 'benchmark').length;
  const fixed = syntheticResult({ ...spec, bench: PointBenchSchema.parse(LEGACY_FIXED_BENCH) });
  const b = AGENTIC_BENCH;
  if (b.kind !== 'agentic-coding') throw new Error('AGENTIC_BENCH is not agentic');
  return {
    ...fixed,
    workload: {
      kind: 'agentic-coding',
      traces: b.traces,
      durationS: b.durationS,
      warmup: b.warmup,
      maxContextTokens: b.maxContextTokens,
      fast: b.fast,
      tokenizer: { kind: 'builtin', name: 'o200k_base', path: null },
    },
    counts: {
      scheduled: n,
      completed: n,
      failed: 0,
      cancelled: 0,
      failureRate: 0,
      warmupCompleted: requests.length - n,
      warmupFailed: 0,
      shortOutput: 0,
    },
    agentic: agenticBlock(spec.conc, submissionValid),
  };
}

/**
 * Requests of lane `lane`: a root conversation of three turns and a subagent spawned after the first,
 * whose join is the root's third turn; plus one root turn on lane `lane + 1`.
 */
export function laneRequests(lane = 0): AgenticRequestRecord[] {
  const on = (r: AgenticRequestRecord, l: number): AgenticRequestRecord => ({
    ...r,
    agentic: { ...r.agentic, lane: l },
  });
  return [
    on(arec({ conv: 'trace-a', turn: 0, sent: 1000, e2e: 400 }), lane),
    on(arec({ conv: 'trace-a::sub1', turn: 0, sent: 1500, e2e: 300, branch: 'subagent' }), lane),
    on(arec({ conv: 'trace-a', turn: 1, sent: 1600, e2e: 200 }), lane),
    on(arec({ conv: 'trace-a::sub1', turn: 1, sent: 1900, e2e: 300, branch: 'subagent' }), lane),
    on(arec({ conv: 'trace-a', turn: 2, sent: 2300, e2e: 500 }), lane),
    on(arec({ conv: 'trace-b', turn: 0, sent: 1200, e2e: 100 }), lane + 1),
  ];
}

const write = (path: string, value: unknown) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

/** Writes `<out>/<runId>` with one ok agentic point per number of users; returns its path. */
export function writeAgenticRun(
  out: string,
  runId: string,
  users: readonly number[],
  opts: { createdAt?: string; requests?: readonly AgenticRequestRecord[]; submissionValid?: boolean } = {},
): string {
  const createdAt = opts.createdAt ?? '2026-01-01T00:00:00.000Z';
  const runDir = join(out, runId);
  const specs = users.map((u, i) => agenticSpec(runId, i, u));
  mkdirSync(pointsDir(runDir), { recursive: true });
  write(manifestPath(runDir), syntheticManifest(runId, createdAt, specs));
  for (const spec of specs) {
    const dir = pointDir(runDir, spec.pointId);
    mkdirSync(dir, { recursive: true });
    write(fileIn(dir, POINT_FILES.spec), spec);
    const a = attemptDirIn(dir, 1);
    mkdirSync(a, { recursive: true });
    write(fileIn(a, ATTEMPT_FILES.point), {
      ...spec,
      attempt: 1,
      host: 'bench-host',
      startedAt: createdAt,
      launch: null,
      slurmJobId: null,
    });
    write(fileIn(a, ATTEMPT_FILES.status), {
      schemaVersion: RUN_DIR_SCHEMA_VERSION,
      pointId: spec.pointId,
      attempt: 1,
      status: 'ok',
      phase: null,
      reason: null,
      interrupted: false,
      valid: true,
      startedAt: createdAt,
      finishedAt: createdAt,
      durationS: 600,
      host: 'bench-host',
      engineExit: null,
      logTail: [],
    });
    const reqs = opts.requests ?? laneRequests();
    write(fileIn(a, ATTEMPT_FILES.result), agenticResult(spec, reqs, opts.submissionValid));
    writeFileSync(
      fileIn(a, ATTEMPT_FILES.requests),
      reqs.map((r) => JSON.stringify(r)).join('\n') + (reqs.length ? '\n' : ''),
    );
  }
  return runDir;
}
