import { type Command as Cmd, Option } from 'commander';
import { type ChangeFlags, changeOptions, DEFAULT_REPO_NAME, prNumber, repoName } from './change-flags.ts';
import { numberIn, reportError } from './common.ts';
import type { CliIO } from './io.ts';

interface MatrixFlags extends ChangeFlags {
  trimConc?: boolean;
  allEvals?: boolean;
  evalsOnly?: boolean;
}

interface ValidateFlags extends MatrixFlags {
  pr?: number;
  repo: string;
  format: 'text' | 'json';
}

/** `infx changelog matrix|validate`: the changelog processor and the CI gate (changelog-pr-spec §1.7, §2). */
export function registerChangelog(program: Cmd, io: CliIO, setExit: (code: number) => void): void {
  const changelog = program
    .command('changelog')
    .description('perf-changelog.yaml: the points a change runs, and the gate a change must pass');
  const refs = (cmd: Cmd) =>
    changeOptions(cmd)
      .option('--all-evals', 'PR label all-evals: expand evals for every entry, keep throughput')
      .option('--evals-only', 'PR label evals-only: suppress throughput for every entry');

  refs(changelog.command('matrix'))
    .description("the matrix the changelog entries added base..head select (the reference processor's JSON)")
    .option('--trim-conc', 'PR label sweep-enabled: keep the lowest concurrency of each recipe')
    .action(async (flags: MatrixFlags) => {
      try {
        const { changelogMatrix, formatChangelogMatrix } = await import('../changelog/gate.ts');
        io.stdout(formatChangelogMatrix(await changelogMatrix({ cwd: process.cwd(), ...flags })));
        setExit(0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });

  refs(changelog.command('validate'))
    .description("the changelog gate: the reference's CI checks, then the byte-level append contract")
    .option('--pr <number>', 'the PR number (new entries may then link to it or use XXX)', prNumber)
    .option('--repo <owner/name>', 'the repository the pr-links name', repoName, DEFAULT_REPO_NAME)
    .addOption(
      new Option('--format <format>', 'text, or json: {"lines": [what passed], "errors": [each failure]}')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (flags: ValidateFlags) => {
      try {
        const { validateChangelog } = await import('../changelog/validate.ts');
        const report = await validateChangelog({ cwd: process.cwd(), ...flags, pr: flags.pr ?? null });
        if (flags.format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
        else {
          for (const line of report.lines) io.stdout(`${line}\n`);
          for (const line of report.errors) io.stderr(`ERROR: ${line}\n`);
        }
        setExit(report.errors.length > 0 ? 1 : 0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });

  const merge = (cmd: Cmd) =>
    cmd
      .requiredOption('--pr <number>', 'the PR being merged', prNumber)
      .option('--changelog-file <path>', 'the changelog', 'perf-changelog.yaml')
      .option('--repo <owner/name>', 'the repository of the canonical PR links', repoName, DEFAULT_REPO_NAME);
  const run = (fn: () => Promise<{ message: string }>) => async () => {
    try {
      io.stdout(`${(await fn()).message}\n`);
      setExit(0);
    } catch (err) {
      setExit(reportError(err, io));
    }
  };

  merge(changelog.command('canonicalize'))
    .description("after syncing with main: the PR's appended entries' XXX links become the PR's URL")
    .option('--base-ref <rev>', 'the base the entries are appended to', 'origin/main')
    .action((flags: { pr: number; changelogFile: string; repo: string; baseRef: string }) =>
      run(async () =>
        (await import('../changelog/merge-tree.ts')).canonicalizeWorkTree({ cwd: process.cwd(), ...flags }),
      )(),
    );

  merge(changelog.command('resolve'))
    .description(
      "in a merge of main that conflicts in the changelog: main's bytes, then the PR's own entries",
    )
    .action((flags: { pr: number; changelogFile: string; repo: string }) =>
      run(async () =>
        (await import('../changelog/merge-tree.ts')).resolveWorkTree({ cwd: process.cwd(), ...flags }),
      )(),
    );

  registerMergeWithReuse(changelog, io, setExit);
}

interface MergeWithReuseFlags {
  pr: number;
  repo?: string;
  remote: string;
  baseBranch: string;
  changelogFile: string;
  checkTimeout: number;
  pollInterval: number;
  apiUrl?: string;
  dryRun?: boolean;
}

/** `infx changelog merge-with-reuse --pr N`: merge_with_reuse.sh as one command (changelog-pr-spec §4.4). */
function registerMergeWithReuse(changelog: Cmd, io: CliIO, setExit: (code: number) => void): void {
  changelog
    .command('merge-with-reuse')
    .description(
      'merge a PR so that main reuses its sweep: /reuse-sweep-run, main merged in (changelog resolved), checks, squash merge',
    )
    .requiredOption('--pr <number>', 'the PR to merge', prNumber)
    .option(
      '--repo <owner/name>',
      "the PR's repository (default: the remote's GitHub URL, else SemiAnalysisAI/InferenceX)",
      repoName,
    )
    .option('--remote <name>', 'the git remote of the repository', 'origin')
    .option('--base-branch <branch>', 'the branch the PR merges into', 'main')
    .option('--changelog-file <path>', 'the changelog', 'perf-changelog.yaml')
    .option(
      '--check-timeout <seconds>',
      'how long to wait for check-changelog, then for all checks',
      numberIn(0, Number.POSITIVE_INFINITY, true),
      900,
    )
    .option('--poll-interval <seconds>', 'how often to ask GitHub about checks', numberIn(0, 3600, true), 10)
    .option('--api-url <url>', "GitHub's REST API (default: $GITHUB_API_URL, else https://api.github.com)")
    .option('--dry-run', 'check every precondition and print the plan; post, push and merge nothing')
    .action(async (flags: MergeWithReuseFlags) => {
      try {
        const { mergeWithReuse } = await import('../bot/merge-with-reuse.ts');
        const out = await mergeWithReuse({
          cwd: process.cwd(),
          pr: flags.pr,
          repo: flags.repo,
          remote: flags.remote,
          baseBranch: flags.baseBranch,
          changelogFile: flags.changelogFile,
          checkTimeoutS: flags.checkTimeout,
          pollIntervalS: flags.pollInterval,
          apiUrl: flags.apiUrl,
          dryRun: flags.dryRun === true,
          log: (line) => io.stderr(`merge-with-reuse: ${line}\n`),
        });
        if (out.dryRun) for (const line of out.plan) io.stdout(`would ${line}\n`);
        else io.stdout(`${out.mergeSha}\n`);
        setExit(0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
