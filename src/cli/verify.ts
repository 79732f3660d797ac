import { type Command, Option } from 'commander';
import { reportError } from './errors.ts';
import { DB_FLAG_HELP } from './ingest.ts';
import type { CliIO } from './io.ts';

/** `infx verify RUN_ID --run-dir DIR`: the store holds exactly what the run directory holds (src/store/verify.ts). */

interface VerifyFlags {
  runDir: string;
  db?: string;
  format: 'text' | 'json';
}

export function registerVerify(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('verify')
    .description(
      'check that the database holds exactly what a run directory holds: the same points, chosen attempts, ' +
        'attempts and results (exit 1 on any difference)',
    )
    .argument('<run-id>', 'the run to check')
    .requiredOption('--run-dir <dir>', 'its run directory (the folder holding manifest.json)')
    .option('--db <url>', DB_FLAG_HELP)
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (runId: string, flags: VerifyFlags) => {
      try {
        const [{ openStore, defaultDbUrl }, { verifyRun }, { formatVerifyReport }] = await Promise.all([
          import('../store/db.ts'),
          import('../store/verify.ts'),
          import('../store/format.ts'),
        ]);
        const store = await openStore(flags.db ?? defaultDbUrl(), { create: false });
        try {
          const report = await verifyRun(store, runId, flags.runDir);
          io.stdout(
            flags.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatVerifyReport(report),
          );
          setExit(report.ok ? 0 : 1);
        } finally {
          await store.close();
        }
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
