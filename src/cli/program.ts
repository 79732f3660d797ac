import { Command, CommanderError } from 'commander';
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
  );
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
    await program.parseAsync([...argv], { from: 'user' });
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
    throw err;
  }
  return exitCode();
}
