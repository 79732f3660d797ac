import type { Command } from 'commander';
import { type ChangeFlags, changeOptions, prNumber } from './change-flags.ts';
import { reportError } from './common.ts';
import type { CliIO } from './io.ts';

interface MatrixFlags extends ChangeFlags {
  trimConc?: boolean;
  allEvals?: boolean;
  evalsOnly?: boolean;
}

interface ValidateFlags extends MatrixFlags {
  pr?: number;
}

/** `infx changelog matrix|validate`: the changelog processor and the CI gate (changelog-pr-spec §1.7, §2). */
export function registerChangelog(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const changelog = program
    .command('changelog')
    .description('perf-changelog.yaml: the points a change runs, and the gate a change must pass');
  const refs = (cmd: Command) =>
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
    .action(async (flags: ValidateFlags) => {
      try {
        const { validateChangelog } = await import('../changelog/validate.ts');
        const report = await validateChangelog({ cwd: process.cwd(), ...flags, pr: flags.pr ?? null });
        for (const line of report.lines) io.stdout(`${line}\n`);
        for (const line of report.errors) io.stderr(`ERROR: ${line}\n`);
        setExit(report.errors.length > 0 ? 1 : 0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });

  const merge = (cmd: Command) =>
    cmd
      .requiredOption('--pr <number>', 'the PR being merged', prNumber)
      .option('--changelog-file <path>', 'the changelog', 'perf-changelog.yaml')
      .option('--repo <owner/name>', 'the repository of the canonical PR links', 'SemiAnalysisAI/InferenceX');
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
}
