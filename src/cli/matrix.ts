import { type Command, Option } from 'commander';
import { USER_CATALOG_DEFAULT, USER_CATALOG_ENV } from '../config/user-catalog-path.ts';
import {
  buildMatrix,
  DEFAULT_RUNNER_CONFIG,
  evalModeFromFlags,
  type GeneratorRequest,
} from '../matrix/build.ts';
import { EVAL_GROUPINGS, type EvalGrouping } from '../matrix/evals.ts';
import { pyDumps } from '../matrix/json.ts';
import { collectInts, reportError } from './common.ts';
import type { CliIO } from './io.ts';
import {
  fullSweepFlags,
  fullSweepOptions,
  type RowFilterFlags,
  rowFilterFlags,
  rowFilterOptions,
} from './matrix-flags.ts';
import { registerMatrixPolicy } from './matrix-policy.ts';
import { rememberMatrixOutput } from './matrix-replay.ts';

/** `infx matrix full-sweep|test-config`: the reference generator's two subcommands, same flags, same JSON. */

interface SharedFlags extends RowFilterFlags {
  configFiles: string[];
  runnerConfig: string;
  cache: boolean;
  evals?: boolean;
  evalsOnly?: boolean;
  allEvals?: boolean;
  evalGrouping: EvalGrouping;
}

function shared(cmd: Command): Command {
  return rowFilterFlags(
    cmd
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
      ),
  );
}

/**
 * Builds the request inside the try: flag combinations are checked there too. What it printed is kept in
 * the output cache (matrix-replay.ts) with the files it read, the user catalog's included.
 */
async function emit(
  flags: SharedFlags,
  request: (io: CliIO) => GeneratorRequest,
  io: CliIO,
): Promise<number> {
  let stderr = '';
  const seen: CliIO = {
    ...io,
    stderr: (text) => {
      stderr += text;
      io.stderr(text);
    },
  };
  try {
    const stdout = `${pyDumps(await buildMatrix(request(seen)))}\n`;
    io.stdout(stdout);
    const catalog = process.env[USER_CATALOG_ENV];
    rememberMatrixOutput(
      [...flags.configFiles, flags.runnerConfig, USER_CATALOG_DEFAULT, ...(catalog ? [catalog] : [])],
      { stdout, stderr },
    );
    return 0;
  } catch (err) {
    return reportError(err, io);
  }
}

function request(flags: SharedFlags, io: CliIO) {
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
    // Stdout stays the reference's JSON; a filter that matches nothing is said on stderr.
    warn: (message: string) => io.stderr(`warning: ${message}\n`),
  };
}

export function registerMatrix(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const matrix = program
    .command('matrix')
    .description(
      'expand master configs into benchmark points (drop-in for the reference generate_sweep_configs.py)',
    );

  fullSweepFlags(
    shared(matrix.command('full-sweep').description('every point of every config that passes the filters')),
  ).action(async (flags) => {
    setExit(
      await emit(
        flags,
        (seen) => ({
          ...request(flags, seen),
          command: 'full-sweep',
          options: fullSweepOptions(flags),
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
        flags,
        (seen) => ({
          ...request(flags, seen),
          command: 'test-config',
          options: { ...rowFilterOptions(flags), configKeys: flags.configKeys, conc: flags.conc },
        }),
        io,
      ),
    );
  });

  registerMatrixPolicy(matrix, io, setExit);
}
