import { type Command, Option } from 'commander';
import { reportError } from './common.ts';
import type { CliIO } from './io.ts';

interface VerifyFlags {
  comment: string;
  checklist: string;
  codeowners: string;
  author: string;
  changedFiles: string[];
  teams?: string;
  sha?: string;
  format: 'markdown' | 'json';
}

/** `infx signoff verify`: a CODEOWNER's sign-off comment checked by rules (exit 1 when rejected). */
export function registerSignoff(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const signoff = program.command('signoff').description("a CODEOWNER's sign-off on a PR");
  signoff
    .command('verify')
    .description(
      'verify a sign-off comment: phrase, latest checklist, cited runs, signature, ownership of the changed files',
    )
    .requiredOption('--comment <file>', 'the sign-off comment (Markdown)')
    .requiredOption('--checklist <file>', 'the review checklist (docs/PR_REVIEW_CHECKLIST.md)')
    .requiredOption('--codeowners <file>', 'the CODEOWNERS file (.github/CODEOWNERS)')
    .requiredOption('--author <login>', "the comment's author")
    .requiredOption('--changed-files <paths...>', "the PR's changed files")
    .option('--teams <file>', 'JSON: {"@org/team": ["login", …]}, the members of the teams CODEOWNERS names')
    .option('--sha <sha>', 'the head commit the verdict is pinned to (its hidden marker)')
    .addOption(
      new Option('--format <format>', 'output format').choices(['markdown', 'json']).default('markdown'),
    )
    .action(async (flags: VerifyFlags) => {
      try {
        const { verifySignoffFiles } = await import('../review/signoff-files.ts');
        const { report, text } = verifySignoffFiles(flags);
        io.stdout(flags.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : text);
        setExit(report.pass ? 0 : 1);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
