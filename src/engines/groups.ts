import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ATTEMPT_FILES } from '../schema/run-dir.ts';

/**
 * The engines' process groups of one attempt, recorded where the attempt writes (`engines.json` in its
 * directory), so that whoever outlives the point process can end them. Each engine process is the leader
 * of its own group (src/engines/process.ts); a point process that is killed outright (SIGKILL from the
 * local executor after its grace, from Slurm after KillWait, the OOM killer) cannot stop them itself, so
 * the executor that ran it reads this file after the point process has gone and kills every group still
 * there (reapGroups). Only groups on this host can be signalled: an entry from another host is left to that
 * host (Slurm's process tracking) and reported.
 *
 * A recorded group is signalled only while it is still the recorded one: if its leader is alive it must
 * have the recorded start time (a pid reused by a later process is left alone); if the leader has exited
 * but members remain, the group id cannot have been reused (Linux does not hand out a pid that is still a
 * process group's id).
 */

export const ENGINE_GROUPS_FILE = ATTEMPT_FILES.engineGroups;

export interface EngineGroup {
  role: string;
  /** The group id: the pid of its leader, the process infx spawned. */
  pgid: number;
  /** The leader's start time (clock ticks since boot, /proc/PID/stat field 22); null where unknown. */
  processStart: number | null;
  /** Set once the point process has stopped the group itself. */
  stopped: boolean;
}

export interface EngineGroupsFile {
  host: string;
  /** The point process that started the engines. */
  pid: number;
  groups: EngineGroup[];
}

/** Start time of a process (clock ticks since boot), from /proc; null where there is none. */
export function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parentheses: count the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const v = Number(fields[19]);
    return Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

/** Records the engine groups of this point process, synchronously (so a kill right after a spawn still finds it). */
export class GroupRecord {
  private readonly doc: EngineGroupsFile = { host: hostname(), pid: process.pid, groups: [] };

  constructor(private readonly path: string) {}

  add(role: string, pgid: number): void {
    this.doc.groups.push({ role, pgid, processStart: processStartTicks(pgid), stopped: false });
    this.write();
  }

  /** Every group was stopped by the point process itself. */
  stoppedAll(): void {
    for (const g of this.doc.groups) g.stopped = true;
    this.write();
  }

  private write(): void {
    const tmp = `${this.path}.tmp-${process.pid}`;
    try {
      writeFileSync(tmp, `${JSON.stringify(this.doc, null, 2)}\n`);
      renameSync(tmp, this.path);
    } catch {
      // An unwritable attempt directory fails the point elsewhere; the record is best effort.
    }
  }
}

export function readGroups(path: string): EngineGroupsFile | null {
  try {
    const j = JSON.parse(readFileSync(path, 'utf8')) as EngineGroupsFile;
    if (typeof j.host !== 'string' || !Array.isArray(j.groups)) return null;
    return j;
  } catch {
    return null;
  }
}

/** Whether the process group exists (a member is alive; EPERM: alive, someone else's). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `pgid` still names the recorded group (see the file comment). */
function sameGroup(g: EngineGroup): boolean {
  if (!Number.isInteger(g.pgid) || g.pgid <= 1 || !groupAlive(g.pgid)) return false;
  const start = processStartTicks(g.pgid);
  return start === null || g.processStart === null || start === g.processStart;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone already.
  }
}

export interface Reaped {
  /** Groups that were still running and were killed. */
  killed: EngineGroup[];
  /** Groups recorded on another host, which this one cannot signal. */
  elsewhere: { host: string; groups: EngineGroup[] } | null;
}

/**
 * Ends the engine groups recorded in `path` that are still running on this host: SIGTERM, then SIGKILL
 * after `graceMs` for what is left. Call it once the point process has exited.
 */
export async function reapGroups(path: string, graceMs = 2000): Promise<Reaped> {
  const doc = readGroups(path);
  if (!doc) return { killed: [], elsewhere: null };
  if (doc.host !== hostname()) {
    // Another node's groups cannot be looked at from here: the ones the point did not stop are reported.
    const left = doc.groups.filter((g) => !g.stopped);
    return { killed: [], elsewhere: left.length ? { host: doc.host, groups: left } : null };
  }
  // Stopped ones too: a worker a stopped leader forked may still hold the group.
  const live = doc.groups.filter(sameGroup);
  for (const g of live) signalGroup(g.pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (live.some((g) => groupAlive(g.pgid)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  for (const g of live) if (groupAlive(g.pgid)) signalGroup(g.pgid, 'SIGKILL');
  return { killed: live, elsewhere: null };
}
