import { Command, CommanderError } from 'commander';
import { registerBench } from './bench.ts';
import { registerCheck } from './check.ts';
import { registerCompare } from './compare.ts';
import { registerDemo } from './demo.ts';
import { registerIngest } from './ingest.ts';
import { type CliIO, processIO } from './io.ts';
import { registerMatrix } from './matrix.ts';
import { registerPlot } from './plot.ts';
import { registerRecipe } from './recipe.ts';
import { registerSchema } from './schema.ts';
import { registerServe } from './serve.ts';
import { registerSim } from './sim.ts';
import { registerSweep } from './sweep.ts';
import { registerValidate } from './validate.ts';
import { registerVerify } from './verify.ts';

export const VERSION = '0.1.0';

/** Runs one infx command line and returns its exit code; never calls process.exit itself. */
export async function run(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const program = new Command()
    .name('infx')
    .description('infx: open, continuous LLM-inference benchmarks')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    // Each command owns the options after its name (`sweep` and `sweep point` both have --out).
    .enablePositionalOptions();
  registerValidate(program, io, setExit);
  registerMatrix(program, io, setExit);
  registerSchema(program, io, setExit);
  registerBench(program, io, setExit, VERSION);
  registerSim(program, io, setExit);
  registerCheck(program, io, setExit);
  registerRecipe(program, io, setExit);
  registerSweep(program, io, setExit, VERSION);
  registerIngest(program, io, setExit);
  registerVerify(program, io, setExit);
  registerCompare(program, io, setExit);
  registerPlot(program, io, setExit);
  registerServe(program, io, setExit);
  registerDemo(program, io, setExit, VERSION);
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
  return exitCode;
}
