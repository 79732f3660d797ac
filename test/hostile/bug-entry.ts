import type { CliIO } from '../../src/cli/io.ts';
import { launch } from '../../src/cli/launch.ts';
import { run } from '../../src/cli/main.ts';

/**
 * A process entry like src/cli/bin.ts, for test/hostile/bug.test.ts: the real CLI under launch(), made to
 * meet errors nobody expects. `io`: a real command (`infx schema run-manifest`) whose stdout throws a
 * TypeError; `timer`: an exception thrown in a timer callback; `rejection`: a promise nobody awaits rejects.
 */
const [mode, ...argv] = process.argv.slice(2);
const broken: CliIO = {
  stdout: () => {
    throw new TypeError("Cannot read properties of undefined (reading 'write')");
  },
  stderr: (t) => {
    process.stderr.write(t);
  },
  readStdin: async () => '',
  isTTY: false,
};

launch(async () => {
  if (mode === 'io') return run(argv, broken);
  if (mode === 'timer')
    setTimeout(() => {
      throw new RangeError('a timer callback went wrong');
    }, 10);
  if (mode === 'rejection') void Promise.reject(new Error('nobody awaited this'));
  await new Promise((r) => setTimeout(r, 200));
  return 0;
});
