import { type Command, Option } from 'commander';
import { formatDiagnostic } from '../config/diagnostics.ts';
import { DEFAULT_RUNNER_CONFIG } from '../matrix/build.ts';
import { plural } from '../schema/plural.ts';
import { reportError } from './common.ts';
import type { CliIO } from './io.ts';

/** `infx validate`: every problem of every file in one run, then a summary of what the configs expand to. */
export function registerValidate(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('validate')
    .description('validate master configs (and runners.yaml) and summarise the points they expand to')
    .requiredOption('--config-files <files...>', 'master config YAML files, merged in the order given')
    .option('--runner-config <path>', `runner config (default: ${DEFAULT_RUNNER_CONFIG} when it exists)`)
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (flags: { configFiles: string[]; runnerConfig?: string; format: 'text' | 'json' }) => {
      try {
        const [{ validateConfigs }, { formatSummary }] = await Promise.all([
          import('../matrix/validate.ts'),
          import('../matrix/summary.ts'),
        ]);
        const report = await validateConfigs(flags.configFiles, flags.runnerConfig);
        const { diagnostics, errors, summary } = report;
        if (flags.format === 'json') {
          io.stdout(
            `${JSON.stringify({ valid: errors === 0, diagnostics, summary: summary ?? null }, null, 2)}\n`,
          );
        } else {
          for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
          if (summary) io.stdout(formatSummary(summary));
          if (!report.runnerConfig) {
            io.stderr(
              `note: no runner config given (and no ${DEFAULT_RUNNER_CONFIG} here): runner labels and agentic DRAM budgets were not checked\n`,
            );
          }
          const warnings = diagnostics.length - errors;
          io.stderr(
            errors > 0
              ? `error: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}: fix the errors above and run again\n`
              : `ok: ${plural(flags.configFiles.length, 'file')} valid${warnings > 0 ? ` (${plural(warnings, 'warning')})` : ''}\n`,
          );
        }
        setExit(errors > 0 ? 1 : 0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
