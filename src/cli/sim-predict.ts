import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { KvCacheDtype } from '../sim/engine/engine-profile.ts';
import { explainOutcome, formatExplain } from '../sim/engine/explain.ts';
import { predictRowsParallel } from '../sim/engine/predict-parallel.ts';
import { formatOutcome, matrixPoints } from '../sim/engine/rows.ts';
import { parseIntArg, positiveInt, reportError } from './common.ts';
import type { CliIO } from './io.ts';

/** `infx sim predict [FILE]`: predicted throughput/GPU, interactivity, TTFT and E2E of matrix rows. */

interface PredictFlags {
  format: 'text' | 'json';
  gpuMemoryUtilization?: number;
  draftTokens?: number;
  acceptanceLength?: number;
  rangeRatio?: number;
  seed?: number;
  asMeasured?: boolean;
  numPrompts?: number;
  exact?: boolean;
  fast?: boolean;
  /** False with --no-fold. */
  fold?: boolean;
  explain?: boolean;
  kvCacheDtype?: KvCacheDtype;
  jobs?: number;
}

/** Below this many points one thread is quicker than starting others. */
const PARALLEL_FROM_POINTS = 32;

/** The bundled thread entry, next to the CLI bundle (dist/); null when running from sources. */
function predictWorkerScript(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 3; i++, dir = dirname(dir)) {
    const candidate = join(dir, 'predict-worker.mjs');
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

function parseFraction(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n > 0 && n <= 1))
    throw new InvalidArgumentError(`expected a number in (0, 1], got '${value}'`);
  return n;
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 1))
    throw new InvalidArgumentError(`expected a number >= 1, got '${value}'`);
  return n;
}

async function readRows(file: string | undefined, io: CliIO): Promise<{ doc?: unknown; error?: string }> {
  let text: string;
  if (file === undefined || file === '-') {
    text = await io.readStdin();
    if (text.trim() === '')
      return { error: 'no matrix rows on stdin: pipe in `infx matrix …` output or pass a FILE' };
  } else {
    if (!existsSync(file)) return { error: `matrix file '${file}' does not exist` };
    text = readFileSync(file, 'utf8');
  }
  try {
    return { doc: JSON.parse(text) };
  } catch (err) {
    return {
      error: `${file && file !== '-' ? `'${file}'` : 'stdin'} is not valid JSON: ${(err as Error).message}`,
    };
  }
}

export function registerSimPredict(sim: Command, io: CliIO, setExit: (code: number) => void): void {
  sim
    .command('predict')
    .description(
      'predict steady-state throughput/GPU, interactivity, TTFT and E2E of matrix rows (a JSON array from ' +
        'FILE or stdin) with the simulated engine, one line per row and concurrency',
    )
    .argument('[file]', "matrix rows JSON (default or '-': stdin)")
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--gpu-memory-utilization <f>', 'engine memory budget fraction (default 0.9)', parseFraction)
    .option(
      '--draft-tokens <n>',
      "draft tokens per step for spec-decoding rows (default: the row's recipe, else 3)",
      parseIntArg,
    )
    .option(
      '--acceptance-length <al>',
      "mean acceptance length for spec-decoding rows (default: the row's forced one, else per model and draft length)",
      parsePositive,
    )
    .option(
      '--range-ratio <r>',
      'request lengths uniform in [floor(L*r), L], as the reference client (default 0.8)',
      parseFraction,
    )
    .option('--seed <n>', 'seed of request lengths and acceptance draws (default 0)', parseIntArg)
    .option(
      '--as-measured',
      'predict what infx bench measures (N requests from an idle engine, the whole window) instead of the steady state',
    )
    .addOption(
      new Option(
        '--exact',
        'the full co-simulation (every sequence, every step) instead of the fast engine, which gives the same ' +
          "results without speculative decoding and, with it, agrees within the full co-simulation's seed-to-seed spread",
      ).conflicts('fast'),
    )
    .option(
      '--fast',
      'speculative-decoding rows: one shared acceptance sequence for every sequence instead of the draws of ' +
        "each one's steps (a little faster; loses the spread of TPOT between requests)",
    )
    .option(
      '--no-fold',
      'past saturation, simulate every user instead of only those the queue needs plus the wait of the rest ' +
        '(queue folding: checked, refused where the queue runs dry or the engine preempts; --exact never folds)',
    )
    .addOption(
      new Option(
        '--kv-cache-dtype <dtype>',
        "KV-cache dtype for every row (default auto: the framework's rule for the row's precision)",
      ).choices(['auto', 'bf16', 'fp8']),
    )
    .option(
      '--explain',
      'after each point: memory split per engine (weights, reserve, KV pool), KV dtype and capacity, and what binds prefill and decode',
    )
    .option(
      '--jobs <n>',
      `threads predicting points at once (default: the machine's cores, ${availableParallelism()} here, for ${PARALLEL_FROM_POINTS} points or more; 1 below); at most twice the cores; the outcomes are the same`,
      positiveInt,
    )
    .option(
      '--num-prompts <n>',
      'with --as-measured: requests per point (default 10 x concurrency)',
      parseIntArg,
    )
    .action(async (file: string | undefined, flags: PredictFlags) => {
      try {
        const input = await readRows(file, io);
        if (input.error !== undefined) {
          io.stderr(`error: ${input.error}\n`);
          setExit(1);
          return;
        }
        const setupOpts = {
          gpuMemoryUtilization: flags.gpuMemoryUtilization,
          ...(flags.kvCacheDtype !== undefined ? { kvCacheDtype: flags.kvCacheDtype } : {}),
          ...(flags.draftTokens !== undefined ? { draftTokens: flags.draftTokens } : {}),
          ...(flags.acceptanceLength !== undefined ? { acceptanceLength: flags.acceptanceLength } : {}),
        };
        const points = matrixPoints(input.doc).length;
        const script = predictWorkerScript();
        const cores = availableParallelism();
        let jobs = Math.min(flags.jobs ?? (points >= PARALLEL_FROM_POINTS ? cores : 1), 2 * cores);
        if (jobs > 1 && script === null) {
          if (flags.jobs !== undefined)
            io.stderr('note: --jobs needs the built CLI (npm run build); predicting on one thread\n');
          jobs = 1;
        }
        const outcomes = await predictRowsParallel(
          input.doc,
          {
            ...setupOpts,
            rangeRatio: flags.rangeRatio,
            seed: flags.seed,
            ...(flags.asMeasured ? { method: 'as-measured' as const } : {}),
            ...(flags.numPrompts !== undefined ? { numPrompts: flags.numPrompts } : {}),
            ...(flags.exact ? { engine: 'exact' as const } : flags.fast ? { engine: 'fast' as const } : {}),
            ...(flags.fold === false ? { fold: false } : {}),
          },
          { jobs, script: script ?? '' },
        );
        if (outcomes.length === 0) io.stderr('note: the input holds no matrix rows\n');
        const explained = outcomes.map((o) =>
          flags.explain ? explainOutcome(input.doc, o, setupOpts) : null,
        );
        if (flags.format === 'json') {
          const out = flags.explain ? outcomes.map((o, i) => ({ ...o, explain: explained[i] })) : outcomes;
          io.stdout(`${JSON.stringify(out, null, 2)}\n`);
        }
        for (const [i, o] of outcomes.entries()) {
          if (flags.format === 'text' && o.status !== 'error') io.stdout(`${formatOutcome(o)}\n`);
          const e = explained[i];
          if (flags.format === 'text' && e) io.stdout(`${formatExplain(e).join('\n')}\n`);
          if (o.status === 'error') io.stderr(`error: ${formatOutcome(o).replace(/: error: /, ': ')}\n`);
        }
        if (outcomes.some((o) => o.status === 'error')) setExit(1);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
