import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ProbeError, probeServer } from '../client/probe.ts';
import { type BenchRun, BenchRunSchema } from '../schema/bench-run.ts';
import { plural } from '../schema/plural.ts';
import { type PointResult, PointResultSchema } from '../schema/point-result.ts';
import type { PointAttempt, PointSpec, PointStatus, RunManifest } from '../schema/run-dir.ts';
import { RUN_DIR_SCHEMA_VERSION } from '../schema/run-dir.ts';
import { pointsDir } from '../schema/run-dir-paths.ts';
import { assertFixedSeqLen } from '../schema/workload.ts';
import { WorkloadError } from '../workload/errors.ts';
import { writeFileAtomic } from './atomic-write.ts';
import {
  BENCH_FILES,
  type BenchRunRequest,
  checkBenchRun,
  type PlannedBenchRun,
  planBenchRun,
  runDifference,
} from './bench-plan.ts';
import { BenchError, type BenchHooks, BenchInterrupted, runBench, withBenchLock } from './bench-point.ts';
import { invalidReason, judge, type PointFailure } from './point-verdict.ts';
import {
  ATTEMPT_FILES,
  attemptDir,
  manifestPath,
  nextAttempt,
  type PointState,
  pointState,
  RunDirError,
  readManifest,
  writeJson,
  writeManifest,
} from './run-dir.ts';

/**
 * `infx bench --out DIR`: one point per concurrency against a server that is already running, written as a
 * run directory (manifest.json, points/<id>/attempt-<n>/…) under the run's lock. Like a resumed sweep, a
 * point the folder already holds measured is not measured again (unless forced), an interrupted one is,
 * and a folder that holds another run is refused. Each point goes through the single-point client
 * (runBench), as `infx sweep` does; the files of a one-point run are also linked at the top of the folder,
 * where `infx bench` has always written them.
 */

export type PointOutcomeKind = 'measured' | 'already-done' | 'failed' | 'interrupted' | 'not-run';

export interface BenchPointOutcome {
  spec: PointSpec;
  kind: PointOutcomeKind;
  /** The attempt that ran (or that measured it before); null when none ran. */
  attempt: number | null;
  status: PointStatus | null;
  /** That attempt's result, when it wrote one. */
  result: PointResult | null;
  /** Files the attempt wrote (its result.json, requests.jsonl, …). */
  files: string[];
}

export interface BenchSweepReport {
  runDir: string;
  manifest: RunManifest;
  /** A new run (else an existing one, resumed). */
  created: boolean;
  points: BenchPointOutcome[];
  interrupted: boolean;
  /** Why the sweep stopped before its last point (the server went away); null otherwise. */
  stopped: string | null;
  /** Files linked at the top of a one-point run's folder. */
  topLevel: string[];
}

export interface BenchSweepHooks {
  log(line: string): void;
  /** Progress reporters for one point's prompt building and requests. */
  progressFor?(spec: PointSpec): Pick<BenchHooks, 'onPromptProgress' | 'onLoadProgress'>;
  /** After each point (measured, found done, failed). */
  onPoint?(outcome: BenchPointOutcome, index: number, total: number): void;
  signal?: AbortSignal;
}

/** Reads what the folder holds of a bench run: nothing, a bench run, or something it must not overwrite. */
async function existingRun(runDir: string): Promise<{ manifest: RunManifest; benchRun: BenchRun } | null> {
  const benchPath = join(runDir, BENCH_FILES.bench);
  if (!existsSync(manifestPath(runDir))) {
    // bench.json without a manifest: a creation stopped half way (the manifest is written last); redone.
    if (existsSync(join(runDir, ATTEMPT_FILES.result)) && !existsSync(benchPath))
      throw new BenchError(
        `${runDir} holds a result.json but no manifest.json (the output of an older infx bench?): give another --out for this run`,
      );
    if (existsSync(pointsDir(runDir)) && !existsSync(benchPath))
      throw new BenchError(
        `${runDir} has a points/ folder but no manifest.json: it is not a run this command can resume; give another --out`,
      );
    return null;
  }
  let manifest: RunManifest;
  try {
    manifest = await readManifest(runDir);
  } catch (err) {
    if (err instanceof RunDirError) throw new BenchError(`${err.message}; give another --out`);
    throw err;
  }
  if (!existsSync(benchPath))
    throw new BenchError(
      `${runDir} holds run ${manifest.runId}, written by infx sweep, not infx bench: give another --out (resume that run with infx sweep --resume)`,
    );
  let json: unknown;
  try {
    json = JSON.parse(await readFile(benchPath, 'utf8'));
  } catch (err) {
    throw new BenchError(`${benchPath} cannot be read (${(err as Error).message}); give another --out`);
  }
  const parsed = BenchRunSchema.safeParse(json);
  if (!parsed.success)
    throw new BenchError(
      `${benchPath} is not a valid bench run: ${parsed.error.issues[0]?.path.join('.') || '(root)'}: ${parsed.error.issues[0]?.message}; give another --out`,
    );
  return { manifest, benchRun: parsed.data };
}

/** Writes a new run: matrix.json and bench.json, then the manifest (what makes the folder a run). */
async function writeRun(runDir: string, plan: PlannedBenchRun): Promise<void> {
  await mkdir(runDir, { recursive: true });
  await writeFileAtomic(join(runDir, BENCH_FILES.matrix), plan.matrixText);
  await writeJson(join(runDir, BENCH_FILES.bench), plan.benchRun);
  await writeManifest(runDir, plan.manifest);
}

async function readResult(dir: string): Promise<PointResult | null> {
  try {
    const parsed = PointResultSchema.safeParse(
      JSON.parse(await readFile(join(dir, ATTEMPT_FILES.result), 'utf8')),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A damaged status.json is a point to measure again, not an error that stops the run. */
async function stateOf(runDir: string, pointId: string, log: (l: string) => void): Promise<PointState> {
  try {
    return await pointState(runDir, pointId);
  } catch (err) {
    if (!(err instanceof RunDirError)) throw err;
    log(`warning: ${err.message}: measuring the point again`);
    return { state: 'pending', attempts: 0, status: null, incomplete: true };
  }
}

/** One attempt at one point against the running server: point.json, the client's files, status.json. */
async function runAttempt(
  req: BenchRunRequest,
  spec: PointSpec,
  attempt: number,
  runDir: string,
  hooks: BenchSweepHooks,
): Promise<{ status: PointStatus; result: PointResult | null; files: string[]; fatal: string | null }> {
  const dir = attemptDir(runDir, spec.pointId, attempt);
  const started = new Date();
  const host = hostname();
  const record: PointAttempt = {
    ...spec,
    attempt,
    host,
    startedAt: started.toISOString(),
    launch: null, // infx launched nothing: the server was already running
    slurmJobId: null,
  };
  await writeJson(join(dir, ATTEMPT_FILES.point), record);
  const signal = hooks.signal ?? new AbortController().signal;
  let failure: PointFailure | null = null;
  let result: PointResult | null = null;
  let files: string[] = [];
  let fatal: string | null = null;
  let unexpected: unknown = null;
  try {
    assertFixedSeqLen(spec.bench);
    const report = await runBench(
      {
        ...req.bench,
        concurrency: spec.conc,
        numPrompts: spec.bench.numPrompts,
        warmup: spec.bench.warmup,
        tokenizer: spec.bench.tokenizer,
        gpus: spec.gpus.total,
        prefillGpus: spec.gpus.prefill,
        decodeGpus: spec.gpus.decode,
        out: dir,
      },
      { log: hooks.log, signal, ...hooks.progressFor?.(spec) },
    );
    result = report.result;
    files = report.files;
    failure = judge(result, null, signal.aborted);
  } catch (err) {
    if (err instanceof BenchInterrupted) failure = { phase: 'warmup', reason: err.message };
    else if (err instanceof BenchError || err instanceof WorkloadError) {
      // The server went away, or the tokenizer cannot be loaded: every later point would fail the same way.
      failure = { phase: 'setup', reason: err.message };
      fatal = err.message;
    } else {
      failure = { phase: 'benchmark', reason: (err as Error).message ?? String(err) };
      unexpected = err;
    }
  }
  const finished = new Date();
  const interrupted = signal.aborted;
  const status: PointStatus = {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    pointId: spec.pointId,
    attempt,
    status: failure ? 'failed' : 'ok',
    phase: failure?.phase ?? null,
    reason:
      failure && interrupted
        ? `interrupted (${failure.reason})`
        : (failure?.reason ??
          (result && !result.valid ? `the result is not valid: ${invalidReason(result)}` : null)),
    interrupted,
    valid: result ? result.valid : null,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationS: (finished.getTime() - started.getTime()) / 1000,
    host,
    engineExit: null,
    logTail: [],
  };
  await writeJson(join(dir, ATTEMPT_FILES.status), status);
  if (unexpected) throw unexpected;
  return { status, result, files, fatal };
}

/** Links (else copies) `src` over `dest` in one step: `dest` is the old file or the new one, never neither. */
async function linkOver(src: string, dest: string): Promise<void> {
  const tmp = `${dest}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    await link(src, tmp).catch(() => copyFile(src, tmp));
    await rename(tmp, dest);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The files of a one-point run's newest result, at the top of its folder (where `infx bench` wrote them). */
async function linkTopLevel(runDir: string, attemptFolder: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of [ATTEMPT_FILES.requests, ATTEMPT_FILES.inferencex, ATTEMPT_FILES.result]) {
    const src = join(attemptFolder, name);
    if (!existsSync(src)) continue;
    const dest = join(runDir, name);
    await linkOver(src, dest);
    out.push(dest);
  }
  return out;
}

/** Asks the server once before anything is written: an address that answers nothing is an error, not a run. */
async function probe(req: BenchRunRequest) {
  try {
    return await probeServer(
      new URL(req.bench.baseUrl),
      Math.min(10_000, req.bench.timeoutS * 1000),
      req.bench.apiKey,
    );
  } catch (err) {
    if (err instanceof ProbeError)
      throw new BenchError(`${err.message}\nIs the server running? Check --base-url.`);
    throw err;
  }
}

export async function runBenchSweep(req: BenchRunRequest, hooks: BenchSweepHooks): Promise<BenchSweepReport> {
  checkBenchRun(req);
  const server = await probe(req);
  const plan = planBenchRun(req, { simulator: server.simulator, gpus: server.gpus });
  for (const note of plan.notes) hooks.log(`note: ${note}`);
  return withBenchLock(req.runDir, hooks.log, () => underLock(req, plan, hooks));
}

async function underLock(
  req: BenchRunRequest,
  plan: PlannedBenchRun,
  hooks: BenchSweepHooks,
): Promise<BenchSweepReport> {
  const runDir = req.runDir;
  const existing = await existingRun(runDir);
  let manifest = plan.manifest;
  if (existing) {
    const diff = runDifference(existing, plan, req.runId);
    if (diff !== null)
      throw new BenchError(
        `${runDir} holds another run (${existing.manifest.runId}, created ${existing.manifest.createdAt}): ${diff}. ` +
          "Give another --out for a new run, or repeat that run's flags to resume it",
      );
    manifest = existing.manifest;
    hooks.log(`resuming run ${manifest.runId} in ${runDir}`);
  } else {
    await writeRun(runDir, plan);
    hooks.log(`run ${manifest.runId}: ${plural(manifest.points.length, 'point')} into ${runDir}`);
  }
  const signal = hooks.signal ?? new AbortController().signal;
  const total = manifest.points.length;
  const outcomes: BenchPointOutcome[] = [];
  let stopped: string | null = null;
  let topLevel: string[] = [];
  for (const [i, spec] of manifest.points.entries()) {
    const tag = `point ${i + 1}/${total} (concurrency ${spec.conc})`;
    if (signal.aborted || stopped !== null) {
      outcomes.push({ spec, kind: 'not-run', attempt: null, status: null, result: null, files: [] });
      continue;
    }
    const state = await stateOf(runDir, spec.pointId, hooks.log);
    let outcome: BenchPointOutcome;
    if (state.state === 'done' && !req.force) {
      const n = state.status.attempt;
      hooks.log(`${tag}: already measured (attempt ${n}); --force measures it again`);
      const result = await readResult(attemptDir(runDir, spec.pointId, n));
      outcome = { spec, kind: 'already-done', attempt: n, status: state.status, result, files: [] };
    } else {
      const n = await nextAttempt(runDir, spec.pointId);
      const again =
        state.state === 'failed'
          ? ', again after a failed attempt'
          : state.state === 'pending' && state.incomplete
            ? ', again after an interrupted attempt'
            : state.state === 'done'
              ? ', again: --force'
              : '';
      hooks.log(`${tag}: measuring (attempt ${n}${again})`);
      const ran = await runAttempt(req, spec, n, runDir, hooks);
      const kind: PointOutcomeKind = ran.status.interrupted
        ? 'interrupted'
        : ran.status.status === 'ok'
          ? 'measured'
          : 'failed';
      outcome = { spec, kind, attempt: n, status: ran.status, result: ran.result, files: ran.files };
      if (ran.fatal !== null) stopped = ran.fatal;
    }
    if (total === 1 && outcome.attempt !== null && outcome.result !== null)
      topLevel = await linkTopLevel(runDir, attemptDir(runDir, spec.pointId, outcome.attempt));
    outcomes.push(outcome);
    hooks.onPoint?.(outcome, i, total);
  }
  return {
    runDir,
    manifest,
    created: existing === null,
    points: outcomes,
    interrupted: signal.aborted,
    stopped,
    topLevel,
  };
}
