import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { CONTAINER_RUNTIMES, type ContainerRuntime, type EngineKind } from '../schema/engine-launch.ts';
import { type BenchDefaults, REFERENCE_BENCH } from '../schema/reference-client.ts';
import type { PointEngine } from '../schema/run-dir.ts';
import { agenticPlanDefaults } from '../sweep/agentic-corpus.ts';
import type { EvalPlanDefaults } from '../sweep/point-eval-plan.ts';
import { type FaultRule, parseFaultRule } from '../sweep/points.ts';
import { parseMaxContext } from '../workload/agentic/max-context.ts';
import { nonNegativeInt, numberIn, parseIntArg, positiveInt } from './common.ts';

/** Flags that say how every point runs, shared by `infx sweep` and `infx sweep point`. */

export interface PointFlags {
  engine: EngineKind;
  simTimeScale?: number | 'auto';
  container: ContainerRuntime;
  readyTimeout: number;
  acceptance: string;
  numPrompts?: number;
  warmup?: number;
  randomRangeRatio: number;
  endpoint: 'chat' | 'completions';
  tokenizer?: string;
  seed: number;
  maxFailureRate: number;
  requestTimeout: number;
  simFault?: string[];
  traces?: string[];
  maxContext?: number;
  agentxFast?: boolean;
  agenticDuration?: number;
  evalDataset?: string;
  evalFewshotDataset?: string;
  evalLimit?: number;
  evalConcurrency: number;
  accuracy: number;
  evalThresholds?: string;
  evalMinScore: number;
}

const positive = numberIn(0, Number.POSITIVE_INFINITY, true);

export function timeScale(value: string): number | 'auto' {
  return value === 'auto' ? 'auto' : positive(value);
}

function acceptance(value: string): string {
  if (value === 'golden' || value === 'real') return value;
  positive(value);
  return value;
}

export function pointFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--engine <kind>',
        'sim: the built-in simulated engine; recipe: the real engine from recipes/',
      )
        .choices(['sim', 'recipe'])
        .default('sim'),
    )
    .option(
      '--sim-time-scale <s>',
      "simulated engine: run S times faster than real time, or 'auto' (default): as fast as this host sustains for each point",
      timeScale,
    )
    .addOption(
      new Option('--container <runtime>', 'recipe engines: run the server in a container')
        .choices(CONTAINER_RUNTIMES)
        .default('none'),
    )
    .option('--ready-timeout <s>', 'seconds an engine may take to become ready', positive, 1800)
    .option(
      '--acceptance <al>',
      "speculative decoding: 'golden' (pin the golden acceptance length), 'real', or a number",
      acceptance,
      'golden',
    )
    .option('--num-prompts <n>', 'measured requests per point (default 10 x concurrency)', positiveInt)
    .option('--warmup <n>', 'warmup requests per point (default 2 x concurrency)', nonNegativeInt)
    .option(
      '--random-range-ratio <r>',
      'lengths are drawn uniformly from [r*L, L]',
      numberIn(0, 1),
      REFERENCE_BENCH.randomRangeRatio,
    )
    .addOption(
      new Option('--endpoint <kind>', 'API the client drives')
        .choices(['chat', 'completions'])
        .default('completions'),
    )
    .option('--tokenizer <dir>', 'Hugging Face tokenizer directory (default: built-in o200k_base)')
    .option('--seed <n>', 'seed of prompts and simulated acceptance', parseIntArg, REFERENCE_BENCH.seed)
    .option(
      '--max-failure-rate <r>',
      'a point fails above this fraction of failed requests',
      numberIn(0, 1),
      REFERENCE_BENCH.maxFailureRate,
    )
    .option(
      '--request-timeout <s>',
      'per-request timeout in seconds',
      positive,
      REFERENCE_BENCH.requestTimeoutS,
    )
    .option(
      '--traces <file...>',
      "agentic-coding rows: the trace corpus they replay (default: each row's public corpus by model prefix from the local Hugging Face cache, never downloaded)",
    )
    .option(
      '--max-context <n>',
      'agentic-coding rows: leave out traces needing a longer context (256k, 1M)',
      parseMaxContext,
    )
    .option('--agentx-fast', 'agentic-coding rows: agentx-fast (1200 s, one warmup request per lane)')
    .option(
      '--agentic-duration <s>',
      "agentic-coding rows: the profiling phase in seconds instead of the row's 3600 (under 900 s a point is not a valid submission)",
      positiveInt,
    )
    .option(
      '--eval-dataset <file>',
      'run-eval rows: the GSM8K test split (JSONL) their eval runs after the benchmark (without it they are not run)',
    )
    .option(
      '--eval-fewshot-dataset <file>',
      'run-eval rows: the GSM8K train split (JSONL) for few-shot examples (default: the local Hugging Face cache)',
    )
    .option('--eval-limit <n>', 'run-eval rows: evaluate the first N questions only', positiveInt)
    .option('--eval-concurrency <n>', 'run-eval rows: eval requests in flight', positiveInt, 64)
    .option(
      '--accuracy <p>',
      'simulated engine, run-eval rows: the fraction of questions it answers right (a simulated score)',
      numberIn(0, 1),
      0.95,
    )
    .option('--eval-thresholds <file>', "run-eval rows: thresholds YAML or JSON (default: the reference's)")
    .option(
      '--eval-min-score <score>',
      'run-eval rows: the minimum when no threshold applies',
      numberIn(0, 1),
      0.85,
    )
    .option(
      '--sim-fault <rule...>',
      'simulated engine fault injection: SELECTOR=no-start|hang|crash-after:N[@ATTEMPTS]; SELECTOR is part of a point id or #N',
    );
}

export function benchDefaults(f: PointFlags): BenchDefaults {
  return {
    numPrompts: f.numPrompts ?? null,
    warmup: f.warmup ?? null,
    randomRangeRatio: f.randomRangeRatio,
    endpoint: f.endpoint,
    tokenizer: f.tokenizer ?? null,
    seed: f.seed,
    maxFailureRate: f.maxFailureRate,
    requestTimeoutS: f.requestTimeout,
  };
}

export function engineDefaults(f: PointFlags): Omit<PointEngine, 'faults'> {
  return {
    kind: f.engine,
    container: f.container,
    simTimeScale: f.engine === 'sim' ? (f.simTimeScale ?? 'auto') : null,
    readyTimeoutS: f.readyTimeout,
    acceptance: f.acceptance === 'golden' || f.acceptance === 'real' ? f.acceptance : Number(f.acceptance),
  };
}

/** The agentic rows' settings and --traces corpus, hashed (without it, rows replay their public corpus). */
export const agenticDefaults = (f: PointFlags) =>
  agenticPlanDefaults(f.traces, {
    maxContextTokens: f.maxContext ?? null,
    fast: f.agentxFast ?? false,
    durationS: f.agenticDuration ?? null,
  });

/** The run-eval rows' eval settings; paths made absolute, as engines run in their attempt folders. */
export const evalDefaults = (f: PointFlags): EvalPlanDefaults => ({
  dataset: f.evalDataset ? resolve(f.evalDataset) : null,
  fewshotDataset: f.evalFewshotDataset ? resolve(f.evalFewshotDataset) : null,
  fewshot: 5,
  limit: f.evalLimit ?? null,
  concurrency: f.evalConcurrency,
  simAccuracy: f.accuracy,
  thresholds: f.evalThresholds ? resolve(f.evalThresholds) : null,
  minScore: f.evalMinScore,
});

export const faultRules = (f: PointFlags): FaultRule[] => (f.simFault ?? []).map(parseFaultRule);
