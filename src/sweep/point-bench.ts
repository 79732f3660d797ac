import type { EngineLaunch } from '../schema/engine-launch.ts';
import type { PointSpec } from '../schema/run-dir.ts';
import { sha256File } from './agentic-corpus.ts';
import { runAgenticBench } from './bench-agentic.ts';
import { BenchError, type BenchReport, runBench } from './bench-point.ts';

/**
 * The client's part of one sweep point against the engine the sweep launched, by the point's workload:
 * fixed lengths (`runBench`) or the AgentX replay (`runAgenticBench`). Settings come from the point spec,
 * so a resumed or re-run point measures what was planned.
 */

export interface PointBenchContext {
  outDir: string;
  version: string;
  log(line: string): void;
  signal: AbortSignal;
}

/** In-flight requests may finish this long after an agentic point's duration (the reference's default). */
export const AGENTIC_BENCHMARK_GRACE_S = 30;

export async function benchPoint(
  spec: PointSpec,
  launch: EngineLaunch,
  c: PointBenchContext,
): Promise<BenchReport> {
  const b = spec.bench;
  const common = {
    baseUrl: launch.baseUrl,
    tokenizer: b.tokenizer,
    gpus: spec.gpus.total,
    prefillGpus: spec.gpus.prefill,
    decodeGpus: spec.gpus.decode,
    seed: b.seed,
    timeoutS: b.requestTimeoutS,
    out: c.outDir,
    formats: ['infx'] as ('infx' | 'inferencex')[],
    apiKey: process.env.OPENAI_API_KEY ?? null,
    version: c.version,
  };
  const hooks = { log: c.log, signal: c.signal };
  if (b.kind === 'fixed-seq-len')
    return runBench(
      {
        ...common,
        model: launch.servedModel,
        endpoint: b.endpoint,
        isl: b.isl,
        osl: b.osl,
        randomRangeRatio: b.randomRangeRatio,
        concurrency: spec.conc,
        numPrompts: b.numPrompts,
        warmup: b.warmup,
        requestRate: 'inf',
        burstiness: 1,
        ignoreEos: true,
        chatTemplate: false,
        maxFailureRate: b.maxFailureRate,
        workers: 'auto',
      },
      hooks,
    );
  // The corpus replayed must be the one planned: a file changed since is another benchmark.
  for (const f of b.traces.files) {
    const sha256 = await sha256File(f.path).catch((err: Error) => {
      throw new BenchError(`trace file ${f.path} of point ${spec.pointId}: ${err.message}`);
    });
    if (sha256 !== f.sha256)
      throw new BenchError(
        `trace file ${f.path} changed since the sweep was planned (its SHA-256 is not the point spec's): plan the sweep again`,
      );
  }
  const row = spec.row;
  return runAgenticBench(
    {
      ...common,
      models: [launch.servedModel],
      traces: b.traces.files.map((f) => f.path),
      maxContextTokens: b.maxContextTokens,
      users: spec.conc,
      durationS: b.durationS,
      fast: b.fast,
      warmupRequestsPerLane: b.warmup.requestsPerLane,
      warmupGraceS: b.warmup.graceS,
      benchmarkGraceS: AGENTIC_BENCHMARK_GRACE_S,
      affinityHeaders: [],
      corpusName: b.traces.name,
      labels: {
        accelerator: row.runner,
        framework: row.framework,
        precision: row.precision,
        modelPrefix: row['model-prefix'],
      },
      failedRequestThreshold: b.maxFailureRate,
    },
    hooks,
  );
}
