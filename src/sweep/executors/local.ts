import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { infxCommand } from '../../engines/sim.ts';
import { finishedStatus } from './finish.ts';
import type { AttemptJob, PointExecutor, RunningAttempt } from './types.ts';

/**
 * Runs each attempt as a child process on this machine: `infx sweep point`, output to the attempt's
 * infx.log. The child watches its stdin, which this process holds open, so it tears its engine down and
 * exits if the sweep dies, even by SIGKILL: no engine is ever left behind.
 */

export const POINT_LOG = 'infx.log';

/** `infx sweep point` arguments for one attempt (the Slurm executor runs the same line). */
export function pointCommand(job: AttemptJob, extra: readonly string[] = []): string[] {
  return [
    ...infxCommand(),
    'sweep',
    'point',
    '--point',
    job.specFile,
    '--out',
    job.dir,
    '--attempt',
    String(job.attempt),
    ...extra,
  ];
}

export function localExecutor(opts: { cancelGraceMs?: number } = {}): PointExecutor {
  const grace = opts.cancelGraceMs ?? 30_000;
  return {
    name: 'local',
    async start(job: AttemptJob): Promise<RunningAttempt> {
      await mkdir(job.dir, { recursive: true });
      const log = join(job.dir, POINT_LOG);
      const fd = openSync(log, 'a');
      const [cmd, ...args] = pointCommand(job, ['--watch-stdin']) as [string, ...string[]];
      const startedAt = new Date();
      const child = spawn(cmd, args, { stdio: ['pipe', fd, fd], env: process.env });
      closeSync(fd);
      let cancelled = false;
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.once('error', () => resolve({ code: 127, signal: null }));
      });
      const done = exited.then(({ code, signal }) =>
        finishedStatus(job, {
          how: signal ? `killed by ${signal}` : `exit code ${code}`,
          interrupted: cancelled,
          startedAt,
          log,
        }),
      );
      return {
        id: `pid ${child.pid ?? '?'}`,
        done,
        async cancel() {
          cancelled = true;
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), grace);
          await exited;
          clearTimeout(timer);
        },
      };
    },
    async close() {},
  };
}
