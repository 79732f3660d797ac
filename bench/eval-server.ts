/**
 * The scripted eval server of test/support/eval-server.ts as a process of its own, for bench/eval-score.ts:
 * answers every third document wrong, the rest right, and prints its URL on stdout.
 */
import { startEvalServer } from '../test/support/eval-server.ts';

const server = await startEvalServer((doc) => (doc % 3 === 2 ? 'wrong' : 'right'), false);
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
