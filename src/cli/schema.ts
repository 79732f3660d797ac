import type { Command } from 'commander';
import { MatrixError } from '../matrix/errors.ts';
import { reportError } from './common.ts';
import type { CliIO } from './io.ts';

/** `infx schema NAME`: the JSON Schema of a contract, for tools outside TypeScript. */
export function registerSchema(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('schema')
    .description('print the JSON Schema of a contract (run without NAME to list them)')
    .argument('[name]', 'schema name')
    .action(async (name: string | undefined) => {
      try {
        const { SCHEMAS, jsonSchemaOf } = await import('../schema/registry.ts');
        if (name === undefined) {
          for (const [n, s] of Object.entries(SCHEMAS)) io.stdout(`${n.padEnd(14)} ${s.about}\n`);
          return;
        }
        if (!(name in SCHEMAS)) {
          throw new MatrixError(`unknown schema '${name}'; available: ${Object.keys(SCHEMAS).join(', ')}`, {
            usage: true,
          });
        }
        io.stdout(`${JSON.stringify(jsonSchemaOf(name as keyof typeof SCHEMAS), null, 2)}\n`);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
