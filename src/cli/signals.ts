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

/** How a long command (bench, a sweep, the demo) is stopped: `signal` aborts on the first interrupt. */
export interface Interrupt {
  readonly signal: AbortSignal;
  /** Stops listening (the command is done, or moves on to a phase that stops differently). */
  dispose(): void;
}

/**
 * The first of `signals` stops the command gracefully: `say` tells the user what is being wound down and
 * the AbortSignal fires, so what was measured is kept and the run's lock given back. A second one does not
 * wait: the process exits 130 at once (child processes still stop their engines on their own).
 */
export function onInterrupt(opts: { signals?: readonly NodeJS.Signals[]; say?: () => void } = {}): Interrupt {
  // SIGTERM and SIGHUP by default too: a job stopped, the terminal gone.
  const signals = opts.signals ?? ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const controller = new AbortController();
  const handler = () => {
    if (controller.signal.aborted) process.exit(130);
    opts.say?.();
    controller.abort();
  };
  for (const s of signals) process.on(s, handler);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of signals) process.off(s, handler);
    },
  };
}
