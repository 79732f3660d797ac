import { type ChildProcess, spawn } from 'node:child_process';

/**
 * CPU-bound child processes that compete with whatever runs next (a busy machine, on purpose), for the
 * tests and benchmarks that check a result does not depend on the host's load.
 */
export interface CpuLoad {
  readonly pids: number[];
  stop(): Promise<void>;
}

export function startCpuLoad(processes = 2): CpuLoad {
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i++)
    children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return {
    pids: children.map((c) => c.pid).filter((p): p is number => p !== undefined),
    async stop() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
