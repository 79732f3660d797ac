import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadProgressReporter, stepProgressReporter } from '../client/progress.ts';
import { REFERENCE_BENCH } from '../schema/reference-client.ts';
import type { BenchRunRequest } from '../sweep/bench-plan.ts';
import { runBenchSweep } from '../sweep/bench-sweep.ts';
import {
  formatPointLine,
  formatSinglePointSummary,
  formatSweepSummary,
} from '../sweep/bench-sweep-format.ts';
import { type AgenticFlags, addAgenticOptions, benchAgentic } from './bench-agentic.ts';
import { nonNegativeInt, numberIn, parseIntArg, positiveInt } from './common.ts';
import type { CliIO } from './io.ts';
import { onInterrupt } from './signals.ts';

/**
 * `infx bench`: benchmark a running OpenAI-compatible server at one or more concurrencies, into a run
 * directory that `infx ingest`, `plot`, `compare` and `serve` read.
 */

function rate(value: string): number | 'inf' {
  if (value === 'inf') return 'inf';
  return numberIn(0, Number.POSITIVE_INFINITY, true)(value);
}

/** `--concurrency 1 2 4`: each value a positive integer, none twice (commander hands them over one by one). */
function concurrencyList(value: string, previous: number[] | undefined): number[] {
  const n = positiveInt(value);
  if (previous?.includes(n))
    throw new InvalidArgumentError(`concurrency ${n} is listed twice: give each concurrency once`);
  return [...(previous ?? []), n];
}

function workers(value: string): number | 'auto' {
  return value === 'auto' ? 'auto' : positiveInt(value);
}

interface Flags {
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  workload: 'fixed' | 'agentic';
  isl?: number;
  osl?: number;
  randomRangeRatio: number;
  concurrency: number[];
  numPrompts?: number;
  warmup?: number;
  requestRate: number | 'inf';
  burstiness: number;
  ignoreEos: boolean;
  tokenizer?: string;
  chatTemplate?: boolean;
  gpus?: number;
  prefillGpus?: number;
  decodeGpus?: number;
  seed: number;
  timeout: number;
  maxFailureRate: number;
  workers: number | 'auto';
  out: string;
  format: 'infx' | 'inferencex';
  clock: 'auto' | 'wall';
  accelerator: string;
  framework: string;
  precision: string;
  modelPrefix?: string;
  runId?: string;
  force?: boolean;
}

export function registerBench(program: Command, io: CliIO, setExit: (code: number) => void, version: string) {
  const command = program
    .command('bench')
    .description(
      'benchmark a running OpenAI-compatible server (fixed input/output lengths), one point per --concurrency, into a run directory for infx ingest, plot, compare and serve',
    )
    .requiredOption('--base-url <url>', 'server address, e.g. http://127.0.0.1:8000')
    .requiredOption('--model <name>', 'model name to send in requests')
    .addOption(
      new Option('--endpoint <kind>', 'API to drive').choices(['chat', 'completions']).default('completions'),
    )
    .addOption(
      new Option('--workload <kind>', 'fixed: fixed input/output lengths; agentic: AgentX trace replay')
        .choices(['fixed', 'agentic'])
        .default('fixed'),
    )
    .option(
      '--isl <n>',
      'input length in tokens (upper end of the sampled range; fixed workload)',
      positiveInt,
    )
    .option(
      '--osl <n>',
      'output length in tokens (upper end of the sampled range; fixed workload)',
      positiveInt,
    )
    .option(
      '--random-range-ratio <r>',
      'lengths are drawn uniformly from [r*L, L]',
      numberIn(0, 1),
      REFERENCE_BENCH.randomRangeRatio,
    )
    .requiredOption(
      '--concurrency <n...>',
      'requests in flight at once; several values sweep them, one point each (e.g. 1 2 4 8 16)',
      concurrencyList,
    )
    .option('--num-prompts <n>', 'measured requests (default 10 x concurrency)', positiveInt)
    .option('--warmup <n>', 'warmup requests before timing starts (default 2 x concurrency)', nonNegativeInt)
    .option('--request-rate <r>', "arrivals per second, or 'inf' for a closed loop", rate, 'inf' as const)
    .option(
      '--burstiness <b>',
      'gamma shape of inter-arrival times (1 = Poisson)',
      numberIn(0, Number.POSITIVE_INFINITY, true),
      1,
    )
    .option(
      '--no-ignore-eos',
      'let the model stop early (by default every request generates its full length)',
    )
    .option(
      '--tokenizer <dir>',
      'local Hugging Face model directory with tokenizer.json (default: built-in o200k_base)',
    )
    .option('--chat-template', "completions endpoint: render the tokenizer's chat template in the client")
    .option(
      '--gpus <n>',
      "GPUs allocated to the server, the per-GPU throughput denominator (needed unless the server is infx's simulated engine, which says)",
      positiveInt,
    )
    .option(
      '--prefill-gpus <n>',
      'disaggregated: GPUs of the prefill pool (input throughput per GPU)',
      positiveInt,
    )
    .option(
      '--decode-gpus <n>',
      'disaggregated: GPUs of the decode pool (output throughput per GPU)',
      positiveInt,
    )
    .option('--seed <n>', 'seed for prompt lengths, contents and arrivals', parseIntArg, REFERENCE_BENCH.seed)
    .option(
      '--timeout <s>',
      'per-request timeout in seconds',
      numberIn(0, Number.POSITIVE_INFINITY, true),
      REFERENCE_BENCH.requestTimeoutS,
    )
    .option(
      '--max-failure-rate <r>',
      'the point fails above this fraction of failed requests',
      numberIn(0, 1),
      REFERENCE_BENCH.maxFailureRate,
    )
    .option(
      '--workers <n>',
      "client threads, or 'auto' (one per 512 streams, up to cores - 1)",
      workers,
      'auto' as const,
    )
    .addOption(
      new Option(
        '--clock <clock>',
        "against infx's simulated engine: auto (its own clock, in lockstep) or wall (the client's clock, as against any server)",
      )
        .choices(['auto', 'wall'])
        .default('auto'),
    )
    .requiredOption(
      '--out <dir>',
      'run directory (manifest.json, points/<id>/attempt-<n>/…); a one-point run also keeps requests.jsonl and result.json at its top',
    )
    .option(
      '--accelerator <name>',
      "the GPU the server runs on, e.g. h100, h200, mi300x (the run's hardware label)",
      'unknown',
    )
    .option(
      '--framework <name>',
      "the engine serving, e.g. vllm, sglang (the run's framework label)",
      'external',
    )
    .option('--precision <p>', "the weights' precision, e.g. bf16, fp8 (the run's label)", 'unknown')
    .option(
      '--model-prefix <name>',
      "the curve's short model name (default: from --model, e.g. llama-3.1-8b-instruct)",
    )
    .option('--run-id <id>', "id of a new run (default: the --out folder's name)")
    .option('--force', 'measure again the points the run directory already holds measured')
    .addOption(
      new Option(
        '--format <fmt>',
        "inferencex: also write inferencex.json, the reference client's raw result",
      )
        .choices(['infx', 'inferencex'])
        .default('infx'),
    );
  addAgenticOptions(command).action(async (flags: Flags & AgenticFlags) => {
    if (flags.workload === 'agentic') return setExit(await benchAgentic(flags, io, version));
    for (const name of ['isl', 'osl'] as const)
      if (flags[name] === undefined) {
        io.stderr(`error: required option '--${name} <n>' not specified (or give --workload agentic)\n`);
        return setExit(2);
      }
    setExit(await bench(flags as Flags & { isl: number; osl: number }, io, version));
  });
}

async function bench(
  flags: Flags & { isl: number; osl: number },
  io: CliIO,
  version: string,
): Promise<number> {
  const req: BenchRunRequest = {
    bench: {
      baseUrl: flags.baseUrl,
      model: flags.model,
      endpoint: flags.endpoint,
      isl: flags.isl,
      osl: flags.osl,
      randomRangeRatio: flags.randomRangeRatio,
      concurrency: flags.concurrency[0] ?? 1,
      numPrompts: flags.numPrompts ?? null,
      warmup: flags.warmup ?? null,
      requestRate: flags.requestRate,
      burstiness: flags.burstiness,
      ignoreEos: flags.ignoreEos,
      tokenizer: flags.tokenizer ?? null,
      chatTemplate: flags.chatTemplate ?? false,
      gpus: flags.gpus ?? null,
      prefillGpus: flags.prefillGpus ?? null,
      decodeGpus: flags.decodeGpus ?? null,
      seed: flags.seed,
      timeoutS: flags.timeout,
      maxFailureRate: flags.maxFailureRate,
      workers: flags.workers,
      out: flags.out,
      formats: flags.format === 'inferencex' ? ['infx', 'inferencex'] : ['infx'],
      apiKey: process.env.OPENAI_API_KEY ?? null,
      version,
      clock: flags.clock,
    },
    concurrencies: flags.concurrency,
    runDir: flags.out,
    runId: flags.runId ?? null,
    labels: {
      modelPrefix: flags.modelPrefix ?? null,
      accelerator: flags.accelerator,
      framework: flags.framework,
      precision: flags.precision,
    },
    force: flags.force ?? false,
  };
  const single = flags.concurrency.length === 1;
  const sink = { write: io.stderr, isTTY: io.stderrIsTTY ?? io.isTTY };
  const interrupt = onInterrupt({
    say: () =>
      io.stderr(
        '\ninterrupted: cancelling requests in flight and writing what was measured (Ctrl-C again to quit)\n',
      ),
  });
  try {
    const report = await runBenchSweep(req, {
      log: (line) => io.stderr(`${line}\n`),
      progressFor: (spec) => {
        const label = single ? 'infx bench' : `infx bench c=${spec.conc}`;
        return {
          onPromptProgress: stepProgressReporter(sink, `${label} prompts`),
          onLoadProgress: loadProgressReporter(sink, label),
        };
      },
      onPoint: (o, i, n) => {
        // A point found done was said so as it was found.
        if (!single && o.kind !== 'already-done') io.stderr(`${formatPointLine(o, i, n)}\n`);
      },
      signal: interrupt.signal,
    });
    io.stdout(single ? formatSinglePointSummary(report) : formatSweepSummary(report));
    if (report.stopped) io.stderr(`error: ${report.stopped}\n`);
    if (report.interrupted) return 130;
    const allGood = report.points.every((p) => p.status?.status === 'ok' && p.status.valid !== false);
    return allGood ? 0 : 1;
  } finally {
    interrupt.dispose();
  }
}
