import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processStartTicks } from '../engines/groups.ts';
import { InfxError } from '../schema/errors.ts';
import { RUN_TOP_FILES } from '../schema/run-dir.ts';

/**
 * One writer per run directory: `infx sweep` (a new run, `--resume`), `sweep retry` and the demo's sweep
 * hold `<run>/sweep.lock` while they run points. The lock is a file created with O_EXCL holding the
 * holder's pid, host, start time and command; it is removed when the sweep ends (also on process.exit).
 *
 * - A lock whose holder is gone — same host, and no process with that pid (or the pid now belongs to a
 *   process started later: pid reuse) — is stale and taken over, saying so.
 * - A live holder is an error naming it (LockHeldError).
 * - A lock from another host (a run directory on a shared filesystem) cannot be checked: whether a pid is
 *   alive is only known on its own host. It is treated as live and never taken over; the error says how to
 *   remove it once that sweep is known to be gone.
 *
 * The lock is the sweep's, not its points': Slurm jobs and local point processes write their attempt
 * directories under the sweep's lock and take none themselves. A sweep that was killed leaves its lock
 * behind; a `--resume` on the same host takes it over and then adopts the jobs the killed sweep left
 * running (src/sweep/sweep.ts).
 */

export const LOCK_FILE = RUN_TOP_FILES.lock;

export interface LockInfo {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  startedAt: string;
  /** The process's start time in clock ticks after boot (/proc/PID/stat field 22), to tell pid reuse. */
  processStart: number | null;
  command: string;
  /** Random: tells this holder's lock from a later one at the same path. */
  token: string;
}

/** The run directory's lock cannot be taken: held by another sweep (LockHeldError), or not creatable. */
export class RunLockError extends InfxError {
  override name = 'RunLockError';
}

export class LockHeldError extends RunLockError {
  override name = 'LockHeldError';
  constructor(
    message: string,
    readonly holder: LockInfo | null,
  ) {
    super(message);
  }
}

export interface RunLock {
  readonly path: string;
  readonly info: LockInfo;
  /** The stale lock this one replaced, if any. */
  readonly tookOver: LockInfo | null;
  /** Removes the lock if it is still this holder's. Idempotent. */
  release(): void;
}

/** Whether a process with this pid exists (on this host). EPERM: it exists, owned by someone else. */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const describe = (h: LockInfo) =>
  `pid ${h.pid} on host ${h.host} since ${h.startedAt}${h.command ? ` (${h.command})` : ''}`;

function parse(text: string): LockInfo | null {
  try {
    const j = JSON.parse(text) as Partial<LockInfo>;
    if (typeof j.pid !== 'number' || typeof j.host !== 'string' || typeof j.startedAt !== 'string')
      return null;
    return {
      pid: j.pid,
      host: j.host,
      startedAt: j.startedAt,
      processStart: typeof j.processStart === 'number' ? j.processStart : null,
      command: typeof j.command === 'string' ? j.command : '',
      token: typeof j.token === 'string' ? j.token : '',
    };
  } catch {
    return null;
  }
}

const sleepMs = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A lock file read while its writer may still be filling it in: retried briefly. */
function readLock(path: string): { info: LockInfo | null; text: string; gone: boolean } {
  for (let i = 0; ; i++) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { info: null, text: '', gone: true };
      throw err;
    }
    const info = parse(text);
    if (info || i >= 20) return { info, text, gone: false };
    sleepMs(50);
  }
}

/** Why a lock's holder is known to be gone (stale), or null when it may be alive. */
export function staleReason(h: LockInfo, host = hostname()): string | null {
  if (h.host !== host) return null;
  if (!pidAlive(h.pid)) return `pid ${h.pid} is no longer running`;
  const start = processStartTicks(h.pid);
  if (h.processStart !== null && start !== null && start !== h.processStart)
    return `pid ${h.pid} now belongs to another process`;
  return null;
}

function tryCreate(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new RunLockError(`cannot create the run directory's lock ${path}: ${(err as Error).message}`);
  }
  try {
    writeSync(fd, `${JSON.stringify(info, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Taking over a stale lock is itself serialized by a short-lived O_EXCL file beside it. */
function withTakeoverGuard<T>(path: string, fn: () => T): T | undefined {
  const guard = `${path}.takeover`;
  let fd: number;
  try {
    fd = openSync(guard, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process is taking over right now (a few ms); one left behind by a crash expires after 10 s.
    try {
      if (Date.now() - statSync(guard).mtimeMs > 10_000) unlinkSync(guard);
    } catch {}
    return undefined;
  }
  closeSync(fd);
  try {
    return fn();
  } finally {
    try {
      unlinkSync(guard);
    } catch {}
  }
}

/**
 * Takes the run directory's lock (`create`: making the directory first, for a new run). Throws LockHeldError naming the
 * holder when another live sweep (or one on another host) holds it; takes over a stale one (`tookOver`).
 */
export function acquireRunLock(runDir: string, opts: { command: string; create?: boolean }): RunLock {
  if (opts.create) mkdirSync(runDir, { recursive: true });
  const path = join(runDir, LOCK_FILE);
  const info: LockInfo = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
    processStart: processStartTicks(process.pid),
    command: opts.command,
    token: randomBytes(8).toString('hex'),
  };
  let tookOver: LockInfo | null = null;
  for (let tries = 0; ; tries++) {
    if (tryCreate(path, info)) break;
    const seen = readLock(path);
    if (seen.gone) continue;
    const h = seen.info;
    if (h === null) {
      // Unreadable: a writer that died between creating and filling it, if it stays so.
      let age = 0;
      try {
        age = Date.now() - statSync(path).mtimeMs;
      } catch {
        continue;
      }
      if (age < 10_000 || tries > 50)
        throw new LockHeldError(
          `run directory ${runDir} is locked (${path} exists but cannot be read as a lock); if no sweep is running on it, remove that file`,
          null,
        );
    } else {
      const why = staleReason(h);
      if (why === null)
        throw new LockHeldError(
          h.host === info.host
            ? `run directory ${runDir} is in use by another sweep: ${describe(h)}; wait for it to finish or stop it (kill ${h.pid}), then resume with --resume`
            : `run directory ${runDir} is locked by a sweep on another host: ${describe(h)}; a process on another host cannot be checked from here, so the lock is kept. If that sweep is gone, remove ${path} and run again`,
          h,
        );
      if (tries > 50) throw new LockHeldError(`could not take over the stale lock ${path}`, h);
    }
    // Stale: replace it, unless someone else replaced it first (then the loop sees theirs).
    const done = withTakeoverGuard(path, () => {
      const again = readLock(path);
      if (again.gone || again.text !== seen.text) return true;
      const aside = `${path}.stale-${process.pid}-${info.token}`;
      renameSync(path, aside);
      unlinkSync(aside);
      tookOver = h;
      return true;
    });
    if (done === undefined) sleepMs(20);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      const now = parse(readFileSync(path, 'utf8'));
      if (now?.token === info.token) unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  // A sweep that leaves through process.exit (a second Ctrl-C) still gives its lock back.
  process.on('exit', release);
  return { path, info, tookOver, release };
}

export const describeHolder = describe;
