import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import type { EngineLaunch, EngineProcess } from '../schema/engine-launch.ts';

/**
 * Runs an engine's processes: each in its own process group (so stopping it takes every worker it forked),
 * stdout and stderr appended to one log file, readiness probed over HTTP, stopped with SIGTERM and then
 * SIGKILL after a grace period.
 */

export interface ProcessExit {
  role: string;
  code: number | null;
  signal: string | null;
}

export interface RunningEngine {
  /** Resolves when any of the engine's processes exits on its own. */
  readonly exited: Promise<ProcessExit>;
  /** Set once a process has exited. */
  exit(): ProcessExit | null;
  /** SIGTERM every process group, SIGKILL what is left after graceMs; true when it had to force. */
  stop(graceMs?: number): Promise<{ forced: boolean }>;
  pids(): number[];
}

export class EngineStartError extends Error {
  constructor(
    message: string,
    readonly exit: ProcessExit | null,
  ) {
    super(message);
  }
}

function writeHeader(logPath: string, p: EngineProcess): void {
  const fd = openSync(logPath, 'a');
  try {
    writeSync(fd, `=== infx: starting ${p.role}: ${p.argv.join(' ')}\n`);
  } finally {
    closeSync(fd);
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

export async function startEngine(
  launch: EngineLaunch,
  opts: { cwd: string; logPath: string; env?: NodeJS.ProcessEnv },
): Promise<RunningEngine> {
  await mkdir(dirname(opts.logPath), { recursive: true });
  const children: { child: ChildProcess; role: string; done: boolean }[] = [];
  let firstExit: ProcessExit | null = null;
  let onExit!: (e: ProcessExit) => void;
  const exited = new Promise<ProcessExit>((resolve) => {
    onExit = resolve;
  });

  for (const p of launch.processes) {
    for (const f of p.files) {
      const path = isAbsolute(f.path) ? f.path : join(opts.cwd, f.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, f.content);
    }
    writeHeader(opts.logPath, p);
    const fd = openSync(opts.logPath, 'a');
    const [cmd, ...args] = p.argv as [string, ...string[]];
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { ...(opts.env ?? process.env), ...p.env },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    const entry = { child, role: p.role, done: false };
    children.push(entry);
    const record = (code: number | null, signal: string | null) => {
      if (entry.done) return;
      entry.done = true;
      const e = { role: p.role, code, signal };
      if (!firstExit) {
        firstExit = e;
        onExit(e);
      }
    };
    child.once('error', (err) => {
      const fd2 = openSync(opts.logPath, 'a');
      writeSync(fd2, `=== infx: could not start ${p.role}: ${err.message}\n`);
      closeSync(fd2);
      record(127, null);
    });
    child.once('exit', (code, signal) => record(code, signal));
  }

  return {
    exited,
    exit: () => firstExit,
    pids: () => children.map((c) => c.child.pid).filter((p): p is number => p !== undefined),
    async stop(graceMs = 10_000) {
      // Front first: the router stops taking requests before its workers go.
      const order = [...children].reverse();
      for (const c of order) killGroup(c.child, 'SIGTERM');
      const allDone = Promise.all(
        order.map((c) =>
          c.done || c.child.exitCode !== null || c.child.signalCode !== null
            ? Promise.resolve()
            : new Promise<void>((r) => c.child.once('exit', () => r())),
        ),
      );
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        allDone.then(() => false),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(true), graceMs);
        }),
      ]);
      clearTimeout(timer);
      // Workers a leader forked can outlive it: the group gets a SIGKILL either way.
      for (const c of order) killGroup(c.child, 'SIGKILL');
      if (timedOut) await allDone;
      return { forced: timedOut };
    },
  };
}

/** Polls GET baseUrl+readyPath until it answers 200, an engine process exits, or the timeout passes. */
export async function waitUntilReady(
  launch: EngineLaunch,
  engine: RunningEngine,
  opts: { timeoutMs: number; signal?: AbortSignal; intervalMs?: number },
): Promise<void> {
  const url = new URL(launch.readyPath, launch.baseUrl);
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 250;
  while (true) {
    const exit = engine.exit();
    if (exit)
      throw new EngineStartError(
        `the engine's ${exit.role} process exited before it was ready (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`,
        exit,
      );
    if (opts.signal?.aborted) throw new EngineStartError('interrupted while waiting for the engine', null);
    if (Date.now() > deadline)
      throw new EngineStartError(
        `the engine was not ready after ${Math.round(opts.timeoutMs / 1000)} s (GET ${url.href} never answered 200)`,
        null,
      );
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(Math.min(5000, interval * 8)) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await Promise.race([new Promise((r) => setTimeout(r, interval)), engine.exited]);
  }
}

/** The last `lines` lines of a log file (reads at most its last 64 KiB). */
export async function logTail(path: string, lines = 20): Promise<string[]> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    return buf.toString('utf8').split('\n').filter(Boolean).slice(-lines);
  } catch {
    return [];
  } finally {
    await handle?.close();
  }
}
