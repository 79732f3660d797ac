import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_GROUPS_FILE, type EngineGroupsFile, readGroups } from '../../src/engines/groups.ts';
import { JOB_FILE } from '../../src/sweep/executors/slurm.ts';
import { slurmAvailable } from '../../src/sweep/executors/slurm-cli.ts';
import { tmpDir } from '../helpers.ts';
import { eventually, FAST, processesMentioning, smallRow, spawnInfx, writeMatrix } from '../sweep-helpers.ts';

/**
 * Engines of a Slurm job never outlive it (issue 13 item 14), on the real one-node cluster
 * (scripts/dev-slurm.sh start): the job cancelled with scancel (the point stops its engine on SIGTERM) and
 * the job's point process killed outright (the sweep ends the recorded engine groups when the job is over).
 * Skipped without a cluster, unless INFX_REQUIRE_SLURM=1.
 */

const available = await slurmAvailable();
const required = process.env.INFX_REQUIRE_SLURM === '1';
if (!available.ok && !required) console.warn(`skipping Slurm engine-cleanup tests: ${available.reason}`);

const SLURM = ['--executor', 'slurm', '--slurm-gpu-request', 'none', '--slurm-time', '10'];
const HANG = ['--sim-fault', '#1=hang', '--ready-timeout', '120'];

const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function startHungSweep(runId: string) {
  const out = tmpDir();
  const matrix = writeMatrix(out, [smallRow({ conc: 1 })]);
  const sweep = spawnInfx([
    'sweep',
    '--matrix',
    matrix,
    '--out',
    out,
    '--run-id',
    runId,
    ...FAST,
    ...HANG,
    ...SLURM,
  ]);
  const runDir = join(out, runId);
  expect(await eventually(() => existsSync(join(runDir, 'manifest.json')), 30_000)).toBe(true);
  const point = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')).points[0].pointId as string;
  const attempt = join(runDir, 'points', point, 'attempt-1');
  let doc: EngineGroupsFile | null = null;
  const up = await eventually(() => {
    doc = readGroups(join(attempt, ENGINE_GROUPS_FILE));
    return doc !== null && doc.groups.length > 0 && groupAlive(doc.groups[0]!.pgid);
  }, 60_000);
  expect(up, `no engine started by the job (${attempt})`).toBe(true);
  const engines = doc as unknown as EngineGroupsFile;
  const job = JSON.parse(readFileSync(join(attempt, JOB_FILE), 'utf8')).jobId as string;
  return { sweep, runDir, attempt, engines, pgid: engines.groups[0]!.pgid, job };
}

describe.skipIf(!available.ok && !required)('Slurm: a job leaves no engine behind', () => {
  it('scancel of the job: the point stops its engine', async () => {
    expect(available.ok, available.ok ? '' : available.reason).toBe(true);
    const s = await startHungSweep('scancel');
    execFileSync('scancel', [s.job]);
    expect(await eventually(() => !groupAlive(s.pgid), 30_000)).toBe(true);
    await s.sweep.finished;
    expect(processesMentioning(s.runDir)).toEqual([]);
  }, 120_000);

  it("the job's point process SIGKILLed: the sweep ends the recorded engine group", async () => {
    expect(available.ok, available.ok ? '' : available.reason).toBe(true);
    const s = await startHungSweep('sigkill');
    process.kill(s.engines.pid, 'SIGKILL');
    expect(await eventually(() => !groupAlive(s.pgid), 30_000)).toBe(true);
    const done = await s.sweep.finished;
    // Slurm's process tracking (proctrack/linuxproc here) did not end it: the sweep did, and says so.
    expect(readFileSync(join(s.attempt, 'infx.log'), 'utf8')).toContain(
      `the engine's server process group ${s.pgid} outlived the point process: killed`,
    );
    expect(done.code, done.stderr).toBe(1);
    expect(processesMentioning(s.runDir)).toEqual([]);
  }, 120_000);
});
