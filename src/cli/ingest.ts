import { type Command, Option } from 'commander';
import { reportError } from './errors.ts';
import type { CliIO } from './io.ts';

/** `infx ingest RUN_DIR`: a sweep's run directory into the results store, verified (src/store/ingest.ts). */

interface IngestFlags {
  db?: string;
  status?: 'official' | 'unofficial' | 'staged';
  changelog?: string;
  actor?: string;
  format: 'text' | 'json';
}

export const DB_FLAG_HELP =
  'results database: a SQLite file path or sqlite:PATH, or postgres://USER:PASSWORD@HOST:PORT/DB (default: $INFX_DB, else .infx/infx.db)';

export function registerIngest(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('ingest')
    .description(
      "store a sweep's run directory (every planned point with its outcome, every attempt, every result), " +
        'validating every file; exit 1 when points failed or are missing, or input was skipped',
    )
    .argument('<run-dir>', 'the run directory (the folder holding manifest.json), e.g. runs/<run-id>')
    .option('--db <url>', DB_FLAG_HELP)
    .addOption(
      new Option(
        '--status <status>',
        "the run's status (default: as stored, else unofficial for a run served by the simulated engine, " +
          'else official; simulated results stored as official are warned about)',
      ).choices(['official', 'unofficial', 'staged']),
    )
    .option(
      '--changelog <file>',
      "the changelog entries that selected the run (infx changelog matrix output, or its changelog_metadata): instead of the manifest's, e.g. a reused run's merge",
    )
    .option('--actor <login>', 'who ingests, for the audit trail (default: $INFX_ACTOR, else your OS user)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (runDir: string, flags: IngestFlags) => {
      try {
        const [
          { openStore, defaultDbUrl },
          { ingestRunDir },
          { formatIngestReport },
          { readChangelogMetadataFile },
        ] = await Promise.all([
          import('../store/db.ts'),
          import('../store/ingest.ts'),
          import('../store/format.ts'),
          import('../changelog/matrix-file.ts'),
        ]);
        const changelog =
          flags.changelog === undefined ? undefined : readChangelogMetadataFile(flags.changelog);
        const store = await openStore(flags.db ?? defaultDbUrl());
        try {
          const report = await ingestRunDir(store, runDir, {
            status: flags.status,
            changelog,
            actor: flags.actor,
          });
          io.stdout(
            flags.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatIngestReport(report),
          );
          // The text report carries its warnings; JSON goes to a program, so a person sees them here.
          if (flags.format === 'json') for (const w of report.warnings) io.stderr(`warning: ${w}\n`);
          setExit(report.ok ? 0 : 1);
        } finally {
          await store.close();
        }
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
