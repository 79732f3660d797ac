import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ENGINE_GROUPS_FILE, type Reaped, reapGroups } from '../../engines/groups.ts';
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

/** Appends to the attempt's infx.log what was killed after the point process had gone. */
export function noteReaped(r: Reaped, log: string): void {
  const lines: string[] = [];
  for (const g of r.killed)
    lines.push(`the engine's ${g.role} process group ${g.pgid} outlived the point process: killed`);
  if (r.elsewhere)
    lines.push(
      `the engine groups ${r.elsewhere.groups.map((g) => g.pgid).join(', ')} ran on ${r.elsewhere.host}, not this host: left to that host's job cleanup`,
    );
  if (lines.length === 0) return;
  try {
    appendFileSync(
      log,
      lines.map((l) => `[${new Date().toISOString().slice(11, 19)}] infx: ${l}\n`).join(''),
    );
  } catch {
    // The log is best effort.
  }
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
      // Once the point process is gone, no engine it started may outlive it (it may have been SIGKILLed).
      const done = exited.then(async ({ code, signal }) => {
        noteReaped(await reapGroups(join(job.dir, ENGINE_GROUPS_FILE)), log);
        return finishedStatus(job, {
          how: signal ? `killed by ${signal}` : `exit code ${code}`,
          interrupted: cancelled,
          startedAt,
          log,
        });
      });
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
