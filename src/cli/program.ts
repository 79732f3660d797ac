import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { USER_CATALOG_DEFAULT, USER_CATALOG_ENV } from '../config/user-catalog-path.ts';
import { CatalogLoadError, reportError } from './errors.ts';
import type { CliIO } from './io.ts';

/**
 * The `infx` program every command hangs off, and how a command line is parsed with it: shared by the full
 * CLI (main.ts) and the slim entry that starts `infx sim serve` without loading the other commands
 * (sim-serve-bin.ts), so both behave the same.
 */

export function newProgram(io: CliIO, version: string): Command {
  return (
    new Command()
      .name('infx')
      .description('infx: open, continuous LLM-inference benchmarks')
      .version(version)
      .exitOverride()
      .showHelpAfterError('(add --help for usage)')
      .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
      // Each command owns the options after its name (`sweep` and `sweep point` both have --out).
      .enablePositionalOptions()
      .option(
        '--catalog <file>',
        `a user catalog of accelerators and models to add (\`infx schema catalog\`; default: $${USER_CATALOG_ENV}, ` +
          `else ${USER_CATALOG_DEFAULT} when present)`,
      )
      .hook('preAction', async (program) => {
        const file = program.opts<{ catalog?: string }>().catalog;
        // The catalog reader (YAML, schemas) is loaded only when there may be a catalog to read.
        if (
          file === undefined &&
          process.env[USER_CATALOG_ENV] === undefined &&
          !existsSync(USER_CATALOG_DEFAULT)
        )
          return;
        const [{ useUserCatalog }, { CatalogError }] = await Promise.all([
          import('../config/user-catalog.ts'),
          import('../catalog/index.ts'),
        ]);
        try {
          useUserCatalog(file);
        } catch (err) {
          if (err instanceof CatalogError) throw new CatalogLoadError(err.message);
          throw err;
        }
      })
  );
}

/**
 * `--catalog FILE` is the program's option, but people write it after the command too (`infx check …
 * --catalog f.yaml`): no command has an option of that name, so it is moved to the front, up to a `--`.
 */
export function hoistCatalogFlag(argv: readonly string[]): string[] {
  const front: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--catalog' && i + 1 < argv.length) {
      front.push(a, argv[i + 1] as string);
      i++;
    } else if (a.startsWith('--catalog=')) front.push(a);
    else rest.push(a);
  }
  return [...front, ...rest];
}

/** Parses argv with the registered commands; returns the exit code (`exitCode()` once a command ran). */
export async function parseProgram(
  program: Command,
  argv: readonly string[],
  io: CliIO,
  exitCode: () => number,
): Promise<number> {
  program.commands.forEach(function configure(cmd: Command) {
    cmd
      .exitOverride()
      .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
      .showHelpAfterError('(add --help for usage)');
    cmd.commands.forEach(configure);
  });
  try {
    await program.parseAsync(hoistCatalogFlag(argv), { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      )
        return 0;
      return 2;
    }
    // Whatever a command did not report itself; a bug is thrown on to the process entry.
    return reportError(err, io);
  }
  return exitCode();
}
