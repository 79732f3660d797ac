import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunLock, LOCK_FILE, LockHeldError } from '../../src/sweep/lock.ts';
import { tmpDir } from '../helpers.ts';
import { eventually, FAST, infx, smallRow, spawnInfx, writeMatrix } from '../sweep-helpers.ts';

/**
 * One writer per run directory (issue 13 item 2): two sweeps started at once with one --run-id, a sweep
 * and its --resume at once, a stale lock from a dead process, a lock from another host.
 */

/** Attempt folders per point of a run directory. */
function attemptsPerPoint(runDir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of readdirSync(join(runDir, 'points')))
    out[p] = readdirSync(join(runDir, 'points', p)).filter((n) => n.startsWith('attempt-'));
  return out;
}

/** A pid no process has any more: one that ran and exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

// The first point's engine never becomes ready for 6 s: each sweep holds its lock at least that long.
const SLOW = ['--sim-fault', '#1=hang', '--ready-timeout', '6'];

describe('the run directory lock', () => {
  it('two sweeps started at once with one --run-id: exactly one runs, the other names the holder', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow({ conc: [1, 2] })]);
    const args = ['sweep', '--matrix', matrix, '--out', out, '--run-id', 'twice', ...FAST, ...SLOW];
    const [a, b] = await Promise.all([infx(args), infx(args)]);
    const refused = (x: typeof a) => x.stderr.includes('in use by another sweep');
    const [winner, loser] = refused(a) ? [b, a] : [a, b];
    // The winner ran both points (the hung one failed in setup: exit 1); the loser ran nothing.
    expect(winner.code, winner.stderr).toBe(1);
    expect(winner.stderr).toMatch(/attempt 1 started/);
    expect(loser.code, loser.stderr).toBe(1);
    expect(loser.stderr).toMatch(
      new RegExp(
        `error: run directory .*twice is in use by another sweep: pid \\d+ on host ${hostname()} since \\S+ \\(infx sweep --run-id twice\\)`,
      ),
    );
    expect(loser.stderr).not.toMatch(/attempt \d+ started/);
    const attempts = attemptsPerPoint(join(out, 'twice'));
    expect(Object.keys(attempts)).toHaveLength(2);
    for (const list of Object.values(attempts)) expect(list).toEqual(['attempt-1']);
    expect(existsSync(join(out, 'twice', LOCK_FILE))).toBe(false);
  }, 60_000);

  it('a sweep and its --resume at once: the resume is refused while the sweep runs', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow({ conc: [1, 2] })]);
    const runDir = join(out, 'both');
    const first = spawnInfx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--run-id',
      'both',
      ...FAST,
      ...SLOW,
    ]);
    expect(await eventually(() => existsSync(join(runDir, 'manifest.json')), 20_000)).toBe(true);
    const resume = await infx(['sweep', '--resume', 'both', '--out', out]);
    expect(resume.code, resume.stderr).toBe(1);
    expect(resume.stderr).toMatch(
      new RegExp(`in use by another sweep: pid ${first.child.pid} on host ${hostname()}`),
    );
    const done = await first.finished;
    expect(done.code, done.stderr).toBe(1);
    for (const list of Object.values(attemptsPerPoint(runDir))) expect(list).toEqual(['attempt-1']);
    // Once the sweep is over, the resume runs (nothing is missing: the hung point failed, not interrupted).
    const later = await infx(['sweep', '--resume', 'both', '--out', out]);
    expect(later.stderr).not.toMatch(/in use/);
    for (const list of Object.values(attemptsPerPoint(runDir))) expect(list).toEqual(['attempt-1']);
  }, 60_000);

  it('a stale lock (its process is gone) is taken over with a note; one from another host is kept', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow({ conc: 1 })]);
    const created = await infx(['sweep', '--matrix', matrix, '--out', out, '--run-id', 'stale', ...FAST]);
    expect(created.code, created.stderr).toBe(0);
    const lock = join(out, 'stale', LOCK_FILE);
    const pid = deadPid();
    const stale = {
      pid,
      host: hostname(),
      startedAt: '2026-01-01T00:00:00.000Z',
      command: 'infx sweep (killed)',
    };
    writeFileSync(lock, JSON.stringify(stale));
    const resumed = await infx(['sweep', '--resume', 'stale', '--out', out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      new RegExp(
        `note: took over the lock .*${LOCK_FILE} left by pid ${pid} on host ${hostname()} since 2026-01-01T00:00:00.000Z \\(infx sweep \\(killed\\)\\), which is no longer running`,
      ),
    );
    expect(existsSync(lock)).toBe(false);

    // Another host: its pid cannot be checked from here, so the lock stands and the error says how to clear it.
    const foreign = { ...stale, pid: 1, host: 'node-17.cluster' };
    writeFileSync(lock, JSON.stringify(foreign));
    const refused = await infx(['sweep', '--resume', 'stale', '--out', out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/locked by a sweep on another host: pid 1 on host node-17\.cluster/);
    expect(refused.stderr).toContain(`remove ${lock}`);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual(foreign);
  }, 60_000);

  it('in process: a live holder is refused, released locks can be taken again, pid reuse is stale', () => {
    const dir = tmpDir();
    const held = acquireRunLock(dir, { command: 'test' });
    expect(() => acquireRunLock(dir, { command: 'second' })).toThrow(LockHeldError);
    held.release();
    held.release();
    const again = acquireRunLock(dir, { command: 'third' });
    expect(again.tookOver).toBeNull();
    again.release();
    // This very pid, but recorded with another start time: the pid now belongs to a later process.
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: 'x', processStart: 1, command: 'old' }),
    );
    const taken = acquireRunLock(dir, { command: 'fourth' });
    expect(taken.tookOver?.command).toBe('old');
    taken.release();
  });
});
