import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { POINT_GPUS_ENV } from '../../engines/devices.ts';
import { ENGINE_GROUPS_FILE, type Reaped, reapGroups } from '../../engines/groups.ts';
import { infxCommand } from '../../engines/sim.ts';
import { ATTEMPT_FILES } from '../../schema/run-dir.ts';
import { finishedStatus } from './finish.ts';
import { GpuSlots, hostGpus } from './gpu-slots.ts';
import type { AttemptJob, PointExecutor, RunningAttempt } from './types.ts';

/**
 * Runs each attempt as a child process on this machine: `infx sweep point`, output to the attempt's
 * infx.log. The child watches its stdin, which this process holds open, so it tears its engine down and
 * exits if the sweep dies, even by SIGKILL: no engine is ever left behind. A real-engine point first takes
 * its GPUs from the host's slots (gpu-slots.ts) and is told which in INFX_POINT_GPUS.
 */

export const POINT_LOG = ATTEMPT_FILES.pointLog;

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

export interface LocalExecutorOptions {
  cancelGraceMs?: number;
  /** GPU ids real-engine points are pinned to (default: hostGpus(): INFX_GPUS, the visibility list, the drivers'). */
  gpus?: readonly string[];
}

/** GPUs a point holds while it runs: real engines on this host only (sim needs none; srun asks Slurm). */
function gpusHeld(spec: AttemptJob['spec'], slots: GpuSlots): number {
  if (spec.engine.kind !== 'recipe' || spec.engine.container === 'srun' || slots.size === 0) return 0;
  return Math.min(spec.gpus.total, slots.size);
}

function note(log: string, line: string): void {
  try {
    appendFileSync(log, `[${new Date().toISOString().slice(11, 19)}] infx: ${line}\n`);
  } catch {
    // The log is best effort.
  }
}

export function localExecutor(opts: LocalExecutorOptions = {}): PointExecutor {
  const grace = opts.cancelGraceMs ?? 30_000;
  const slots = new GpuSlots(opts.gpus ?? hostGpus().ids);
  return {
    name: 'local',
    async start(job: AttemptJob): Promise<RunningAttempt> {
      await mkdir(job.dir, { recursive: true });
      const log = join(job.dir, POINT_LOG);
      const startedAt = new Date();
      const need = gpusHeld(job.spec, slots);
      // A point wider than the host takes every GPU (nothing runs beside it) and is not pinned: its engine
      // sees them all, as it would without slots.
      const pinned = need > 0 && job.spec.gpus.total <= slots.size;
      let child: ChildProcess | null = null;
      let cancelled = false;
      let resolveExit!: (e: { code: number | null; signal: string | null; how?: string }) => void;
      const exited = new Promise<{ code: number | null; signal: string | null; how?: string }>((r) => {
        resolveExit = r;
      });

      const spawnPoint = (gpus: string[]) => {
        if (pinned) note(log, `GPUs ${gpus.join(',')} (of ${slots.ids.join(',')}) for this point`);
        else if (need > 0)
          note(
            log,
            `the point needs ${job.spec.gpus.total} GPUs, this host offers ${slots.size}: not pinned`,
          );
        const fd = openSync(log, 'a');
        const [cmd, ...args] = pointCommand(job, ['--watch-stdin']) as [string, ...string[]];
        const env = pinned ? { ...process.env, [POINT_GPUS_ENV]: gpus.join(',') } : process.env;
        const c = spawn(cmd, args, { stdio: ['pipe', fd, fd], env });
        closeSync(fd);
        child = c;
        c.once('exit', (code, signal) => resolveExit({ code, signal }));
        c.once('error', () => resolveExit({ code: 127, signal: null }));
        void exited.then(() => slots.release(gpus));
      };

      const now = need > 0 ? slots.tryAcquire(need) : [];
      let waiting: ReturnType<GpuSlots['acquire']> | null = null;
      if (now) spawnPoint(now);
      else {
        waiting = slots.acquire(need);
        note(log, `waiting for ${need} free GPUs`);
        void waiting.ids.then((ids) => {
          waiting = null;
          if (cancelled) slots.release(ids);
          else spawnPoint(ids);
        });
      }

      // Once the point process is gone, no engine it started may outlive it (it may have been SIGKILLed).
      const done = exited.then(async ({ code, signal, how }) => {
        noteReaped(await reapGroups(join(job.dir, ENGINE_GROUPS_FILE)), log);
        return finishedStatus(job, {
          how: how ?? (signal ? `killed by ${signal}` : `exit code ${code}`),
          interrupted: cancelled,
          startedAt,
          log,
        });
      });
      return {
        get id() {
          return child ? `pid ${child.pid ?? '?'}` : `waiting for ${need} GPUs`;
        },
        done,
        async cancel() {
          cancelled = true;
          if (!child) {
            waiting?.cancel();
            resolveExit({ code: null, signal: null, how: 'cancelled while waiting for GPUs' });
            await done;
            return;
          }
          const running = child as ChildProcess;
          running.kill('SIGTERM');
          const timer = setTimeout(() => running.kill('SIGKILL'), grace);
          await exited;
          clearTimeout(timer);
        },
      };
    },
    async close() {},
  };
}
