import { resolve } from 'node:path';
import { POINT_FILES, type PointSpec, type PointStatus, type RunManifest } from '../schema/run-dir.ts';
import { assertRealInside } from '../schema/safe-path.ts';
import type { AttemptJob, PointExecutor, RunningAttempt } from './executors/types.ts';
import { attemptDir, nextAttempt, pointSpecPath, pointStates, writeJson } from './run-dir.ts';

/**
 * Runs the points of a run directory through an executor: the canary first when asked, then the rest
 * `parallel` at a time, failed attempts retried, fail-fast per bucket, Ctrl-C honoured. Which points run
 * comes from the files: a point with an ok attempt never runs again, so a resumed sweep picks up exactly
 * what is missing.
 */

export type Selection = 'missing' | 'failed' | 'failed-and-missing';

export interface SweepProgress {
  total: number;
  done: number;
  failed: number;
  running: string[];
  pending: number;
  etaS: number | null;
}

export interface SweepHooks {
  log(line: string): void;
  onProgress?(p: SweepProgress): void;
  signal?: AbortSignal;
}

export interface SweepOutcome {
  /** Ok and valid. */
  ok: string[];
  /** Ran to the end but the result is not valid (the client or the engine set the pace): not ok. */
  invalid: { pointId: string; reason: string }[];
  failed: { pointId: string; status: PointStatus }[];
  /** Not run: interrupted, stopped by fail-fast or by a failed canary. */
  notRun: { pointId: string; reason: string }[];
  /** Points that already had an ok attempt before this sweep started. */
  alreadyDone: number;
  interrupted: boolean;
  canaryFailed: boolean;
}

export const SPEC_FILE = POINT_FILES.spec;

function describe(s: PointStatus): string {
  return s.status === 'ok'
    ? `ok${s.valid === false ? ' (not valid)' : ''}${s.eval?.pass === false ? `, but its eval ${s.eval.task}${s.eval.simulated ? ' (simulated)' : ''} is below its threshold ${s.eval.threshold}` : ''}`
    : `failed in ${s.phase}${s.interrupted ? ' (interrupted)' : ''}: ${s.reason}`;
}

export async function runSweep(
  dir: string,
  manifest: RunManifest,
  executor: PointExecutor,
  select: Selection,
  hooks: SweepHooks,
): Promise<SweepOutcome> {
  // Jobs run elsewhere (another cwd, another node): they get absolute paths.
  const runDir = resolve(dir);
  const { retries, failFast, parallel } = manifest.options;
  const states = await pointStates(runDir, manifest.points);
  const outcome: SweepOutcome = {
    ok: [],
    invalid: [],
    failed: [],
    notRun: [],
    alreadyDone: 0,
    interrupted: false,
    canaryFailed: false,
  };
  const queue: PointSpec[] = [];
  for (const p of manifest.points) {
    const s = states.get(p.pointId);
    if (s?.state === 'done') outcome.alreadyDone++;
    const wanted =
      (s?.state === 'pending' && select !== 'failed') || (s?.state === 'failed' && select !== 'missing');
    if (wanted) queue.push(p);
  }
  const total = manifest.points.length;
  const priorFailed = [...states.values()].filter((s) => s.state === 'failed').length;
  const running = new Map<string, { spec: PointSpec; run: RunningAttempt }>();
  const triesThisSweep = new Map<string, number>();
  const durations: number[] = [];
  const stoppedBuckets = new Map<string, string>();
  let stopAll: string | null = null;

  const progress = () => {
    const mean = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : null;
    const left = queue.length + running.size;
    hooks.onProgress?.({
      total,
      done: outcome.alreadyDone + outcome.ok.length,
      failed: outcome.failed.length + (select === 'missing' ? priorFailed : 0),
      running: [...running.keys()],
      pending: queue.length,
      etaS: mean === null ? null : (mean * left) / Math.max(1, Math.min(parallel, left)),
    });
  };

  // Every point's folder is checked (links resolved) to lie inside the run directory before it is written.
  for (const spec of queue) {
    const file = pointSpecPath(runDir, spec.pointId);
    assertRealInside(runDir, file);
    await writeJson(file, spec);
  }

  const onAbort = () => {
    stopAll ??= 'interrupted';
    outcome.interrupted = true;
    for (const { run } of running.values()) void run.cancel();
  };
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  if (hooks.signal?.aborted) onAbort();

  const jobOf = (spec: PointSpec, attempt: number): AttemptJob => {
    const dir = attemptDir(runDir, spec.pointId, attempt);
    assertRealInside(runDir, dir);
    return { spec, attempt, dir, specFile: pointSpecPath(runDir, spec.pointId) };
  };

  const launch = async (spec: PointSpec): Promise<void> => {
    const attempt = await nextAttempt(runDir, spec.pointId);
    const run = await executor.start(jobOf(spec, attempt));
    await follow(spec, attempt, run, 'started');
  };

  const follow = async (spec: PointSpec, attempt: number, run: RunningAttempt, how: string) => {
    triesThisSweep.set(spec.pointId, (triesThisSweep.get(spec.pointId) ?? 0) + 1);
    running.set(spec.pointId, { spec, run });
    hooks.log(
      `${spec.canary ? 'canary ' : ''}${spec.pointId}: attempt ${attempt} ${how} (${executor.name} ${run.id})`,
    );
    progress();
    const status = await run.done;
    running.delete(spec.pointId);
    durations.push(status.durationS);
    hooks.log(`${spec.pointId}: attempt ${attempt} ${describe(status)}`);
    settle(spec, status);
    progress();
  };

  const settle = (spec: PointSpec, status: PointStatus) => {
    if (status.status === 'ok' && status.valid === false) {
      outcome.invalid.push({ pointId: spec.pointId, reason: status.reason ?? 'the result is not valid' });
      return;
    }
    if (status.status === 'ok') {
      outcome.ok.push(spec.pointId);
      return;
    }
    if (status.interrupted) {
      outcome.notRun.push({
        pointId: spec.pointId,
        reason: stopAll ?? stoppedBuckets.get(spec.bucket) ?? 'interrupted',
      });
      return;
    }
    if ((triesThisSweep.get(spec.pointId) ?? 0) <= retries && !stopAll) {
      hooks.log(
        `${spec.pointId}: retrying (${triesThisSweep.get(spec.pointId)} of ${retries + 1} tries used)`,
      );
      queue.unshift(spec);
      return;
    }
    outcome.failed.push({ pointId: spec.pointId, status });
    if (spec.canary) {
      outcome.canaryFailed = true;
      stopAll = `the canary ${spec.pointId} failed`;
      return;
    }
    if (failFast && status.phase !== 'setup' && !stoppedBuckets.has(spec.bucket)) {
      const why = `fail-fast: ${spec.pointId} failed in ${status.phase}`;
      stoppedBuckets.set(spec.bucket, why);
      hooks.log(`${why}; stopping the other points of ${spec.bucket}`);
      for (const r of running.values()) if (r.spec.bucket === spec.bucket) void r.run.cancel();
    }
  };

  const next = (): PointSpec | undefined => {
    while (queue.length > 0) {
      const spec = queue.shift() as PointSpec;
      const stop = stopAll ?? stoppedBuckets.get(spec.bucket);
      if (!stop) return spec;
      outcome.notRun.push({ pointId: spec.pointId, reason: stop });
    }
    return undefined;
  };

  // Attempts an earlier sweep left running (Slurm jobs outlive a killed sweep) are waited for, not redone.
  const adopted: Promise<void>[] = [];
  for (const spec of [...queue]) {
    const s = states.get(spec.pointId);
    if (!executor.adopt || s?.state !== 'pending' || !s.incomplete || s.status !== null) continue;
    const attempt = (await nextAttempt(runDir, spec.pointId)) - 1;
    const run = await executor.adopt(jobOf(spec, attempt));
    if (!run) continue;
    queue.splice(queue.indexOf(spec), 1);
    adopted.push(follow(spec, attempt, run, 'still running from an earlier sweep: waiting for it'));
  }

  progress();
  try {
    // The canary runs alone: nothing else starts until it has passed.
    while (queue[0]?.canary) {
      const canary = next();
      if (!canary) break;
      await launch(canary);
    }
    const lanes = Array.from({ length: parallel }, async () => {
      for (let spec = next(); spec; spec = next()) await launch(spec);
    });
    await Promise.all([...lanes, ...adopted]);
  } finally {
    hooks.signal?.removeEventListener('abort', onAbort);
    await executor.close();
  }
  for (const spec of queue) outcome.notRun.push({ pointId: spec.pointId, reason: stopAll ?? 'not run' });
  return outcome;
}
