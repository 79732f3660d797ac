import { type Command, Option } from 'commander';
import { type ChangeFlags, changeOptions, DEFAULT_REPO_NAME, prNumber, repoName } from './change-flags.ts';
import { reportError } from './common.ts';
import type { CliIO } from './io.ts';

interface ReviewFlags extends ChangeFlags {
  prBody?: string;
  repo: string;
  pr?: number;
  format: 'markdown' | 'json';
}

/** `infx review`: a deterministic review of a config PR; exit 1 on any blocking finding. */
export function registerReview(program: Command, io: CliIO, setExit: (code: number) => void): void {
  changeOptions(
    program
      .command('review')
      .description(
        'review a config change base..head by rules: one finding per rule and place, with the fix',
      ),
  )
    .option('--pr-body <file>', 'the PR description (Markdown): its required sections are checked too')
    .option('--pr <number>', 'the PR number (new changelog entries may link to it)', prNumber)
    .option(
      '--repo <owner/name>',
      "the repository the changelog's pr-links name",
      repoName,
      DEFAULT_REPO_NAME,
    )
    .addOption(
      new Option('--format <format>', 'output format').choices(['markdown', 'json']).default('markdown'),
    )
    .action(async (flags: ReviewFlags) => {
      try {
        const [{ reviewChange }, { formatReviewMarkdown }] = await Promise.all([
          import('../review/review.ts'),
          import('../review/format.ts'),
        ]);
        const report = await reviewChange({ cwd: process.cwd(), ...flags });
        io.stdout(
          flags.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReviewMarkdown(report),
        );
        setExit(report.blocking > 0 ? 1 : 0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
