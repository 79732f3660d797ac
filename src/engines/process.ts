import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, type FSWatcher, openSync, watch, writeSync } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import type { EngineLaunch, EngineProcess } from '../schema/engine-launch.ts';
import { InfxError } from '../schema/errors.ts';
import { isInside } from '../schema/safe-path.ts';

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
  /** Where the processes' stdout and stderr go (readiness probes as soon as it is written to). */
  readonly logPath?: string;
}

export class EngineStartError extends InfxError {
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
  opts: {
    cwd: string;
    logPath: string;
    env?: NodeJS.ProcessEnv;
    /**
     * Called synchronously right after each process is spawned with its pid (= its process group id), so
     * the caller can record the group before anything else can happen (src/engines/groups.ts).
     */
    onSpawn?: (role: string, pgid: number) => void;
  },
): Promise<RunningEngine> {
  await mkdir(dirname(opts.logPath), { recursive: true });
  const children: { child: ChildProcess; role: string; done: boolean }[] = [];
  let firstExit: ProcessExit | null = null;
  let onExit!: (e: ProcessExit) => void;
  const exited = new Promise<ProcessExit>((resolve) => {
    onExit = resolve;
  });

  // A recipe writes its files into the work directory, never elsewhere (a name from a config cannot climb
  // out): checked for every process before any is started.
  for (const p of launch.processes)
    for (const f of p.files)
      if (!isInside(opts.cwd, isAbsolute(f.path) ? f.path : join(opts.cwd, f.path)))
        throw new EngineStartError(
          `the ${p.role} process's file ${JSON.stringify(f.path)} is outside its work directory ${opts.cwd}: refused`,
          null,
        );
  for (const p of launch.processes) {
    try {
      for (const f of p.files) {
        const path = isAbsolute(f.path) ? f.path : join(opts.cwd, f.path);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, f.content);
      }
    } catch (err) {
      // The processes started so far must not outlive a launch that failed half way.
      for (const c of children) killGroup(c.child, 'SIGKILL');
      throw err;
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
    if (child.pid !== undefined) opts.onSpawn?.(p.role, child.pid);
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
    logPath: opts.logPath,
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

/** Pause after a probe that found nothing listening: a refused connect is cheap, so polls are frequent. */
const REFUSED_INTERVAL_MS = 5;
/** Pause after an answer other than 200: the engine is up and loading; no need to ask 200 times a second. */
const ANSWERED_INTERVAL_MS = 25;
/** The most one probe may take (connect, request, status line); also capped by the overall deadline. */
export const PROBE_TIMEOUT_MS = 2000;
/** The most of an answer a probe reads: its status line has to come within this many bytes. */
export const PROBE_MAX_BYTES = 4096;

/** What one probe of the ready URL found: 200, another answer, or no answer (refused, reset, timed out). */
export type ProbeOutcome = 'ready' | 'answered' | 'none';

/**
 * One GET of `url` that reads no more than the status line (at most PROBE_MAX_BYTES), never takes longer
 * than `timeoutMs`, and never throws. http: a bare socket and a minimal request; https: fetch, read alike.
 */
export function probeReady(url: URL, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
  if (url.protocol !== 'http:') return probeFetch(url, timeoutMs, signal);
  return new Promise((resolve) => {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const socket = connect({ host, port: Number(url.port || 80) });
    let head = '';
    let done = false;
    const finish = (outcome: ProbeOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      socket.destroy();
      resolve(outcome);
    };
    const abort = () => finish('none');
    const timer = setTimeout(abort, timeoutMs);
    signal?.addEventListener('abort', abort, { once: true });
    if (signal?.aborted) return abort();
    socket.setNoDelay(true);
    socket.once('connect', () => {
      socket.write(
        `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`,
      );
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      head += chunk.slice(0, PROBE_MAX_BYTES - head.length);
      const eol = head.indexOf('\r\n');
      if (eol >= 0) {
        const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head.slice(0, eol));
        finish(status?.[1] === '200' ? 'ready' : status ? 'answered' : 'none');
      } else if (head.length >= PROBE_MAX_BYTES) finish('none');
    });
    socket.once('error', () => finish('none'));
    socket.once('close', () => finish('none'));
  });
}

async function probeFetch(url: URL, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    // The status is all a probe needs: drop the body unread (its size is the server's to choose).
    await res.body?.cancel().catch(() => {});
    return res.status === 200 ? 'ready' : 'answered';
  } catch {
    return 'none';
  }
}

/**
 * Polls GET baseUrl+readyPath until it answers 200, an engine process exits, the signal aborts, or the
 * timeout passes. Nothing listening yet: a probe every `intervalMs` (default 5 ms), and one as soon as the
 * engine writes to its log (engines log when they start listening), so a ready engine is seen within a
 * few ms; an answer other than 200: a probe every ANSWERED_INTERVAL_MS at most.
 */
export async function waitUntilReady(
  launch: EngineLaunch,
  engine: RunningEngine,
  opts: { timeoutMs: number; signal?: AbortSignal; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  const host = new URL(launch.baseUrl);
  // Every worker with its own probe first (in launch order), then the front: readiness covers them all.
  const targets: { url: URL; who: string }[] = [];
  const seen = new Map<string, number>();
  for (const p of launch.processes.slice(0, -1)) {
    const n = seen.get(p.role) ?? 0;
    seen.set(p.role, n + 1);
    if (p.readyPath === undefined || p.port === null) continue;
    const url = new URL(p.readyPath, `${host.protocol}//${host.hostname}:${p.port}`);
    targets.push({ url, who: `the engine's ${p.role} ${n} (port ${p.port})` });
  }
  const multi = targets.length > 0;
  const front = launch.processes[launch.processes.length - 1]!;
  targets.push({
    url: new URL(launch.readyPath, launch.baseUrl),
    who: multi ? `the engine's ${front.role}` : 'the engine',
  });
  for (const t of targets) await waitForOne(t.url, t.who, deadline, opts.timeoutMs, engine, opts);
}

async function waitForOne(
  url: URL,
  who: string,
  deadline: number,
  timeoutMs: number,
  engine: RunningEngine,
  opts: { signal?: AbortSignal; intervalMs?: number },
): Promise<void> {
  const interval = opts.intervalMs ?? REFUSED_INTERVAL_MS;
  // Wakes a probe or a pause at once when a process exits or the caller gives up.
  const stop = new AbortController();
  const wake = () => stop.abort();
  void engine.exited.then(wake);
  opts.signal?.addEventListener('abort', wake, { once: true });
  const log = new LogWatch(engine.logPath);
  try {
    while (true) {
      const exit = engine.exit();
      if (exit)
        throw new EngineStartError(
          `the engine's ${exit.role} process exited before it was ready (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`,
          exit,
        );
      if (opts.signal?.aborted) throw new EngineStartError('interrupted while waiting for the engine', null);
      const left = deadline - Date.now();
      if (left < 0)
        throw new EngineStartError(
          `${who} was not ready after ${Math.round(timeoutMs / 1000)} s (GET ${url.href} never answered 200)`,
          null,
        );
      log.reset();
      const outcome = await probeReady(url, Math.max(1, Math.min(PROBE_TIMEOUT_MS, left)), stop.signal);
      if (outcome === 'ready') return;
      if (stop.signal.aborted) continue;
      if (outcome === 'answered') await pause(Math.max(interval, ANSWERED_INTERVAL_MS), stop.signal);
      else await pause(interval, stop.signal, log);
    }
  } finally {
    log.close();
    opts.signal?.removeEventListener('abort', wake);
  }
}

/** Whether an engine has written to its log since the last reset (inotify, where there is one). */
class LogWatch {
  private watcher: FSWatcher | null = null;
  private wrote = false;
  private onWrite: (() => void) | null = null;

  constructor(path: string | undefined) {
    if (path === undefined) return;
    try {
      this.watcher = watch(path, { persistent: false }, () => {
        this.wrote = true;
        this.onWrite?.();
      });
      this.watcher.on('error', () => this.close());
    } catch {
      // No file watching here: polling alone finds the engine.
    }
  }

  reset(): void {
    this.wrote = false;
  }

  /** Resolves on the next write, at once if there was one since the reset; `cancel` drops the wait. */
  next(): { written: Promise<void>; cancel: () => void } {
    const written = new Promise<void>((resolve) => {
      if (this.wrote) resolve();
      else this.onWrite = resolve;
    });
    return { written, cancel: () => (this.onWrite = null) };
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    this.onWrite = null;
  }
}

/** At least this long between two probes, however much an engine logs. */
const MIN_GAP_MS = 2;

/** Waits `ms`, or less: until the signal aborts or (MIN_GAP_MS in at the earliest) the engine logs. */
async function pause(ms: number, signal: AbortSignal, log?: LogWatch): Promise<void> {
  const sleep = (t: number, early?: Promise<void>) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, t);
      signal.addEventListener('abort', done, { once: true });
      void early?.then(done);
    });
  if (!log || ms <= MIN_GAP_MS) return sleep(ms);
  await sleep(MIN_GAP_MS);
  if (signal.aborted) return;
  const next = log.next();
  await sleep(ms - MIN_GAP_MS, next.written);
  next.cancel();
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
