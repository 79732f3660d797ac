import { onInterrupt } from '../src/cli/signals.ts';

/**
 * A long command for test/interrupt.test.ts: waits under onInterrupt as bench and sweep do. It prints
 * `ready` once listening; on the first interrupt the helper says `stopping`, and the command winds down
 * for `windDownMs` (long enough for a second interrupt), then prints `stopped` and exits 3. `dispose`
 * mode stops listening right away, so an interrupt then is Node's default (the process dies of it).
 */
const [mode = 'default', windDownMs = '60000'] = process.argv.slice(2);
const interrupt = onInterrupt({
  ...(mode === 'sigint-only' ? { signals: ['SIGINT'] as const } : {}),
  say: () => process.stdout.write('stopping\n'),
});
if (mode === 'dispose') interrupt.dispose();
const alive = setInterval(() => {}, 60_000);
process.stdout.write('ready\n');
interrupt.signal.addEventListener('abort', () => {
  setTimeout(() => {
    process.stdout.write('stopped\n');
    interrupt.dispose();
    clearInterval(alive);
    process.exitCode = 3;
  }, Number(windDownMs));
});
