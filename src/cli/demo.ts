import type { Command } from 'commander';
import type { CliIO } from './io.ts';

/** `infx demo` (npm run demo): the one-command demo lands with the simulated engine, store and dashboard. */
export function registerDemo(program: Command, io: CliIO): void {
  program
    .command('demo')
    .description(
      'run the demo: a sweep on the simulated engine, results in SQLite, the dashboard on localhost',
    )
    .action(() => {
      io.stdout(
        [
          'infx demo: not yet available.',
          'The demo needs the simulated engine, the results store and the dashboard, which have not landed yet.',
          'What works today:',
          '  infx validate --config-files <master.yaml...> --runner-config <runners.yaml>',
          '  infx matrix full-sweep --config-files <master.yaml...> --runner-config <runners.yaml>',
          '  infx matrix full-sweep ... | infx matrix plan --labels full-sweep-fail-fast',
          '',
        ].join('\n'),
      );
    });
}
