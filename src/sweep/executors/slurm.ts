import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ENGINE_GROUPS_FILE, reapGroups } from '../../engines/groups.ts';
import { isMultiNode } from '../../schema/matrix-row.ts';
import { ATTEMPT_FILES, type PointSpec, type PointStatus } from '../../schema/run-dir.ts';
import { writeJson } from '../run-dir.ts';
import { finishedStatus } from './finish.ts';
import { noteReaped, POINT_LOG, pointCommand } from './local.ts';
import {
  cancelJobs,
  type GpuRequest,
  isTerminal,
  type JobComponent,
  type JobState,
  jobScript,
  jobStates,
  submitJob,
} from './slurm-cli.ts';
import type { AttemptJob, PointExecutor, RunningAttempt } from './types.ts';

/**
 * Each attempt is a Slurm batch job running `infx sweep point` into the shared run directory, sized from
 * the point: whole nodes for its GPUs, or a heterogeneous job with a prefill and a decode component for a
 * disaggregated point. Jobs are tracked with squeue/scontrol (one call for all of them per poll) and
 * cancelled with scancel, which lets the point stop its engine before Slurm kills what is left.
 */

export interface SlurmExecutorOptions {
  runId: string;
  runDir: string;
  gpuRequest: GpuRequest;
  gpusPerNode: number;
  args: readonly string[];
  timeLimitMin: number;
  pollMs?: number;
}

/** The job id of an attempt, written as soon as it is submitted, so a later sweep can find the job. */
export const JOB_FILE = ATTEMPT_FILES.slurmJob;

type Size = { nodes: number; gpusPerNode: number } | { components: JobComponent[] };

const nodesFor = (gpus: number, perNode: number) => Math.max(1, Math.ceil(gpus / perNode));

/** Nodes and GPUs a point's job asks for. The simulated engine needs one node and no GPU. */
export function jobSize(spec: PointSpec, gpusPerNode: number): Size {
  if (spec.engine.kind === 'sim') return { nodes: 1, gpusPerNode: 0 };
  const row = spec.row;
  if (isMultiNode(row) && row.disagg) {
    const pool = (gpus: number, workers: number): JobComponent => {
      const perWorker = gpus / Math.max(1, workers);
      return {
        nodes: Math.max(1, workers) * nodesFor(perWorker, gpusPerNode),
        gpusPerNode: Math.min(gpusPerNode, perWorker),
      };
    };
    return {
      components: [
        pool(spec.gpus.prefill ?? 0, row.prefill['num-worker']),
        pool(spec.gpus.decode ?? 0, row.decode['num-worker']),
      ].filter((c) => c.nodes > 0),
    };
  }
  return {
    nodes: nodesFor(spec.gpus.total, gpusPerNode),
    gpusPerNode: Math.min(gpusPerNode, spec.gpus.total),
  };
}

export function pointJobScript(job: AttemptJob, o: SlurmExecutorOptions): string {
  const size = jobSize(job.spec, o.gpusPerNode);
  return jobScript({
    name: `infx-${o.runId}-${job.spec.index + 1}`.slice(0, 120),
    output: join(job.dir, POINT_LOG),
    workDir: process.cwd(),
    command: pointCommand(job),
    timeLimitMinutes: o.timeLimitMin,
    gpuRequest: o.gpuRequest,
    extraArgs: o.args,
    ...('components' in size
      ? size.components.length > 1
        ? { components: size.components }
        : { nodes: size.components[0]?.nodes ?? 1, gpusPerNode: size.components[0]?.gpusPerNode ?? 0 }
      : { nodes: size.nodes, ...(size.gpusPerNode > 0 ? { gpusPerNode: size.gpusPerNode } : {}) }),
  });
}

const describeState = (id: string, s: JobState) =>
  `Slurm job ${id} ${s.state}${s.exitCode !== null ? ` with exit code ${s.exitCode}` : ''}${s.reason && s.reason !== 'None' ? ` (${s.reason})` : ''}`;

export function slurmExecutor(o: SlurmExecutorOptions): PointExecutor {
  const active = new Map<string, (s: JobState) => void>();
  let timer: NodeJS.Timeout | null = null;
  let polling = false;

  const poll = async () => {
    if (polling || active.size === 0) return;
    polling = true;
    try {
      const states = await jobStates([...active.keys()]);
      for (const [id, s] of states) {
        if (!isTerminal(s.state)) continue;
        active.get(id)?.(s);
        active.delete(id);
      }
    } catch {
      // A slow or restarting slurmctld: ask again at the next tick.
    } finally {
      polling = false;
    }
  };
  const ensureTimer = () => {
    timer ??= setInterval(() => void poll(), o.pollMs ?? 1000);
  };

  const track = (job: AttemptJob, id: string, startedAt: Date): RunningAttempt => {
    let cancelled = false;
    const ended = new Promise<JobState>((resolve) => active.set(id, resolve));
    ensureTimer();
    const done: Promise<PointStatus> = ended.then(async (s) => {
      // The job has ended: engines it left (its point process killed outright) are ended here when the job
      // ran on this host; elsewhere, Slurm's process tracking of the job is what ends them.
      noteReaped(await reapGroups(join(job.dir, ENGINE_GROUPS_FILE)), join(job.dir, POINT_LOG));
      return finishedStatus(job, {
        how: describeState(id, s),
        interrupted:
          cancelled || s.state === 'CANCELLED' || s.state === 'PREEMPTED' || s.state === 'NODE_FAIL',
        startedAt,
        log: join(job.dir, POINT_LOG),
      });
    });
    return {
      id: `job ${id}`,
      done,
      async cancel() {
        cancelled = true;
        await cancelJobs([id]);
        await ended;
      },
    };
  };

  return {
    name: 'slurm',
    async start(job: AttemptJob): Promise<RunningAttempt> {
      await mkdir(job.dir, { recursive: true });
      const startedAt = new Date();
      const id = await submitJob(pointJobScript(job, o));
      await writeJson(join(job.dir, JOB_FILE), { jobId: id, submittedAt: startedAt.toISOString() });
      return track(job, id, startedAt);
    },
    async adopt(job: AttemptJob): Promise<RunningAttempt | null> {
      let submitted: { jobId: string; submittedAt: string };
      try {
        submitted = JSON.parse(await readFile(join(job.dir, JOB_FILE), 'utf8'));
      } catch {
        return null;
      }
      const state = (await jobStates([submitted.jobId])).get(submitted.jobId);
      if (!state || isTerminal(state.state) || state.state === 'UNKNOWN') return null;
      return track(job, submitted.jobId, new Date(submitted.submittedAt));
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      const left = [...active.keys()];
      if (left.length) await cancelJobs(left);
    },
  };
}
