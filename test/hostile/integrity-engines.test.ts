import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_GROUPS_FILE, type EngineGroupsFile, readGroups } from '../../src/engines/groups.ts';
import { tmpDir } from '../helpers.ts';
import { eventually, FAST, processesMentioning, smallRow, spawnInfx, writeMatrix } from '../sweep-helpers.ts';

/**
 * A point's engines never outlive it (issue 13 item 14): the point process records its engines' process
 * groups in the attempt directory; killed outright (SIGKILL), the local executor ends those groups once it
 * sees the point process gone; told to stop (SIGTERM, SIGINT, SIGHUP), the point process stops them itself.
 */

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Waits for the attempt's engines.json to name a running engine group; returns it. */
async function recordedEngine(attemptDir: string): Promise<EngineGroupsFile & { pgid: number }> {
  let doc: EngineGroupsFile | null = null;
  const seen = await eventually(() => {
    doc = readGroups(join(attemptDir, ENGINE_GROUPS_FILE));
    return doc !== null && doc.groups.length > 0 && groupAlive(doc.groups[0]!.pgid);
  }, 30_000);
  expect(seen, `no running engine recorded in ${attemptDir}`).toBe(true);
  const d = doc as unknown as EngineGroupsFile;
  return { ...d, pgid: d.groups[0]!.pgid };
}

// The engine starts but never becomes ready: it stays up until someone stops it.
const HANG = ['--sim-fault', '#1=hang', '--ready-timeout', '120'];

describe('engines never outlive their point', () => {
  it('local executor: a SIGKILLed point process leaves no engine behind', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow({ conc: 1 })]);
    const sweep = spawnInfx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--run-id',
      'killed',
      ...FAST,
      ...HANG,
    ]);
    const runDir = join(out, 'killed');
    expect(await eventually(() => existsSync(join(runDir, 'manifest.json')), 20_000)).toBe(true);
    const point = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).points[0].pointId;
    const attempt = join(runDir, 'points', point, 'attempt-1');
    const engine = await recordedEngine(attempt);
    expect(engine.pid).not.toBe(sweep.child.pid);
    process.kill(engine.pid, 'SIGKILL');
    expect(await eventually(() => !groupAlive(engine.pgid), 15_000)).toBe(true);
    const done = await sweep.finished;
    expect(done.code, done.stderr).toBe(1);
    expect(done.stderr).toContain('ended without a status (killed by SIGKILL)');
    expect(readFileSync(join(attempt, 'infx.log'), 'utf8')).toMatch(
      new RegExp(`the engine's server process group ${engine.pgid} outlived the point process: killed`),
    );
    expect(processesMentioning(runDir)).toEqual([]);
  }, 90_000);

  it.each(['SIGTERM', 'SIGHUP', 'SIGINT'] as const)(
    'infx sweep point told to stop with %s stops its engine first',
    async (signal) => {
      const out = tmpDir();
      const row = writeMatrix(out, [smallRow({ conc: 1 })], 'row.json');
      const dir = join(out, 'attempt');
      const p = spawnInfx(['sweep', 'point', '--point', row, '--out', dir, ...FAST, ...HANG]);
      const engine = await recordedEngine(dir);
      expect(engine.pid).toBe(p.child.pid);
      p.child.kill(signal);
      const done = await p.finished;
      expect(done.code, done.stderr).toBe(130);
      expect(groupAlive(engine.pgid)).toBe(false);
      const status = JSON.parse(readFileSync(join(dir, 'status.json'), 'utf8'));
      expect(status).toMatchObject({ status: 'failed', interrupted: true, phase: 'setup' });
      expect(readGroups(join(dir, ENGINE_GROUPS_FILE))?.groups.every((g) => g.stopped)).toBe(true);
      expect(existsSync(join(dir, 'point.json'))).toBe(true);
    },
    60_000,
  );
});
