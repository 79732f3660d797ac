import { type Command, InvalidArgumentError } from 'commander';

/** The revisions and inputs of a change, as `infx changelog …` and `infx review` take them. */
export interface ChangeFlags {
  baseRef: string;
  headRef: string;
  changelogFile: string;
  configFiles: string[];
  runnerConfig: string;
}

/** `--pr N`: the PR's number, refused unless it is one (never read as "no PR"). */
export function prNumber(v: string): number {
  if (!/^[1-9]\d{0,9}$/.test(v))
    throw new InvalidArgumentError(`--pr '${v}' is not a PR number: give its digits, e.g. --pr 2676`);
  return Number(v);
}

/** The reference's repository (as src/changelog/compare.ts DEFAULT_REPO; the CLI loads that lazily). */
export const DEFAULT_REPO_NAME = 'SemiAnalysisAI/InferenceX';

/** `--repo owner/name`. */
export function repoName(v: string): string {
  if (!/^[\w.-]+\/[\w.-]+$/.test(v))
    throw new InvalidArgumentError(
      `--repo '${v}' is not owner/name: give e.g. --repo SemiAnalysisAI/InferenceX`,
    );
  return v;
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
