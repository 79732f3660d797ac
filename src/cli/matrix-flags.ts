import { Command, Option } from 'commander';
import type { FullSweepOptions } from '../matrix/generate.ts';
import { SEQ_LEN_NAMES, type SeqLenName } from '../matrix/naming.ts';
import { SCENARIO_TYPES, type ScenarioType } from '../schema/enums.ts';
import { parseIntArg } from './common.ts';

/** The generator's row filters, shared by `infx matrix` and `infx sweep` (same flags, same meaning). */

export interface RowFilterFlags {
  runnerNodeFilter?: string;
  scenarioType?: ScenarioType[];
  seqLens?: SeqLenName[];
}

export interface FullSweepFlags extends RowFilterFlags {
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
}

export function rowFilterFlags(cmd: Command): Command {
  return cmd
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

export function fullSweepFlags(cmd: Command): Command {
  return cmd
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
    .option('--multi-node', 'only multi-node configs (default: both kinds)');
}

export const rowFilterOptions = (f: RowFilterFlags) => ({
  runnerNodeFilter: f.runnerNodeFilter,
  scenarioTypes: f.scenarioType,
  seqLens: f.seqLens,
});

export const fullSweepOptions = (f: FullSweepFlags): FullSweepOptions => ({
  ...rowFilterOptions(f),
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
});

/** The long names of the generator's filter flags (as registered above), for commands that must refuse them. */
export const filterFlagNames = (): string[] =>
  fullSweepFlags(rowFilterFlags(new Command())).options.flatMap((o) => (o.long ? [o.long] : []));
