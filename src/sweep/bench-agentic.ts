import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { monotonicMs } from '../client/clock.ts';
import { type ClockReading, lagBetween, readEngineClock } from '../client/engine-clock.ts';
import { assessClient } from '../client/health.ts';
import { runLoad } from '../client/load.ts';
import { scrapeMetrics } from '../client/metrics-scrape.ts';
import { endpointPath } from '../client/payload.ts';
import { type InferencexAgenticIdentity, toInferencexAgentic } from '../metrics/agentic/inferencex-export.ts';
import { aggregateAgenticPoint } from '../metrics/agentic/point.ts';
import { serverCacheMetrics } from '../metrics/agentic/server-metrics.ts';
import type { InferencexAgenticServerMetricsBlock } from '../schema/agentic-metrics.ts';
import { ATTEMPT_FILES } from '../schema/run-dir.ts';
import type { AgenticCodingWorkload } from '../schema/workload.ts';
import { openCompiledCorpus } from '../workload/agentic/compile-open.ts';
import { droppedNote, newReport } from '../workload/agentic/corpus.ts';
import { TraceCorpusError } from '../workload/agentic/errors.ts';
import { publicCorpusFiles } from '../workload/agentic/hf-corpus.ts';
import type { AffinityHeader } from '../workload/agentic/replay-ids.ts';
import { type AgenticReplaySpec, createReplaySession } from '../workload/agentic/replay-session.ts';
import { loadTokenizer } from '../workload/tokenizers.ts';
import { writeFileAtomic, writeLinesAtomic } from './atomic-write.ts';
import {
  type BenchHooks,
  BenchInterrupted,
  type BenchReport,
  BenchUsageError,
  probeTarget,
  sumOrNull,
  withBenchLock,
} from './bench-point.ts';

/**
 * `infx bench --workload agentic`: one AgentX point, the replay of a trace corpus by `users` concurrent
 * trajectory trees (client-metrics §2, addendum §1) against any OpenAI-compatible chat server. Opens the
 * corpus (compile-open.ts: hashed and indexed in one pass; a trace read, validated and compiled when the
 * replay first needs it, so the first request goes out in seconds on a GB corpus), runs warmup (which
 * lasts until every trace is ready: a bad line anywhere stops the run with its file:line before
 * profiling) then the profiling phase for the duration, writes the compile cache, counts
 * output tokens after the clock stops, aggregates (§4.4) and writes `requests.jsonl`, `result.json` and,
 * with `--format inferencex`, the reference's agentic aggregate.
 */

export interface AgenticBenchOptions {
  baseUrl: string;
  /** Served model names: the traces' main model maps to the first, the others to the rest (addendum §1.6). */
  models: readonly string[];
  traces: readonly string[];
  /** Drops traces needing a longer context; null: none dropped. */
  maxContextTokens: number | null;
  /** Concurrent trajectory trees (the point's concurrency). */
  users: number;
  durationS: number;
  /** agentx-fast: one warmup request per lane (and the caller's shorter duration). */
  fast: boolean;
  warmupRequestsPerLane: number;
  warmupGraceS: number;
  benchmarkGraceS: number;
  seed: number;
  timeoutS: number;
  gpus: number | null;
  prefillGpus: number | null;
  decodeGpus: number | null;
  tokenizer: string | null;
  affinityHeaders: readonly AffinityHeader[];
  out: string;
  formats: readonly ('infx' | 'inferencex')[];
  apiKey: string | null;
  version: string;
  /** The corpus's name in the result (the public corpus's, or the file's). */
  corpusName: string;
  labels: { accelerator: string; framework: string; precision: string; modelPrefix: string };
  /** The error ratio at which the live gate cancels the run (§2.8). */
  failedRequestThreshold: number;
  /**
   * Tests only (the CLI never sets it): play the replay's clock this many times faster than the wall clock
   * against a server that runs in real time, so trace seconds pass in wall milliseconds. Figures are then
   * not about real time at all. Absent: the simulated engine's own time scale, or 1.
   */
  replayClockScale?: number;
}

/** Request slots per user: a tree sends its root and up to this many − 1 subagents at once. */
export const SLOTS_PER_USER = 8;
/** The live error gate judges the ratio once this many profiling requests have finished. */
export const LIVE_GATE_MIN_FINISHED = 10;

const NO_CORPUS =
  '--workload agentic needs --traces FILE… (a traces.jsonl corpus; infx trace synth writes one) ' +
  'or --public MODEL_PREFIX (the public corpus for that model prefix, from the local Hugging Face cache)';

/**
 * The corpus files of `infx bench --workload agentic` and its name in the result: `--traces FILE…`, or
 * `--public PREFIX`, the public corpus the reference replays for that model prefix, found in the local
 * Hugging Face cache (never downloaded; absent: a TraceCorpusError saying where it looked and how to get
 * it). Exactly one of the two. The name is `--corpus-name`, else the loader's or the first file's.
 */
export function agenticCorpusFiles(
  given: {
    traces?: readonly string[] | undefined;
    public?: string | undefined;
    corpusName?: string | undefined;
  },
  env: NodeJS.ProcessEnv = process.env,
): { traces: string[]; corpusName: string } {
  const traces = given.traces ?? [];
  if (given.public !== undefined && traces.length > 0)
    throw new BenchUsageError(
      '--traces and --public both name the corpus: give one (--traces FILE… or --public MODEL_PREFIX)',
    );
  if (given.public !== undefined) {
    const found = publicCorpusFiles(given.public, env);
    return { traces: found.files, corpusName: given.corpusName ?? found.corpus.loader };
  }
  if (traces.length === 0) throw new BenchUsageError(NO_CORPUS);
  const first = basename(traces[0] as string).replace(/\.jsonl$/, '');
  return { traces: [...traces], corpusName: given.corpusName ?? first };
}

export function checkAgenticOptions(o: AgenticBenchOptions): void {
  const problems: string[] = [];
  if (!/^https?:\/\//.test(o.baseUrl))
    problems.push(`--base-url must start with http:// or https:// (got '${o.baseUrl}')`);
  if (o.traces.length === 0) problems.push(NO_CORPUS);
  if (o.models.length === 0) problems.push('--model names the served model');
  if (!(o.durationS > 0)) problems.push('--duration must be a positive number of seconds');
  if (problems.length) throw new BenchUsageError(problems.join('\n'));
}

async function sha256Of(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

/** `infx bench --workload agentic`: the replay holding `--out`'s lock (a second bench there is refused). */
export function runAgenticBenchLocked(o: AgenticBenchOptions, hooks: BenchHooks): Promise<BenchReport> {
  checkAgenticOptions(o);
  return withBenchLock(o.out, hooks.log, () => runAgenticBench(o, hooks));
}

export async function runAgenticBench(o: AgenticBenchOptions, hooks: BenchHooks): Promise<BenchReport> {
  checkAgenticOptions(o);
  const baseUrl = new URL(o.baseUrl);
  const signal = hooks.signal ?? new AbortController().signal;
  const served = o.models;
  const probe = await probeTarget(baseUrl, o.timeoutS, o.apiKey, served, hooks.log);
  // The replay's times (think times, idle caps, the duration) are the engine's: a simulated engine faster
  // than real time has them scaled onto the wall clock.
  const timeScale = o.replayClockScale ?? (probe.simulator !== null ? (probe.timeScale ?? 1) : 1);
  if (probe.simulator !== null)
    hooks.log(
      `the server is a simulated engine (${probe.simulator}${timeScale !== 1 ? `, ${timeScale}x faster than real time` : ''}): ` +
        'the replay runs on simulated time; figures are simulated time read off the wall clock',
    );
  const tokenizer = await loadTokenizer({
    path: o.tokenizer ?? undefined,
    model: probe.simulator === null ? served[0] : undefined,
    warn: hooks.log,
  });
  const corpusOptions = o.maxContextTokens === null ? {} : { maxContext: o.maxContextTokens };
  // Opened, not read: a trace is validated and compiled when the replay first needs it (the warmup
  // lasts until all are, so a bad line anywhere stops the run before profiling, with its file:line).
  const corpus = await openCompiledCorpus(o.traces, { tokenizer, seed: o.seed, ...corpusOptions }).catch(
    (err: unknown) => {
      throw err instanceof TraceCorpusError ? err : new TraceCorpusError((err as Error).message);
    },
  );
  // The first trace now: an empty corpus, or one --max-context left nothing of, is said before any request.
  corpus.getCompiled(0);
  hooks.log(
    `${corpus.lines} trace lines ${corpus.fromCache ? 'in the compile cache' : 'opened (compiled as the replay reaches them)'}; ` +
      `replaying with ${o.users} users for ${o.durationS} s` +
      `${timeScale !== 1 ? ' (simulated)' : ''} against ${baseUrl.href}`,
  );
  if (signal.aborted) throw new BenchInterrupted('interrupted before the run started; nothing was sent');

  const runId = createHash('sha256').update(`${o.out}\0${Date.now()}\0${o.seed}`).digest('hex').slice(0, 16);
  const session = createReplaySession({
    corpus,
    served,
    tokenizer,
    runId,
    replay: {
      lanes: o.users,
      seed: o.seed,
      durationS: o.durationS,
      benchmarkGraceS: o.benchmarkGraceS,
      warmupRequestsPerLane: o.warmupRequestsPerLane,
      warmupGraceS: o.warmupGraceS,
      affinityHeaders: o.affinityHeaders,
    },
    timeScale,
    now: monotonicMs,
    ignoreEos: true,
    failedRequestThreshold: o.failedRequestThreshold,
    liveGateMinFinished: LIVE_GATE_MIN_FINISHED,
  });
  let clockBefore: ClockReading | null = null;
  let clockAfter: ClockReading | null = null;
  const scrapes: { before: string | null; after: string | null } = { before: null, after: null };
  const spec: AgenticReplaySpec = { kind: 'agentic-replay', total: null, independent: false, session };
  const load = await runLoad({
    transport: {
      baseUrl,
      endpoint: 'chat',
      path: endpointPath('chat'),
      timeoutMs: o.timeoutS * 1000,
      apiKey: o.apiKey,
    },
    phases: { warmup: spec, benchmark: spec },
    concurrency: o.users * SLOTS_PER_USER,
    workers: 1,
    lockstep: false,
    signal,
    onProgress: hooks.onLoadProgress,
    aroundMeasurement: {
      // A simulated engine's own account of how far it fell behind its schedule (the engine gate).
      before: async () => {
        clockBefore = probe.simulator === null ? null : await readEngineClock(baseUrl);
        scrapes.before = await scrapeMetrics(baseUrl, o.apiKey);
      },
      after: async () => {
        clockAfter = probe.simulator === null ? null : await readEngineClock(baseUrl);
        scrapes.after = await scrapeMetrics(baseUrl, o.apiKey);
      },
    },
  });
  // A bad line found while the replay ran stops it with that line's error. Interrupted, the rest of the
  // corpus is not waited for (nor the compile cache written).
  if (!signal.aborted) {
    await session.prepared.catch((err: unknown) => {
      throw err instanceof TraceCorpusError ? err : new TraceCorpusError((err as Error).message);
    });
    // The corpus read whole (nothing more to read when the warmup ran its course): the cache for the next run.
    const whole = await corpus.complete();
    const dropped = droppedNote({
      ...newReport(o.traces, corpusOptions),
      traces: whole.traces.length,
      dropped: [...whole.dropped],
    });
    if (dropped) hooks.log(dropped);
  }
  if (session.scheduler.aborted !== null) hooks.log(`error: ${session.scheduler.aborted}`);
  load.records.forEach((r, i) => {
    if (r.ok || r.outputTokens.server === null)
      r.outputTokens.client = tokenizer.encode(load.texts[i] ?? '').length;
  });
  const window = session.profilingWindow();
  // The opening pass hashed the files; only a run without the cache reads them again.
  const hashes = corpus.fileHashes;
  const traceFiles = await Promise.all(
    o.traces.map(async (path, i) => ({ path, sha256: hashes?.[i] ?? (await sha256Of(path)) })),
  );
  const workload: AgenticCodingWorkload = {
    kind: 'agentic-coding',
    traces: { name: o.corpusName, files: traceFiles },
    durationS: o.durationS,
    warmup: {
      startMinRatio: 0.25,
      startMaxRatio: 0.75,
      requestsPerLane: o.warmupRequestsPerLane,
      graceS: o.warmupGraceS,
    },
    maxContextTokens: o.maxContextTokens,
    fast: o.fast,
    tokenizer: { kind: tokenizer.kind, name: tokenizer.name, path: tokenizer.path },
  };
  const result = aggregateAgenticPoint({
    records: load.records,
    tool: { name: 'infx', version: o.version },
    createdAt: new Date().toISOString(),
    seed: o.seed,
    target: { baseUrl: baseUrl.href, model: served[0] as string, endpoint: 'chat' },
    engine: {
      kind: probe.simulator !== null ? 'simulated' : 'real',
      simulator: probe.simulator,
      timeScale: probe.timeScale,
      lockstep: false,
      lag: lagBetween(clockBefore, clockAfter),
    },
    clock: 'wall',
    workload,
    load: { concurrency: o.users, requestRate: 'inf', burstiness: 1 },
    gpus: {
      total: o.gpus ?? sumOrNull(o.prefillGpus, o.decodeGpus),
      prefill: o.prefillGpus,
      decode: o.decodeGpus,
    },
    clockOriginUnixMs: load.clockOriginUnixMs,
    maxFailureRate: o.failedRequestThreshold,
    client: assessClient(load.threads, load.sendLagsMs, load.cpuPercent, false),
    replay: {
      profilingStartMs: (window?.startMs ?? load.clockOriginMs) - load.clockOriginMs,
      profilingEndMs: (window?.endMs ?? load.clockOriginMs) - load.clockOriginMs,
      creditDropCount: session.creditDrops,
      // The live error gate, or a failed root warmup request (§2.7): the run was cancelled.
      runCancelled: session.cancelled !== null || session.scheduler.aborted !== null,
      failedRequestThreshold: o.failedRequestThreshold,
      server: serverMetrics(scrapes, hooks.log),
    },
  });
  if (session.cancelled !== null) hooks.log(`error: ${session.cancelled}`);

  await mkdir(o.out, { recursive: true });
  const files: string[] = [];
  const requestsPath = join(o.out, ATTEMPT_FILES.requests);
  await writeLinesAtomic(
    requestsPath,
    load.records.map((r) => JSON.stringify(r)),
  );
  files.push(requestsPath);
  if (o.formats.includes('inferencex') && result.agentic) {
    const path = join(o.out, ATTEMPT_FILES.inferencex);
    const aggregate = toInferencexAgentic(result.agentic, inferencexIdentity(o), result.agentic.server);
    await writeFileAtomic(path, `${JSON.stringify(aggregate, null, 2)}\n`);
    files.push(path);
  }
  const resultPath = join(o.out, ATTEMPT_FILES.result);
  await writeFileAtomic(resultPath, `${JSON.stringify(result, null, 2)}\n`);
  files.push(resultPath);
  return { result, outDir: o.out, files };
}

/** The server's cache figures from the two scrapes; a backend the parser cannot read is said, not guessed. */
function serverMetrics(
  scrapes: { before: string | null; after: string | null },
  log: (line: string) => void,
): InferencexAgenticServerMetricsBlock | null {
  try {
    return serverCacheMetrics(scrapes.before, scrapes.after);
  } catch (err) {
    log(
      `warning: the server's /metrics could not be read as vLLM or SGLang metrics: ${(err as Error).message}`,
    );
    return null;
  }
}

/** The reference's identity fields of a point `infx bench` ran against a server it did not launch. */
function inferencexIdentity(o: AgenticBenchOptions): InferencexAgenticIdentity {
  const gpus = o.gpus ?? sumOrNull(o.prefillGpus, o.decodeGpus) ?? 1;
  return {
    hw: o.labels.accelerator,
    conc: o.users,
    image: '',
    recipe_fingerprint: '',
    model: o.models[0] as string,
    infmax_model_prefix: o.labels.modelPrefix,
    framework: o.labels.framework,
    precision: o.labels.precision,
    spec_decoding: 'none',
    disagg: false,
    is_multinode: false,
    tp: gpus,
    ep: 1,
    dp_attention: 'false',
    kv_offloading: 'none',
    kv_offload_backend: null,
    allocated_cpu_dram_gb: null,
    pp: 1,
    dcp_size: 1,
    pcp_size: 1,
  };
}
