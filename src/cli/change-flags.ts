import type { Command } from 'commander';

/** The revisions and inputs of a change, as `infx changelog …` and `infx review` take them. */
export interface ChangeFlags {
  baseRef: string;
  headRef: string;
  changelogFile: string;
  configFiles: string[];
  runnerConfig: string;
}

export function changeOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--base-ref <rev>', 'the base revision (e.g. origin/main)')
    .requiredOption('--head-ref <rev>', 'the head revision (the PR head); run in a work tree at it')
    .option('--changelog-file <path>', 'the changelog', 'perf-changelog.yaml')
    .option('--config-files <files...>', 'master configs, merged in order', [
      'configs/amd-master.yaml',
      'configs/nvidia-master.yaml',
    ])
    .option('--runner-config <path>', 'the runner config', 'configs/runners.yaml');
}
