/**
 * Resolves with the first of `signals` the process receives, then stops listening for them (the servers
 * `infx sim serve` and `infx sim scripted` run until then). Its own module: `sim serve` starts on it
 * without loading anything else.
 */
export function untilSignal(
  signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'],
): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      for (const s of signals) process.off(s, handler);
      resolve(signal);
    };
    for (const s of signals) process.on(s, handler);
  });
}
