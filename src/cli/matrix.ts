import { type Command, Option } from 'commander';
import {
  buildMatrix,
  DEFAULT_RUNNER_CONFIG,
  evalModeFromFlags,
  type GeneratorRequest,
} from '../matrix/build.ts';
import { EVAL_GROUPINGS, type EvalGrouping } from '../matrix/evals.ts';
import { pyDumps } from '../matrix/json.ts';
import { SEQ_LEN_NAMES, type SeqLenName } from '../matrix/naming.ts';
import { SCENARIO_TYPES, type ScenarioType } from '../schema/enums.ts';
import { collectInts, parseIntArg, reportError } from './common.ts';
import type { CliIO } from './io.ts';
import { registerMatrixPolicy } from './matrix-policy.ts';

/** `infx matrix full-sweep|test-config`: the reference generator's two subcommands, same flags, same JSON. */

interface SharedFlags {
  configFiles: string[];
  runnerConfig: string;
  cache: boolean;
  evals?: boolean;
  evalsOnly?: boolean;
  allEvals?: boolean;
  evalGrouping: EvalGrouping;
  runnerNodeFilter?: string;
  scenarioType?: ScenarioType[];
  seqLens?: SeqLenName[];
}

function shared(cmd: Command): Command {
  return cmd
    .requiredOption('--config-files <files...>', 'master config YAML files, merged in the order given')
    .option('--runner-config <path>', 'runner config (labels and hardware)', DEFAULT_RUNNER_CONFIG)
    .option('--no-evals', 'do not mark any row for evals')
    .option('--no-cache', 'do not reuse configs parsed by earlier runs (also: INFX_NO_CACHE=1)')
    .option('--evals-only', 'emit only the rows selected for evals, each with eval-only: true')
    .option('--all-evals', 'select every eligible row for evals (implies --evals-only)')
    .addOption(
      new Option(
        '--eval-grouping <mode>',
        'reference: the reference policy; topology: one eval group per curve, so no topology loses its eval',
      )
        .choices(EVAL_GROUPINGS)
        .default('reference'),
    )
    .option(
      '--runner-node-filter <substr>',
      'expand rows to the concrete runner nodes whose name contains SUBSTR',
    )
    .addOption(
      new Option('--scenario-type <types...>', 'generate only these scenarios').choices(SCENARIO_TYPES),
    )
    .addOption(
      new Option('--seq-lens <names...>', 'fixed-seq-len only: keep these sequence families').choices(
        SEQ_LEN_NAMES,
      ),
    );
}

/** Builds the request inside the try: flag combinations are checked there too. */
async function emit(request: () => GeneratorRequest, io: CliIO): Promise<number> {
  try {
    io.stdout(`${pyDumps(await buildMatrix(request()))}\n`);
    return 0;
  } catch (err) {
    return reportError(err, io);
  }
}

function request(flags: SharedFlags) {
  return {
    configFiles: flags.configFiles,
    runnerConfig: flags.runnerConfig,
    cache: flags.cache,
    evalMode: evalModeFromFlags({
      noEvals: flags.evals === false,
      evalsOnly: flags.evalsOnly,
      allEvals: flags.allEvals,
    }),
    evalGrouping: flags.evalGrouping,
  };
}

export function registerMatrix(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const matrix = program
    .command('matrix')
    .description(
      'expand master configs into benchmark points (drop-in for the reference generate_sweep_configs.py)',
    );

  shared(
    matrix
      .command('full-sweep')
      .description('every point of every config that passes the filters')
      .option('--model-prefix <prefixes...>', 'keep configs whose key starts with one of these')
      .option('--precision <values...>', 'keep configs with this precision')
      .option('--framework <values...>', 'keep configs with this framework')
      .option('--runner-type <labels...>', 'keep configs whose runner is one of these runners.yaml labels')
      .option('--step-size <n>', 'geometric step of concurrency ranges (> 1)', parseIntArg, 2)
      .option('--min-conc <n>', 'lowest concurrency (single-node ranges are clamped to it)', parseIntArg)
      .option('--max-conc <n>', 'highest concurrency (single-node ranges are clamped to it)', parseIntArg)
      .option('--max-tp <n>', 'drop single-node points with a larger tp', parseIntArg)
      .option('--max-ep <n>', 'clamp single-node ep to at most this', parseIntArg)
      .option('--single-node', 'only single-node configs (default: both kinds)')
      .option('--multi-node', 'only multi-node configs (default: both kinds)'),
  ).action(async (flags) => {
    setExit(
      await emit(
        () => ({
          ...request(flags),
          command: 'full-sweep',
          options: {
            modelPrefix: flags.modelPrefix,
            precision: flags.precision,
            framework: flags.framework,
            runnerType: flags.runnerType,
            stepSize: flags.stepSize,
            minConc: flags.minConc,
            maxConc: flags.maxConc,
            maxTp: flags.maxTp,
            maxEp: flags.maxEp,
            singleNode: flags.singleNode,
            multiNode: flags.multiNode,
            runnerNodeFilter: flags.runnerNodeFilter,
            scenarioTypes: flags.scenarioType,
            seqLens: flags.seqLens,
          },
        }),
        io,
      ),
    );
  });

  shared(
    matrix
      .command('test-config')
      .description('the points of the named configs (globs allowed), e.g. for a changelog entry')
      .requiredOption('--config-keys <keys...>', 'config keys or shell-style globs (*, ?, [..])')
      .option('--conc <values...>', 'keep only these concurrencies', collectInts),
  ).action(async (flags) => {
    setExit(
      await emit(
        () => ({
          ...request(flags),
          command: 'test-config',
          options: {
            configKeys: flags.configKeys,
            conc: flags.conc,
            runnerNodeFilter: flags.runnerNodeFilter,
            scenarioTypes: flags.scenarioType,
            seqLens: flags.seqLens,
          },
        }),
        io,
      ),
    );
  });

  registerMatrixPolicy(matrix, io, setExit);
}
