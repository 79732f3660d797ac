import { INFX_VERSION } from '../schema/version.ts';
import { processIO } from './io.ts';
import { launch } from './launch.ts';
import { newProgram, parseProgram } from './program.ts';
import { registerSimServe } from './sim-serve.ts';

/**
 * `infx sim serve` on its own (dist/sim-serve.mjs, one file; bin/infx.js picks it for `infx sim serve …`):
 * every point of a simulated sweep starts a fresh engine, and this one skips loading and compiling the
 * rest of the CLI. The same program, command and flags as in main.ts, so it behaves exactly the same.
 */
launch(async (argv) => {
  let exitCode = 0;
  const program = newProgram(processIO, INFX_VERSION);
  const sim = program.command('sim').description('simulated inference servers');
  registerSimServe(sim, processIO, (code) => {
    exitCode = code;
  });
  return parseProgram(program, argv, processIO, () => exitCode);
});
