import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { DEFAULT_RUNNER_CONFIG, type GeneratorRequest } from '../matrix/build.ts';
import { plural } from '../schema/plural.ts';
import type { RunOptions } from '../schema/run-dir.ts';
import { safeJoin } from '../schema/safe-path.ts';
import {
  checkRunId,
  type NewRunRequest,
  planRun,
  type SweepSource,
  writeNewRun,
} from '../sweep/create-run.ts';
import { plannedLaunches } from '../sweep/execute.ts';
import { formatPlan } from '../sweep/format.ts';
import { manifestPath, writePointSpecs } from '../sweep/run-dir.ts';
import { collectInts, nonNegativeInt, positiveInt } from './common.ts';
import { reportError, UsageError } from './errors.ts';
import type { CliIO } from './io.ts';
import {
  type FullSweepFlags,
  filterFlagNames,
  fullSweepFlags,
  fullSweepOptions,
  rowFilterFlags,
} from './matrix-flags.ts';
import {
  agenticDefaults,
  benchDefaults,
  engineDefaults,
  evalDefaults,
  faultRules,
  type PointFlags,
  pointFlags,
} from './sweep-flags.ts';
import { lockRun, notePreflight, runAndReport } from './sweep-run.ts';
import { registerSweepTools } from './sweep-tools.ts';

/** `infx sweep`: run a matrix, one fresh engine per point, into a run directory. */

interface SweepFlags extends PointFlags, FullSweepFlags {
  configFiles?: string[];
  runnerConfig: string;
  configKeys?: string[];
  conc?: number[];
  matrix?: string;
  out: string;
  runId?: string;
  executor: 'local' | 'slurm';
  failFast?: boolean;
  canary?: boolean;
  retries: number;
  parallel: number;
  resume?: string;
  dryRun?: boolean;
  planOnly?: boolean;
  slurmGpuRequest: 'gres' | 'gpus-per-node' | 'none';
  slurmGpusPerNode: number;
  slurmArg?: string[];
  slurmTime: number;
}

/** The long names of the options given on the command line (or the environment), not left at a default. */
function givenFlags(cmd: Command): string[] {
  return cmd.options.flatMap((o) => {
    const src = cmd.getOptionValueSource(o.attributeName());
    return o.long && src !== undefined && src !== 'default' ? [o.long] : [];
  });
}

/** Flags that only choose rows from master configs: a matrix file's rows are already chosen. */
const CONFIG_ONLY = ['--config-keys', '--conc', '--runner-config'];

/**
 * No flag is silently ignored: with --matrix the generator's filters are refused (exit 2), and with
 * --config-keys every filter still applies (src/matrix/filters.ts), exactly as without it.
 */
function source(f: SweepFlags, given: readonly string[], io: CliIO): SweepSource {
  if (f.matrix) {
    if (f.configFiles) throw new UsageError('give --matrix or --config-files, not both');
    const filters = new Set([...filterFlagNames(), ...CONFIG_ONLY]);
    const refused = given.filter((g) => filters.has(g));
    if (refused.length > 0)
      throw new UsageError(
        `${refused.join(', ')} ${refused.length === 1 ? 'selects' : 'select'} rows from master configs, but --matrix ${f.matrix} ` +
          'runs the rows of a matrix file as they are: drop the filter, or give --config-files instead of --matrix ' +
          '(or filter the matrix with infx matrix first)',
      );
    return { kind: 'matrix', file: f.matrix };
  }
  if (!f.configFiles)
    throw new UsageError('say what to run: --config-files (with filters) or --matrix rows.json');
  const base = {
    configFiles: f.configFiles,
    runnerConfig: f.runnerConfig,
    evalMode: 'no-evals' as const,
    evalGrouping: 'reference' as const,
    warn: (message: string) => io.stderr(`warning: ${message}\n`),
  };
  const options = { ...fullSweepOptions(f), conc: f.conc };
  const request: GeneratorRequest = f.configKeys
    ? { ...base, command: 'test-config', options: { ...options, configKeys: f.configKeys } }
    : { ...base, command: 'full-sweep', options };
  return { kind: 'configs', request };
}

/**
 * --resume runs what is missing from the run as it was planned and recorded: the points, and how each runs
 * (engine, time scale, prompts, executor) are read from the run directory, so every flag but --out and
 * --retries (which applies to the attempts still to come) would be ignored: it is refused instead.
 */
function checkResumeFlags(given: readonly string[]): void {
  const applied = new Set(['--resume', '--out', '--retries']);
  const refused = given.filter((g) => !applied.has(g));
  if (refused.length > 0)
    throw new UsageError(
      `--resume runs what is missing from the earlier run as it recorded it (its points, engine and client ` +
        `settings), so ${refused.join(', ')} would be ignored: drop ${refused.length === 1 ? 'it' : 'them'} ` +
        `(only --out and --retries apply to a resume), or start a new run without --resume`,
    );
}

function runOptions(f: SweepFlags): RunOptions {
  for (const a of f.slurmArg ?? [])
    if (!a.startsWith('--'))
      throw new UsageError(`--slurm-arg '${a}': give sbatch options in --name=value form`);
  return {
    executor: f.executor,
    retries: f.retries,
    failFast: f.failFast ?? false,
    canary: f.canary ?? false,
    parallel: f.parallel,
    slurm:
      f.executor === 'slurm'
        ? {
            gpuRequest: f.slurmGpuRequest,
            gpusPerNode: f.slurmGpusPerNode,
            args: f.slurmArg ?? [],
            timeLimitMin: f.slurmTime,
          }
        : null,
  };
}

async function sweep(f: SweepFlags, given: readonly string[], io: CliIO, version: string): Promise<number> {
  if (f.resume) {
    checkResumeFlags(given);
    const runDir = safeJoin(f.out, checkRunId(f.resume));
    if (!existsSync(manifestPath(runDir)))
      throw new UsageError(
        `--resume ${f.resume}: no run ${f.resume} in ${f.out} (no ${manifestPath(runDir)})`,
      );
    const overrides = given.includes('--retries') ? { retries: f.retries } : {};
    return runAndReport(
      runDir,
      'missing',
      io,
      overrides,
      lockRun(runDir, `infx sweep --resume ${f.resume}`, io),
    );
  }
  const req: NewRunRequest = {
    source: source(f, given, io),
    outDir: f.out,
    runId: f.runId,
    seed: f.seed,
    options: runOptions(f),
    bench: benchDefaults(f),
    engine: engineDefaults(f),
    faults: faultRules(f),
    agentic: await agenticDefaults(f),
    eval: evalDefaults(f),
    version,
  };
  if (f.dryRun && f.planOnly)
    throw new UsageError('give --dry-run (print the plan) or --plan-only (write it), not both');
  const planned = await planRun(req);
  if (f.dryRun) {
    io.stdout(formatPlan(planned.manifest, await plannedLaunches(planned.manifest, planned.runDir)));
    await notePreflight(planned.manifest, io);
    return 0;
  }
  // The run's lock first: of two sweeps started at once with one --run-id, exactly one writes the run.
  const lock = lockRun(planned.runDir, `infx sweep --run-id ${planned.manifest.runId}`, io, true);
  try {
    await writeNewRun(planned, f.out);
  } catch (err) {
    lock.release();
    throw err;
  }
  const { manifest, runDir } = planned;
  if (f.planOnly) {
    try {
      await writePointSpecs(runDir, manifest);
    } finally {
      lock.release();
    }
    io.stderr(
      `run ${manifest.runId}: ${plural(manifest.points.length, 'point')} planned in ${runDir}, none run ` +
        `(each runs with infx sweep point --point ${runDir}/points/<id>/spec.json)` +
        `${manifest.skipped.length ? `; ${plural(manifest.skipped.length, 'row')} skipped: see manifest.json` : ''}\n`,
    );
    return 0;
  }
  io.stderr(
    `run ${manifest.runId}: ${plural(manifest.points.length, 'point')} in ${runDir}` +
      `${manifest.skipped.length ? ` (${plural(manifest.skipped.length, 'row')} skipped: see manifest.json)` : ''}\n`,
  );
  return runAndReport(runDir, 'missing', io, {}, lock);
}

/** Where the points come from: the matrix generator's flags, or a matrix file. */
function sourceFlags(cmd: Command): Command {
  return fullSweepFlags(
    rowFilterFlags(
      cmd
        .option('--config-files <files...>', 'master config YAML files (as infx matrix)')
        .option('--runner-config <path>', 'runner config', DEFAULT_RUNNER_CONFIG)
        .option(
          '--config-keys <keys...>',
          'only these config keys or globs (as infx matrix test-config); every other filter still applies',
        )
        .option(
          '--conc <values...>',
          'only these concurrencies (with or without --config-keys; after --min-conc/--max-conc)',
          collectInts,
        ),
    ),
  ).option('--matrix <rows.json>', 'run the rows of a matrix file (infx matrix output) instead');
}

export function registerSweep(program: Command, io: CliIO, setExit: (code: number) => void, version: string) {
  const cmd = pointFlags(
    sourceFlags(program.command('sweep'))
      .description(
        'run benchmark points (from master configs or a matrix file), a fresh engine per point, into a run directory',
      )
      .option('--out <dir>', 'folder of run directories', 'runs')
      .option('--run-id <id>', 'name of the new run (default: time-based)')
      .addOption(
        new Option('--executor <kind>', 'where points run').choices(['local', 'slurm']).default('local'),
      )
      .option('--fail-fast', 'after a point fails its benchmark, skip the rest of its bucket')
      .option(
        '--canary',
        'run the canary point (lowest-concurrency single-node 1k1k/8k1k) first; stop if it fails',
      )
      .option('--retries <n>', 'rerun a failed point up to N more times', nonNegativeInt, 0)
      .option(
        '--parallel <n>',
        'points running at once (local: mind the CPUs; slurm: jobs queued at once)',
        positiveInt,
        1,
      )
      .option('--resume <run-id>', 'run what is missing from an earlier run in --out')
      .option('--dry-run', 'print the plan (points, GPUs, engine command lines) and run nothing')
      .option(
        '--plan-only',
        "write the run directory (manifest.json, each point's spec.json) and run nothing: a CI job per point then runs infx sweep point",
      )
      .addOption(
        new Option('--slurm-gpu-request <how>', 'how jobs ask for GPUs')
          .choices(['gres', 'gpus-per-node', 'none'])
          .default('gres'),
      )
      .option('--slurm-gpus-per-node <n>', 'GPUs per node (sizes multi-node jobs)', positiveInt, 8)
      .option('--slurm-arg <args...>', 'extra sbatch options, e.g. --slurm-arg=--partition=gpu')
      .option('--slurm-time <minutes>', 'time limit of each job', positiveInt, 240),
  ).action(async (flags: SweepFlags, self: Command) => {
    try {
      setExit(await sweep(flags, givenFlags(self), io, version));
    } catch (err) {
      setExit(reportError(err, io));
    }
  });
  // Options after `sweep point|status|retry` belong to the subcommand (both have --out, for one).
  cmd.enablePositionalOptions();
  registerSweepTools(cmd, io, setExit, version);
}
