import { type Command, Option } from 'commander';
import { loadProgressReporter, stepProgressReporter } from '../client/progress.ts';
import {
  BenchError,
  BenchInterrupted,
  type BenchOptions,
  BenchUsageError,
  runBench,
} from '../sweep/bench-point.ts';
import { formatBenchSummary } from '../sweep/bench-summary.ts';
import { WorkloadError } from '../workload/errors.ts';
import { nonNegativeInt, numberIn, parseIntArg, positiveInt } from './common.ts';
import type { CliIO } from './io.ts';

/** `infx bench`: measure one point against any OpenAI-compatible server. */

function rate(value: string): number | 'inf' {
  if (value === 'inf') return 'inf';
  return numberIn(0, Number.POSITIVE_INFINITY, true)(value);
}

function workers(value: string): number | 'auto' {
  return value === 'auto' ? 'auto' : positiveInt(value);
}

interface Flags {
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  isl: number;
  osl: number;
  randomRangeRatio: number;
  concurrency: number;
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
}

export function registerBench(program: Command, io: CliIO, setExit: (code: number) => void, version: string) {
  program
    .command('bench')
    .description('benchmark one point (fixed input/output lengths) against an OpenAI-compatible server')
    .requiredOption('--base-url <url>', 'server address, e.g. http://127.0.0.1:8000')
    .requiredOption('--model <name>', 'model name to send in requests')
    .addOption(
      new Option('--endpoint <kind>', 'API to drive').choices(['chat', 'completions']).default('completions'),
    )
    .requiredOption('--isl <n>', 'input length in tokens (upper end of the sampled range)', positiveInt)
    .requiredOption('--osl <n>', 'output length in tokens (upper end of the sampled range)', positiveInt)
    .option('--random-range-ratio <r>', 'lengths are drawn uniformly from [r*L, L]', numberIn(0, 1), 0.8)
    .requiredOption('--concurrency <n>', 'requests in flight at once', positiveInt)
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
    .option('--gpus <n>', 'GPUs allocated to the server (per-GPU throughput denominator)', positiveInt)
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
    .option('--seed <n>', 'seed for prompt lengths, contents and arrivals', parseIntArg, 0)
    .option(
      '--timeout <s>',
      'per-request timeout in seconds',
      numberIn(0, Number.POSITIVE_INFINITY, true),
      21600,
    )
    .option(
      '--max-failure-rate <r>',
      'the point fails above this fraction of failed requests',
      numberIn(0, 1),
      0.05,
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
    .requiredOption('--out <dir>', 'folder for requests.jsonl and result.json')
    .addOption(
      new Option(
        '--format <fmt>',
        "inferencex: also write inferencex.json, the reference client's raw result",
      )
        .choices(['infx', 'inferencex'])
        .default('infx'),
    )
    .action(async (flags: Flags) => {
      setExit(await bench(flags, io, version));
    });
}

async function bench(flags: Flags, io: CliIO, version: string): Promise<number> {
  const options: BenchOptions = {
    baseUrl: flags.baseUrl,
    model: flags.model,
    endpoint: flags.endpoint,
    isl: flags.isl,
    osl: flags.osl,
    randomRangeRatio: flags.randomRangeRatio,
    concurrency: flags.concurrency,
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
  };
  const sink = { write: io.stderr, isTTY: io.stderrIsTTY ?? io.isTTY };
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130); // a second Ctrl-C does not wait
    io.stderr(
      '\ninterrupted: cancelling requests in flight and writing what was measured (Ctrl-C again to quit)\n',
    );
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  try {
    const report = await runBench(options, {
      log: (line) => io.stderr(`${line}\n`),
      onPromptProgress: stepProgressReporter(sink, 'infx bench prompts'),
      onLoadProgress: loadProgressReporter(sink, 'infx bench'),
      signal: controller.signal,
    });
    io.stdout(formatBenchSummary(report.result, report.files));
    if (controller.signal.aborted) return 130;
    return report.result.valid ? 0 : 1;
  } catch (err) {
    if (err instanceof BenchInterrupted) {
      io.stderr(`${err.message}\n`);
      return 130;
    }
    if (err instanceof BenchUsageError) {
      io.stderr(`error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof BenchError || err instanceof WorkloadError) {
      io.stderr(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
  }
}
