import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { arrivalOffsetsMs } from '../client/arrivals.ts';
import { type ClockReading, lagBetween, readEngineClock } from '../client/engine-clock.ts';
import { assessClient } from '../client/health.ts';
import { type LoadProgress, runLoad } from '../client/load.ts';
import { endpointPath } from '../client/payload.ts';
import { ProbeError, probeServer, type ServerProbe } from '../client/probe.ts';
import { aggregatorFor } from '../metrics/aggregate.ts';
import { chooseClock } from '../metrics/clock-view.ts';
import { toInferencexRaw } from '../metrics/inferencex.ts';
import { EXIT_INTERRUPTED, EXIT_USAGE, InfxError } from '../schema/errors.ts';
import { POINT_LIMITS, type PointResult } from '../schema/point-result.ts';
import { ATTEMPT_FILES } from '../schema/run-dir.ts';
import type { FixedSeqLenWorkload } from '../schema/workload.ts';
import { prepareWorkload } from '../workload/prepare.ts';
import { seededRandom } from '../workload/random.ts';
import { loadTokenizer } from '../workload/tokenizers.ts';
import { writeFileAtomic, writeLinesAtomic } from './atomic-write.ts';
import { acquireRunLock, RunLockError } from './lock.ts';

/**
 * `infx bench`: one fixed-seq-len point against any OpenAI-compatible server. Builds the prompts, runs
 * warmup then the measured phase, counts tokens on the client side after the clock stops, aggregates,
 * and writes `requests.jsonl`, `result.json` (and `inferencex.json` on request) into the output folder.
 */

export interface BenchOptions {
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  isl: number;
  osl: number;
  randomRangeRatio: number;
  concurrency: number;
  numPrompts: number | null;
  warmup: number | null;
  requestRate: number | 'inf';
  burstiness: number;
  ignoreEos: boolean;
  tokenizer: string | null;
  /** Render the tokenizer's chat template in the client (completions endpoint). */
  chatTemplate: boolean;
  gpus: number | null;
  prefillGpus: number | null;
  decodeGpus: number | null;
  seed: number;
  timeoutS: number;
  maxFailureRate: number;
  workers: number | 'auto';
  out: string;
  formats: ('infx' | 'inferencex')[];
  apiKey: string | null;
  version: string;
  /**
   * Clock of the figures against a simulated engine: `auto` (default) uses the engine's own clock, in
   * lockstep, when the server offers it; `wall` measures on the client's clock as against any server.
   */
  clock?: 'auto' | 'wall';
}

export interface BenchReport {
  result: PointResult;
  outDir: string;
  files: string[];
}

export interface BenchHooks {
  log(line: string): void;
  onPromptProgress?(done: number, total: number): void;
  onLoadProgress?(p: LoadProgress): void;
  signal?: AbortSignal;
}

/** Bad flag values or combinations: exit 2 with this message. */
export class BenchUsageError extends InfxError {
  constructor(message: string) {
    super(message, { exitCode: EXIT_USAGE });
  }
}
/** The run could not start or complete (server unreachable, tokenizer missing): exit 1. */
export class BenchError extends InfxError {}

/**
 * Runs `body` holding `<dir>/sweep.lock`: one writer per output directory, so two `infx bench --out DIR`
 * (or a bench and a sweep) never interleave their files. A live holder is a BenchError naming it.
 */
export async function withBenchLock<T>(
  dir: string,
  log: (line: string) => void,
  body: () => Promise<T>,
): Promise<T> {
  let lock: ReturnType<typeof acquireRunLock>;
  try {
    lock = acquireRunLock(dir, { command: `infx bench --out ${dir}`, create: true });
  } catch (err) {
    if (!(err instanceof RunLockError)) throw err;
    // The lock speaks of sweeps (--resume); a bench is resumed by running it again.
    throw new BenchError(err.message.replace(/then resume with --resume$/, 'then run this command again'));
  }
  if (lock.tookOver)
    log(`note: took over the lock ${lock.path} left by a bench or sweep that is no longer running`);
  try {
    return await body();
  } finally {
    lock.release();
  }
}
/** Interrupted before any request was sent: there is nothing to write. */
export class BenchInterrupted extends InfxError {
  constructor(message: string) {
    super(message, { exitCode: EXIT_INTERRUPTED });
  }
}

export function checkBenchOptions(o: BenchOptions): void {
  const problems: string[] = [];
  if (!/^https?:\/\//.test(o.baseUrl))
    problems.push(`--base-url must start with http:// or https:// (got '${o.baseUrl}')`);
  if ((o.prefillGpus === null) !== (o.decodeGpus === null))
    problems.push('--prefill-gpus and --decode-gpus go together (a disaggregated point needs both pools)');
  if (
    o.gpus !== null &&
    o.prefillGpus !== null &&
    o.decodeGpus !== null &&
    o.gpus !== o.prefillGpus + o.decodeGpus
  )
    problems.push(
      `--gpus ${o.gpus} is not --prefill-gpus + --decode-gpus (${o.prefillGpus! + o.decodeGpus!})`,
    );
  if (o.chatTemplate && o.endpoint === 'chat')
    problems.push(
      '--chat-template renders the template in the client for --endpoint completions; the chat endpoint applies it on the server',
    );
  if (o.numPrompts !== null && o.numPrompts < 1) problems.push('--num-prompts must be at least 1');
  problems.push(...boundProblems(o));
  if (o.maxFailureRate < 0 || o.maxFailureRate > 1)
    problems.push('--max-failure-rate must be between 0 and 1');
  if (o.randomRangeRatio < 0 || o.randomRangeRatio > 1)
    problems.push('--random-range-ratio must be between 0 and 1');
  if (problems.length) throw new BenchUsageError(problems.join('\n'));
}

/** Longest per-request timeout: Node's timers hold 2³¹ − 1 ms (a longer one would fire at once). */
const MAX_TIMEOUT_S = Math.floor((2 ** 31 - 1) / 1000);
const MAX_WORKERS = 256;

/** The bounds of POINT_LIMITS (and of this machine's timers and threads), checked before any work. */
function boundProblems(o: BenchOptions): string[] {
  const L = POINT_LIMITS;
  const out: string[] = [];
  const within = (flag: string, v: number | null, max: number, why: string) => {
    if (v !== null && !(Number.isSafeInteger(v) && v <= max))
      out.push(`${flag} ${v} is above the limit ${max.toLocaleString('en-US')} (${why})`);
  };
  within('--concurrency', o.concurrency, L.concurrency, 'streams, one connection each');
  within('--isl', o.isl, L.isl, "above any model's context window");
  within('--osl', o.osl, L.osl, "above any model's context window");
  within('--num-prompts', o.numPrompts, L.numPrompts, 'a million requests per point');
  within('--warmup', o.warmup, L.warmup, 'a million requests per point');
  if (typeof o.workers === 'number') within('--workers', o.workers, MAX_WORKERS, 'client threads');
  if (!(o.timeoutS <= MAX_TIMEOUT_S))
    out.push(
      `--timeout ${o.timeoutS} is above the limit ${MAX_TIMEOUT_S} s (Node's longest timer, 24.8 days)`,
    );
  // (10 x the largest concurrency is within the num-prompts limit, so a default never breaks it.)
  const numPrompts = o.numPrompts ?? 10 * o.concurrency;
  if (out.length === 0 && numPrompts * o.isl > L.promptTokens)
    out.push(
      `${numPrompts} prompts x --isl ${o.isl} = ${(numPrompts * o.isl).toExponential(2)} prompt tokens to build, above the limit ${L.promptTokens.toExponential(2)} (~16 GB of text): lower --num-prompts or --isl`,
    );
  return out;
}

/** One worker thread per 512 concurrent streams, never more than the cores left beside the main thread. */
export function autoWorkers(concurrency: number): number {
  const spare = Math.max(1, availableParallelism() - 1);
  return Math.max(1, Math.min(Math.ceil(concurrency / 512), spare, 8));
}

export async function runBench(o: BenchOptions, hooks: BenchHooks): Promise<BenchReport> {
  checkBenchOptions(o);
  const baseUrl = new URL(o.baseUrl);
  const numPrompts = o.numPrompts ?? 10 * o.concurrency;
  const warmup = o.warmup ?? 2 * o.concurrency;
  const workers = o.workers === 'auto' ? autoWorkers(o.concurrency) : o.workers;
  const signal = hooks.signal ?? new AbortController().signal;

  const probe = await probeTarget(baseUrl, o.timeoutS, o.apiKey, [o.model], hooks.log);
  const engineClock = probe.engineClock && (o.clock ?? 'auto') === 'auto';
  if (probe.simulator !== null)
    hooks.log(
      `the server is a simulated engine (${probe.simulator}${probe.timeScale !== null ? `, ${probe.timeScale}x faster than real time` : ''}): ` +
        (engineClock
          ? "figures are on the engine's own clock, in lockstep, so this machine's load cannot move them"
          : probe.timeScale !== null
            ? `figures are simulated time read off the wall clock (wall time x ${probe.timeScale})`
            : 'figures are on the wall clock'),
    );

  const givenGpus = o.gpus ?? sumOrNull(o.prefillGpus, o.decodeGpus);
  if (probe.gpus !== null && givenGpus !== null && probe.gpus !== givenGpus)
    hooks.log(
      `warning: --gpus says ${givenGpus} but the simulated engine says it runs on ${probe.gpus}: per-GPU figures divide by ${givenGpus}, as given`,
    );
  else if (probe.gpus !== null && givenGpus === null)
    hooks.log(
      `note: no --gpus, so no per-GPU figures (the simulated engine says it runs on ${probe.gpus}: add --gpus ${probe.gpus})`,
    );

  // A real engine counts with its model's tokenizer: found in the local Hugging Face cache by default (the
  // simulated engine counts with the built-in one).
  const tokenizer = await loadTokenizer({
    path: o.tokenizer ?? undefined,
    model: probe.simulator === null ? o.model : undefined,
    warn: hooks.log,
  });
  const chatTemplate = o.endpoint === 'chat' ? 'server' : o.chatTemplate ? 'client' : 'none';
  hooks.log(
    `building ${numPrompts} prompts (ISL ${o.isl}, OSL ${o.osl}, ratio ${o.randomRangeRatio}) with tokenizer ${tokenizer.name}`,
  );
  // --request-rate is in simulated time against a simulated engine: on its clock with lockstep, else
  // scaled to the wall clock.
  const offsets =
    o.requestRate === 'inf'
      ? null
      : arrivalOffsetsMs(numPrompts, o.requestRate, o.burstiness, seededRandom(o.seed, 'arrivals').float);
  if (offsets && !engineClock && probe.timeScale !== null)
    for (let i = 0; i < offsets.length; i++) offsets[i] = (offsets[i] as number) / probe.timeScale;
  const phases = await prepareWorkload(
    {
      kind: 'fixed-seq-len',
      isl: o.isl,
      osl: o.osl,
      randomRangeRatio: o.randomRangeRatio,
      numPrompts,
      warmup,
      seed: o.seed,
      chatTemplate,
    },
    {
      tokenizer,
      payload: { endpoint: o.endpoint, model: o.model, ignoreEos: o.ignoreEos },
      arrivalOffsetsMs: offsets,
      onProgress: (done, total) => {
        if (signal.aborted)
          throw new BenchInterrupted('interrupted while building prompts; nothing was sent');
        hooks.onPromptProgress?.(done, total);
      },
    },
  );
  if (signal.aborted) throw new BenchInterrupted('interrupted before the run started; nothing was sent');
  let clockBefore: ClockReading | null = null;
  let clockAfter: ClockReading | null = null;

  hooks.log(
    `running ${warmup} warmup + ${numPrompts} measured requests at concurrency ${o.concurrency}` +
      `${o.requestRate === 'inf' ? '' : `, ${o.requestRate} req/s`} against ${baseUrl.href} (${workers} client thread${workers > 1 ? 's' : ''})`,
  );
  const load = await runLoad({
    transport: {
      baseUrl,
      endpoint: o.endpoint,
      path: endpointPath(o.endpoint),
      timeoutMs: o.timeoutS * 1000,
      apiKey: o.apiKey,
    },
    phases,
    concurrency: o.concurrency,
    workers,
    lockstep: engineClock,
    signal,
    onProgress: hooks.onLoadProgress,
    ...(probe.simulator !== null
      ? {
          aroundMeasurement: {
            before: async () => {
              clockBefore = await readEngineClock(baseUrl);
            },
            after: async () => {
              clockAfter = await readEngineClock(baseUrl);
            },
          },
        }
      : {}),
  });
  const { clock, reason: clockReason } = chooseClock(load.records, engineClock);
  // The clock has stopped: counting tokens on the client side now cannot slow the measurement.
  load.records.forEach((r, i) => {
    if (r.ok || r.outputTokens.server === null)
      r.outputTokens.client = tokenizer.encode(load.texts[i] ?? '').length;
  });

  const workload: FixedSeqLenWorkload = {
    kind: 'fixed-seq-len',
    isl: o.isl,
    osl: o.osl,
    randomRangeRatio: o.randomRangeRatio,
    numPrompts,
    warmup,
    ignoreEos: o.ignoreEos,
    tokenizer: { kind: tokenizer.kind, name: tokenizer.name, path: tokenizer.path },
    chatTemplate: chatTemplate !== 'none',
  };
  const result = aggregatorFor(workload)({
    records: load.records,
    tool: { name: 'infx', version: o.version },
    createdAt: new Date().toISOString(),
    seed: o.seed,
    target: { baseUrl: baseUrl.href, model: o.model, endpoint: o.endpoint },
    engine: {
      kind: probe.simulator !== null ? 'simulated' : 'real',
      simulator: probe.simulator,
      timeScale: probe.timeScale,
      lockstep: engineClock,
      lag: lagBetween(clockBefore, clockAfter),
    },
    clock,
    engineNotes: clockReason ? [clockReason] : [],
    workload,
    load: { concurrency: o.concurrency, requestRate: o.requestRate, burstiness: o.burstiness },
    gpus: {
      total: o.gpus ?? sumOrNull(o.prefillGpus, o.decodeGpus),
      prefill: o.prefillGpus,
      decode: o.decodeGpus,
    },
    clockOriginUnixMs: load.clockOriginUnixMs,
    maxFailureRate: o.maxFailureRate,
    client: assessClient(load.threads, load.sendLagsMs, load.cpuPercent, clock === 'engine'),
  });

  await mkdir(o.out, { recursive: true });
  const files: string[] = [];
  const requestsPath = join(o.out, ATTEMPT_FILES.requests);
  await writeLinesAtomic(
    requestsPath,
    load.records.map((r) => JSON.stringify(r)),
  );
  files.push(requestsPath);
  if (o.formats.includes('inferencex')) {
    const rawPath = join(o.out, ATTEMPT_FILES.inferencex);
    const raw = toInferencexRaw(result, load.records, {
      backend: o.endpoint === 'chat' ? 'openai-chat' : 'openai',
      modelId: o.model,
      tokenizerId: tokenizer.path ?? tokenizer.name,
    });
    await writeFileAtomic(rawPath, `${JSON.stringify(raw, null, 2)}\n`);
    files.push(rawPath);
  }
  const resultPath = join(o.out, ATTEMPT_FILES.result);
  await writeFileAtomic(resultPath, `${JSON.stringify(result, null, 2)}\n`);
  files.push(resultPath);
  return { result, outDir: o.out, files };
}

/**
 * The server's readiness and what it says of itself, before any work: unreachable is a BenchError that says
 * to check --base-url; a model it does not list is a warning (some servers list none or aliases).
 */
export async function probeTarget(
  baseUrl: URL,
  timeoutS: number,
  apiKey: string | null,
  models: readonly string[],
  log: (line: string) => void,
): Promise<ServerProbe> {
  let probe: ServerProbe;
  try {
    // 10 s for the whole readiness probe, or the per-request timeout when that is shorter.
    probe = await probeServer(baseUrl, Math.min(10_000, timeoutS * 1000), apiKey);
  } catch (err) {
    if (err instanceof ProbeError)
      throw new BenchError(`${err.message}\nIs the server running? Check --base-url.`);
    throw err;
  }
  for (const m of models)
    if (probe.models.length > 0 && !probe.models.includes(m))
      log(`warning: the server lists models ${probe.models.join(', ')}, not '${m}'`);
  return probe;
}

/** Total GPUs from the two pools, when both are given. */
export function sumOrNull(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}
