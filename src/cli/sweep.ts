import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { DEFAULT_RUNNER_CONFIG, type GeneratorRequest } from '../matrix/build.ts';
import { SEQ_LEN_NAMES } from '../matrix/naming.ts';
import { SCENARIO_TYPES } from '../schema/enums.ts';
import type { RunOptions } from '../schema/run-dir.ts';
import { checkRunId, createRun, type NewRunRequest, planRun, type SweepSource } from '../sweep/create-run.ts';
import { plannedLaunches } from '../sweep/execute.ts';
import { formatPlan } from '../sweep/format.ts';
import { manifestPath } from '../sweep/run-dir.ts';
import { collectInts, nonNegativeInt, parseIntArg, positiveInt } from './common.ts';
import type { CliIO } from './io.ts';
import { sweepErrorCode, UsageError } from './sweep-errors.ts';
import { benchDefaults, engineDefaults, faultRules, type PointFlags, pointFlags } from './sweep-flags.ts';
import { runAndReport } from './sweep-run.ts';
import { registerSweepTools } from './sweep-tools.ts';

/** `infx sweep`: run a matrix, one fresh engine per point, into a run directory. */

interface SweepFlags extends PointFlags {
  configFiles?: string[];
  runnerConfig: string;
  configKeys?: string[];
  conc?: number[];
  modelPrefix?: string[];
  precision?: string[];
  framework?: string[];
  runnerType?: string[];
  stepSize: number;
  minConc?: number;
  maxConc?: number;
  maxTp?: number;
  maxEp?: number;
  singleNode?: boolean;
  multiNode?: boolean;
  runnerNodeFilter?: string;
  scenarioType?: (typeof SCENARIO_TYPES)[number][];
  seqLens?: (typeof SEQ_LEN_NAMES)[number][];
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
  slurmGpuRequest: 'gres' | 'gpus-per-node' | 'none';
  slurmGpusPerNode: number;
  slurmArg?: string[];
  slurmTime: number;
}

function source(f: SweepFlags): SweepSource {
  if (f.matrix) {
    if (f.configFiles) throw new UsageError('give --matrix or --config-files, not both');
    return { kind: 'matrix', file: f.matrix };
  }
  if (!f.configFiles)
    throw new UsageError('say what to run: --config-files (with filters) or --matrix rows.json');
  const base = {
    configFiles: f.configFiles,
    runnerConfig: f.runnerConfig,
    evalMode: 'no-evals' as const,
    evalGrouping: 'reference' as const,
  };
  const shared = {
    runnerNodeFilter: f.runnerNodeFilter,
    scenarioTypes: f.scenarioType,
    seqLens: f.seqLens,
  };
  const request: GeneratorRequest = f.configKeys
    ? { ...base, command: 'test-config', options: { ...shared, configKeys: f.configKeys, conc: f.conc } }
    : {
        ...base,
        command: 'full-sweep',
        options: {
          ...shared,
          modelPrefix: f.modelPrefix,
          precision: f.precision,
          framework: f.framework,
          runnerType: f.runnerType,
          stepSize: f.stepSize,
          minConc: f.minConc,
          maxConc: f.maxConc,
          maxTp: f.maxTp,
          maxEp: f.maxEp,
          singleNode: f.singleNode,
          multiNode: f.multiNode,
        },
      };
  return { kind: 'configs', request };
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

async function sweep(f: SweepFlags, io: CliIO, version: string): Promise<number> {
  let runDir: string;
  if (f.resume) {
    runDir = join(f.out, checkRunId(f.resume));
    if (!existsSync(manifestPath(runDir)))
      throw new UsageError(
        `--resume ${f.resume}: no run ${f.resume} in ${f.out} (no ${manifestPath(runDir)})`,
      );
  } else {
    const req: NewRunRequest = {
      source: source(f),
      outDir: f.out,
      runId: f.runId,
      seed: f.seed,
      options: runOptions(f),
      bench: benchDefaults(f),
      engine: engineDefaults(f),
      faults: faultRules(f),
      version,
    };
    if (f.dryRun) {
      const { runDir: dir, manifest } = await planRun(req);
      io.stdout(formatPlan(manifest, await plannedLaunches(manifest, dir)));
      return 0;
    }
    const created = await createRun(req);
    runDir = created.runDir;
    io.stderr(
      `run ${created.manifest.runId}: ${created.manifest.points.length} points in ${runDir}` +
        `${created.manifest.skipped.length ? ` (${created.manifest.skipped.length} rows skipped: see manifest.json)` : ''}\n`,
    );
  }
  return runAndReport(runDir, 'missing', io);
}

export function registerSweep(program: Command, io: CliIO, setExit: (code: number) => void, version: string) {
  const cmd = pointFlags(
    program
      .command('sweep')
      .description(
        'run benchmark points (from master configs or a matrix file), a fresh engine per point, into a run directory',
      )
      .option('--config-files <files...>', 'master config YAML files (as infx matrix)')
      .option('--runner-config <path>', 'runner config', DEFAULT_RUNNER_CONFIG)
      .option('--config-keys <keys...>', 'only these config keys or globs (as infx matrix test-config)')
      .option('--conc <values...>', 'with --config-keys: only these concurrencies', collectInts)
      .option('--model-prefix <prefixes...>', 'keep configs whose key starts with one of these')
      .option('--precision <values...>', 'keep configs with this precision')
      .option('--framework <values...>', 'keep configs with this framework')
      .option('--runner-type <labels...>', 'keep configs of these runners.yaml labels')
      .option('--step-size <n>', 'geometric step of concurrency ranges', parseIntArg, 2)
      .option('--min-conc <n>', 'lowest concurrency', parseIntArg)
      .option('--max-conc <n>', 'highest concurrency', parseIntArg)
      .option('--max-tp <n>', 'drop single-node points with a larger tp', parseIntArg)
      .option('--max-ep <n>', 'clamp single-node ep to at most this', parseIntArg)
      .option('--single-node', 'only single-node configs')
      .option('--multi-node', 'only multi-node configs')
      .option('--runner-node-filter <substr>', 'expand rows to the runner nodes whose name contains SUBSTR')
      .addOption(new Option('--scenario-type <types...>', 'only these scenarios').choices(SCENARIO_TYPES))
      .addOption(new Option('--seq-lens <names...>', 'only these sequence families').choices(SEQ_LEN_NAMES))
      .option('--matrix <rows.json>', 'run the rows of a matrix file (infx matrix output) instead')
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
      .addOption(
        new Option('--slurm-gpu-request <how>', 'how jobs ask for GPUs')
          .choices(['gres', 'gpus-per-node', 'none'])
          .default('gres'),
      )
      .option('--slurm-gpus-per-node <n>', 'GPUs per node (sizes multi-node jobs)', positiveInt, 8)
      .option('--slurm-arg <args...>', 'extra sbatch options, e.g. --slurm-arg=--partition=gpu')
      .option('--slurm-time <minutes>', 'time limit of each job', positiveInt, 240),
  ).action(async (flags: SweepFlags) => {
    try {
      setExit(await sweep(flags, io, version));
    } catch (err) {
      setExit(sweepErrorCode(err, io));
    }
  });
  // Options after `sweep point|status|retry` belong to the subcommand (both have --out, for one).
  cmd.enablePositionalOptions();
  registerSweepTools(cmd, io, setExit, version);
}
