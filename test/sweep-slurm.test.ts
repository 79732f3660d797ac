import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PointResultSchema } from '../src/schema/point-result.ts';
import { PointAttemptSchema, PointStatusSchema, RunManifestSchema } from '../src/schema/run-dir.ts';
import { jobStates, slurmAvailable } from '../src/sweep/executors/slurm-cli.ts';
import { tmpDir } from './helpers.ts';
import {
  eventually,
  FAST,
  infx,
  processesMentioning,
  readJson,
  smallRow,
  spawnInfx,
  writeMatrix,
} from './sweep-helpers.ts';

/**
 * `infx sweep --executor slurm` on a real single-node Slurm cluster (scripts/dev-slurm.sh start): every point
 * is an sbatch job running `infx sweep point` into the shared run directory. Skipped, saying why, without a
 * cluster; with INFX_REQUIRE_SLURM=1 (CI) a missing cluster fails.
 */

const available = await slurmAvailable();
const required = process.env.INFX_REQUIRE_SLURM === '1';
if (!available.ok && !required)
  console.warn(
    `skipping Slurm sweep tests: ${available.reason} (start one with: sudo scripts/dev-slurm.sh start)`,
  );

const SLURM = ['--executor', 'slurm', '--slurm-gpu-request', 'none', '--slurm-time', '10'];
const attempts = (runDir: string, id: string) =>
  readdirSync(join(runDir, 'points', id)).filter((n) => n.startsWith('attempt-'));

describe.skipIf(!available.ok && !required)('infx sweep --executor slurm', () => {
  it('runs every point as a Slurm job into a complete run directory', async () => {
    expect(available.ok, available.ok ? '' : available.reason).toBe(true);
    const out = tmpDir();
    const matrix = writeMatrix(
      out,
      [1, 2, 4].map((conc) => smallRow({ conc })),
    );
    const r = await infx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--run-id',
      'slurm',
      ...FAST,
      ...SLURM,
      '--parallel',
      '3',
    ]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toMatch(/attempt 1 started \(slurm job \d+\)/);
    const runDir = join(out, 'slurm');
    const manifest = RunManifestSchema.parse(readJson(join(runDir, 'manifest.json')));
    expect(manifest.options.executor).toBe('slurm');
    const jobIds: string[] = [];
    for (const p of manifest.points) {
      const dir = join(runDir, 'points', p.pointId, 'attempt-1');
      const point = PointAttemptSchema.parse(readJson(join(dir, 'point.json')));
      expect(point.slurmJobId).toMatch(/^\d+$/);
      jobIds.push(point.slurmJobId as string);
      expect(PointStatusSchema.parse(readJson(join(dir, 'status.json'))).status).toBe('ok');
      expect(PointResultSchema.parse(readJson(join(dir, 'result.json'))).load.concurrency).toBe(p.conc);
      expect(existsSync(join(dir, 'server.log'))).toBe(true);
    }
    const states = await jobStates(jobIds);
    for (const id of jobIds) expect(states.get(id)?.state).toBe('COMPLETED');
    expect(processesMentioning(runDir)).toEqual([]);
  }, 180_000);

  it('cancels the jobs on Ctrl-C with scancel, and --resume finishes the run', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(
      out,
      [1, 2].map((conc) => smallRow({ conc })),
    );
    const runDir = join(out, 'cancel');
    // First attempts hang while "loading", so both jobs are caught running; resumed attempts start at once.
    const slow = ['--ready-timeout', '120', '--sim-fault', 'conc=hang@1'];
    const { child, finished } = spawnInfx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--run-id',
      'cancel',
      ...FAST,
      ...slow,
      ...SLURM,
      '--parallel',
      '2',
    ]);
    const running = () =>
      existsSync(join(runDir, 'points')) &&
      readdirSync(join(runDir, 'points')).filter((id) =>
        existsSync(join(runDir, 'points', id, 'attempt-1', 'server.log')),
      ).length === 2;
    expect(await eventually(running, 90_000)).toBe(true);
    child.kill('SIGINT');
    const r = await finished;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toContain('resume with: infx sweep --resume cancel');
    const manifest = RunManifestSchema.parse(readJson(join(runDir, 'manifest.json')));
    for (const p of manifest.points) {
      const s = PointStatusSchema.parse(
        readJson(join(runDir, 'points', p.pointId, 'attempt-1', 'status.json')),
      );
      expect(s.interrupted).toBe(true);
    }
    expect(await eventually(() => processesMentioning(runDir).length === 0, 30_000)).toBe(true);
    const resumed = await infx(['sweep', '--resume', 'cancel', '--out', out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const p of manifest.points) {
      expect(attempts(runDir, p.pointId).sort()).toEqual(['attempt-1', 'attempt-2']);
      const s = PointStatusSchema.parse(
        readJson(join(runDir, 'points', p.pointId, 'attempt-2', 'status.json')),
      );
      expect(s.status).toBe('ok');
    }
  }, 240_000);

  it('a resumed sweep waits for the jobs a killed sweep left running instead of running them again', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(
      out,
      [1, 2].map((conc) => smallRow({ conc })),
    );
    const runDir = join(out, 'orphaned');
    // Real time (scale 1): each point takes a few seconds, long enough to kill the sweep under it.
    const args = ['--matrix', matrix, '--out', out, '--run-id', 'orphaned', ...FAST, '--sim-time-scale', '1'];
    const { child, finished } = spawnInfx(['sweep', ...args, ...SLURM, '--parallel', '2']);
    const started = () =>
      existsSync(join(runDir, 'points')) &&
      readdirSync(join(runDir, 'points')).filter((id) =>
        existsSync(join(runDir, 'points', id, 'attempt-1', 'server.log')),
      ).length === 2;
    expect(await eventually(started, 90_000)).toBe(true);
    child.kill('SIGKILL');
    await finished;
    const resumed = await infx(['sweep', '--resume', 'orphaned', '--out', out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      /attempt 1 still running from an earlier sweep: waiting for it \(slurm job \d+\)/,
    );
    const manifest = RunManifestSchema.parse(readJson(join(runDir, 'manifest.json')));
    for (const p of manifest.points) {
      expect(attempts(runDir, p.pointId)).toEqual(['attempt-1']);
      const s = PointStatusSchema.parse(
        readJson(join(runDir, 'points', p.pointId, 'attempt-1', 'status.json')),
      );
      expect(s.status).toBe('ok');
    }
  }, 180_000);
});
