import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { ENGINE_GROUPS_FILE, GroupRecord } from '../engines/groups.ts';
import { engineCause } from '../engines/log-tail.ts';
import { allocatePort, releasePort } from '../engines/ports.ts';
import {
  EngineStartError,
  logTail,
  type RunningEngine,
  startEngine,
  waitUntilReady,
} from '../engines/process.ts';
import { renderSim } from '../engines/sim.ts';
import type { EngineLaunch } from '../schema/engine-launch.ts';
import type { PointEvalOutcome } from '../schema/point-eval.ts';
import type { PointAttempt, PointPhase, PointSpec, PointStatus } from '../schema/run-dir.ts';
import { RUN_DIR_SCHEMA_VERSION } from '../schema/run-dir.ts';
import { BenchError, BenchInterrupted } from './bench-point.ts';
import { benchPoint } from './point-bench.ts';
import { evalVerdictLine, runPointEval } from './point-eval.ts';
import { invalidReason, judge, type PointFailure } from './point-verdict.ts';
import { ATTEMPT_FILES, writeJson } from './run-dir.ts';
import { resolveSimScale } from './sim-scale.ts';

/**
 * One attempt at one point, start to finish: render the engine, start it fresh, wait until it serves, run
 * the client (warmup, then the measured requests), stop the engine, and write point.json and status.json
 * beside the client's result.json and requests.jsonl. Never throws for a failed point: the status says
 * what failed, in which phase, and why.
 */

export interface AttemptOptions {
  attempt: number;
  outDir: string;
  version: string;
  signal?: AbortSignal;
  log?: (line: string) => void;
  slurmJobId?: string | null;
  /** How long a stopping engine gets before SIGKILL (default 10 s; 3 s at most once the signal aborted). */
  stopGraceMs?: number;
}

/**
 * A stopped point (Ctrl-C, scancel, the local executor's cancel) gives its engine this long before SIGKILL,
 * well inside the time its own killer waits for it (Slurm's KillWait is often 30 s, 5 s on the dev cluster).
 */
export const INTERRUPTED_STOP_GRACE_MS = 3000;

class PhaseFailure extends Error {
  constructor(
    readonly phase: PointPhase,
    message: string,
    readonly engineGone = false,
  ) {
    super(message);
  }
}

async function render(spec: PointSpec, o: AttemptOptions, pointFile: string): Promise<EngineLaunch> {
  if (spec.engine.kind === 'sim') {
    const scale = resolveSimScale(spec);
    o.log?.(`simulated engine: ${scale.note}`);
    if (scale.warning) o.log?.(`warning: ${scale.warning}`);
    return renderSim(spec.row, {
      pointFile,
      port: await allocatePort(),
      timeScale: scale.scale,
      conc: spec.conc,
      seed: spec.bench.seed,
      attempt: o.attempt,
      faults: spec.engine.faults,
      evalAnswers:
        spec.eval && spec.eval.simAccuracy !== null
          ? { accuracy: spec.eval.simAccuracy, dataset: resolve(spec.eval.dataset) }
          : null,
    });
  }
  const { renderRecipe } = await import('../engines/recipe.ts');
  return renderRecipe(spec.row, {
    conc: spec.conc,
    host: '127.0.0.1',
    allocatePort: () => allocatePort(),
    workDir: o.outDir,
    container: spec.engine.container,
    acceptance: spec.engine.acceptance,
    // An eval needs the reference's eval context even where the row's own workload needs less.
    ...(spec.eval ? { maxModelLen: evalModelLen(spec.row, spec.eval.contextLength) } : {}),
  });
}

/** The engine context a point with an eval runs at: the row's max-model-len, raised to the eval's. */
export function evalModelLen(row: PointSpec['row'], evalContext: number): number {
  const own = 'max-model-len' in row ? row['max-model-len'] : 0;
  return Math.max(own, evalContext);
}

/** The point's eval on its running engine; an error in it (a dataset, the engine) fails the point there. */
async function evalOf(
  spec: PointSpec,
  launch: EngineLaunch,
  outDir: string,
  log: (line: string) => void,
  signal: AbortSignal,
): Promise<PointEvalOutcome> {
  try {
    return await runPointEval(spec.eval as NonNullable<PointSpec['eval']>, launch, {
      outDir,
      modelPrefix: spec.row['model-prefix'] ?? null,
      log,
      signal,
    });
  } catch (err) {
    throw new PhaseFailure('benchmark', `eval: ${(err as Error).message}`);
  }
}

/** An eval-only point: the eval on the ready engine, no benchmark; the engine dying during it fails it. */
async function evalOnlyPoint(
  spec: PointSpec,
  launch: EngineLaunch,
  engine: RunningEngine,
  outDir: string,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<{ eval: PointEvalOutcome; failure: PointFailure | null; note: string | null }> {
  const run = new AbortController();
  const abort = () => run.abort();
  signal?.addEventListener('abort', abort, { once: true });
  let engineDied: string | null = null;
  void engine.exited.then((e) => {
    engineDied = `the engine's ${e.role} process died during the eval (${e.signal ? `signal ${e.signal}` : `exit code ${e.code}`})`;
    run.abort();
  });
  try {
    const outcome = await evalOf(spec, launch, outDir, log, run.signal);
    const line = evalVerdictLine(outcome);
    log(line);
    const failure: PointFailure | null = engineDied
      ? { phase: 'benchmark', reason: engineDied, engineGone: true }
      : signal?.aborted
        ? { phase: 'benchmark', reason: 'stopped during the eval' }
        : null;
    return { eval: outcome, failure, note: outcome.pass ? null : line };
  } finally {
    signal?.removeEventListener('abort', abort);
  }
}

/** Lines of server.log read for the cause: enough to see past an engine's INFO lines on its way out. */
const CAUSE_LINES = 200;
/** Lines of server.log kept in status.json. */
const TAIL_LINES = 20;

export async function runPointAttempt(spec: PointSpec, opts: AttemptOptions): Promise<PointStatus> {
  // Engines run inside the attempt directory: every path handed to them must be absolute.
  const o = { ...opts, outDir: resolve(opts.outDir) };
  const log = o.log ?? (() => {});
  const started = new Date();
  const host = hostname();
  await mkdir(o.outDir, { recursive: true });
  const pointFile = join(o.outDir, ATTEMPT_FILES.point);
  const logPath = join(o.outDir, ATTEMPT_FILES.log);
  let launch: EngineLaunch | null = null;
  let engine: RunningEngine | null = null;
  let groups: GroupRecord | null = null;
  let failure: PointFailure | null = null;
  let valid: boolean | null = null;
  let note: string | null = null;
  let phase: PointPhase = 'setup';
  let evalOutcome: PointEvalOutcome | null = null;

  const attemptRecord = (l: EngineLaunch | null): PointAttempt => ({
    ...spec,
    attempt: o.attempt,
    host,
    startedAt: started.toISOString(),
    launch: l,
    slurmJobId: o.slurmJobId ?? null,
  });

  try {
    try {
      launch = await render(spec, o, pointFile);
    } finally {
      await writeJson(pointFile, attemptRecord(launch));
    }
    log(`starting the ${launch.kind === 'sim' ? 'simulated' : launch.framework} engine`);
    // Each engine's process group is recorded as soon as it exists: if this process is killed outright,
    // the executor that ran it ends the groups (src/engines/groups.ts).
    groups = new GroupRecord(join(o.outDir, ENGINE_GROUPS_FILE));
    const record = groups;
    engine = await startEngine(launch, {
      cwd: o.outDir,
      logPath,
      onSpawn: (role, pgid) => record.add(role, pgid),
    });
    await waitUntilReady(launch, engine, {
      timeoutMs: spec.engine.readyTimeoutS * 1000,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    if (spec.eval?.evalOnly) {
      log(`engine ready at ${launch.baseUrl}; an eval-only point: the eval instead of the benchmark`);
      phase = 'benchmark';
      const outcome = await evalOnlyPoint(spec, launch, engine, o.outDir, log, o.signal);
      evalOutcome = outcome.eval;
      failure = outcome.failure;
      note = outcome.note;
    } else {
      log(`engine ready at ${launch.baseUrl}; benchmarking at concurrency ${spec.conc}`);
      phase = 'warmup';
      const bench = new AbortController();
      const abort = () => bench.abort();
      o.signal?.addEventListener('abort', abort, { once: true });
      let engineDied: string | null = null;
      void engine.exited.then((e) => {
        engineDied = `the engine's ${e.role} process died during the benchmark (${e.signal ? `signal ${e.signal}` : `exit code ${e.code}`})`;
        bench.abort();
      });
      try {
        const report = await benchPoint(spec, launch, {
          outDir: o.outDir,
          version: o.version,
          log,
          signal: bench.signal,
        });
        phase = 'benchmark';
        valid = report.result.valid;
        failure = judge(report.result, engineDied);
        if (!failure && o.signal?.aborted) failure = { phase: 'benchmark', reason: 'stopped before the end' };
        if (!failure && !report.result.valid)
          note = `the result is not valid: ${invalidReason(report.result)}`;
        if (!failure && spec.eval) {
          evalOutcome = await evalOf(spec, launch, o.outDir, log, bench.signal);
          const line = evalVerdictLine(evalOutcome);
          log(line);
          if (!evalOutcome.pass) note = note ? `${note}; ${line}` : line;
          if (engineDied) failure = { phase: 'benchmark', reason: engineDied, engineGone: true };
          else if (o.signal?.aborted) failure = { phase: 'benchmark', reason: 'stopped during the eval' };
        }
      } catch (err) {
        if (err instanceof BenchInterrupted)
          throw new PhaseFailure('warmup', engineDied ?? `interrupted: ${err.message}`, engineDied !== null);
        if (err instanceof BenchError) throw new PhaseFailure('warmup', err.message);
        throw err;
      } finally {
        o.signal?.removeEventListener('abort', abort);
      }
    }
  } catch (err) {
    if (err instanceof PhaseFailure)
      failure = { phase: err.phase, reason: err.message, engineGone: err.engineGone };
    else if (err instanceof EngineStartError)
      failure = { phase: 'setup', reason: err.message, engineGone: err.exit !== null };
    else failure = { phase, reason: (err as Error).message ?? String(err) };
  }

  let engineExit: PointStatus['engineExit'] = null;
  if (engine) {
    const exitedOnItsOwn = engine.exit();
    const grace = o.signal?.aborted
      ? Math.min(o.stopGraceMs ?? INTERRUPTED_STOP_GRACE_MS, INTERRUPTED_STOP_GRACE_MS)
      : o.stopGraceMs;
    try {
      const { forced } = await engine.stop(grace);
      if (forced) log(`the engine ignored SIGTERM and was killed`);
      groups?.stoppedAll();
    } catch (err) {
      failure ??= { phase: 'teardown', reason: `could not stop the engine: ${(err as Error).message}` };
    }
    if (exitedOnItsOwn) engineExit = { code: exitedOnItsOwn.code, signal: exitedOnItsOwn.signal };
  }
  for (const p of launch?.processes ?? []) releasePort(p.port);

  // Read once the engine is stopped, so its last words are in the file.
  const tail = failure ? await logTail(logPath, CAUSE_LINES) : [];
  if (failure?.engineGone) failure = { ...failure, reason: engineCause(failure.reason, tail) };

  const finished = new Date();
  const interrupted = o.signal?.aborted === true;
  const status: PointStatus = {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    pointId: spec.pointId,
    attempt: o.attempt,
    status: failure ? 'failed' : 'ok',
    phase: failure?.phase ?? null,
    reason: failure && interrupted ? `interrupted (${failure.reason})` : (failure?.reason ?? note),
    interrupted,
    valid,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationS: (finished.getTime() - started.getTime()) / 1000,
    host,
    engineExit,
    logTail: tail.slice(-TAIL_LINES),
    ...(spec.eval ? { eval: evalOutcome } : {}),
  };
  await writeJson(join(o.outDir, ATTEMPT_FILES.status), status);
  return status;
}
