import { INFX_VERSION } from '../schema/version.ts';
import { registerBench } from './bench.ts';
import { registerCheck } from './check.ts';
import { registerCompare } from './compare.ts';
import { registerDemo } from './demo.ts';
import { registerIngest } from './ingest.ts';
import { type CliIO, processIO } from './io.ts';
import { registerMatrix } from './matrix.ts';
import { registerPlot } from './plot.ts';
import { newProgram, parseProgram } from './program.ts';
import { registerRecipe } from './recipe.ts';
import { registerSchema } from './schema.ts';
import { registerServe } from './serve.ts';
import { registerSim } from './sim.ts';
import { registerSweep } from './sweep.ts';
import { registerValidate } from './validate.ts';
import { registerVerify } from './verify.ts';

export const VERSION = INFX_VERSION;

/** Runs one infx command line and returns its exit code; never calls process.exit itself. */
export async function run(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const program = newProgram(io, VERSION);
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
  return parseProgram(program, argv, io, () => exitCode);
}
