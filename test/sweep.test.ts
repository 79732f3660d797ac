import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PointResultSchema } from '../src/schema/point-result.ts';
import { PointAttemptSchema, PointStatusSchema, RunManifestSchema } from '../src/schema/run-dir.ts';
import { assertFixedSeqLen } from '../src/schema/workload.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
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

/** End to end: `infx sweep` with the local executor and the simulated engine, one process per point. */

const pointsOf = (runDir: string) => readdirSync(join(runDir, 'points')).sort();
const attemptsOf = (runDir: string, id: string) =>
  readdirSync(join(runDir, 'points', id))
    .filter((n) => n.startsWith('attempt-'))
    .sort();
const statusOf = (runDir: string, id: string, attempt: number) =>
  PointStatusSchema.parse(readJson(join(runDir, 'points', id, `attempt-${attempt}`, 'status.json')));
const pointWith = (runDir: string, text: string) => {
  const id = pointsOf(runDir).find((p) => p.includes(text));
  if (!id) throw new Error(`no point with ${text} in ${pointsOf(runDir).join(', ')}`);
  return id;
};

describe('infx sweep (local executor, simulated engine)', () => {
  it('runs an example config into a complete run directory whose every file validates', async () => {
    const out = tmpDir();
    const r = await infx([
      'sweep',
      '--config-files',
      join(REPO_ROOT, 'examples/sim-master.yaml'),
      '--runner-config',
      join(REPO_ROOT, 'examples/runners.yaml'),
      '--max-conc',
      '2',
      '--sim-time-scale',
      '50',
      '--out',
      out,
      '--run-id',
      'example',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = join(out, 'example');
    const manifest = RunManifestSchema.parse(readJson(join(runDir, 'manifest.json')));
    expect(manifest.source.kind).toBe('configs');
    if (manifest.source.kind === 'configs') {
      expect(manifest.source.selectedKeys).toContain('llama8b-bf16-h100-vllm');
      expect(manifest.source.configFiles[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(manifest.points.length).toBeGreaterThanOrEqual(2);
    expect(pointsOf(runDir)).toEqual(manifest.points.map((p) => p.pointId).sort());
    for (const p of manifest.points) {
      const dir = join(runDir, 'points', p.pointId, 'attempt-1');
      const point = PointAttemptSchema.parse(readJson(join(dir, 'point.json')));
      expect(point.launch?.kind).toBe('sim');
      expect(statusOf(runDir, p.pointId, 1)).toMatchObject({ status: 'ok', phase: null, valid: true });
      const result = PointResultSchema.parse(readJson(join(dir, 'result.json')));
      expect(result.load.concurrency).toBe(p.conc);
      expect(result.workload).toMatchObject({ isl: 1024, osl: 1024 });
      const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n');
      assertFixedSeqLen(p.bench);
      expect(lines).toHaveLength(p.bench.numPrompts + p.bench.warmup);
      expect(readFileSync(join(dir, 'server.log'), 'utf8')).toContain('listening on');
    }
    expect(r.stdout).toContain(`${manifest.points.length} ok this sweep, 0 failed`);
    expect(processesMentioning(runDir)).toEqual([]);
  }, 120_000);

  it('tells setup from benchmark failures, retries them, and leaves no process behind', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow({ conc: 1 }), smallRow({ conc: 2 }), smallRow({ conc: 4 })]);
    const args = ['--matrix', matrix, '--out', out, '--run-id', 'faults', ...FAST, '--ready-timeout', '3'];
    const r = await infx([
      'sweep',
      ...args,
      '--retries',
      '1',
      '--sim-fault',
      'conc1=no-start',
      'conc2=crash-after:4@1',
      'conc4=hang@1',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const runDir = join(out, 'faults');
    expect(processesMentioning(runDir)).toEqual([]);

    const noStart = pointWith(runDir, 'conc1_');
    expect(attemptsOf(runDir, noStart)).toEqual(['attempt-1', 'attempt-2']);
    const s1 = statusOf(runDir, noStart, 2);
    expect(s1).toMatchObject({ status: 'failed', phase: 'setup', interrupted: false });
    expect(s1.reason).toMatch(/exited before it was ready \(exit code 1\)/);
    expect(s1.logTail.join('\n')).toContain('simulated start-up failure');

    const crash = pointWith(runDir, 'conc2_');
    const c1 = statusOf(runDir, crash, 1);
    expect(c1).toMatchObject({ status: 'failed', phase: 'benchmark' });
    expect(c1.reason).toMatch(/died during the benchmark \(signal SIGKILL\)/);
    expect(c1.engineExit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(statusOf(runDir, crash, 2).status).toBe('ok');

    const hang = pointWith(runDir, 'conc4_');
    const h1 = statusOf(runDir, hang, 1);
    expect(h1).toMatchObject({ status: 'failed', phase: 'setup' });
    expect(h1.reason).toMatch(/not ready after 3 s/);
    expect(statusOf(runDir, hang, 2).status).toBe('ok');

    const status = await infx(['sweep', 'status', runDir]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/2 done, 1 failed, 0 pending of 3/);
    expect(status.stdout).toMatch(
      /done {4}\S*conc2_\S* {2}\[2 attempts\] {2}\d+s, \d+ tok\/s\/GPU at [\d.]+ tok\/s\/user/,
    );
    expect(status.stdout).toMatch(/failed {2}\S*conc1_\S* {2}\[2 attempts\] {2}setup: /);

    // Later, the failed point alone runs again as attempt 3; the others are left as they are.
    const retry = await infx(['sweep', 'retry', runDir, '--failed-only', '--retries', '0']);
    expect(retry.code, retry.stderr).toBe(1);
    expect(attemptsOf(runDir, noStart)).toEqual(['attempt-1', 'attempt-2', 'attempt-3']);
    expect(attemptsOf(runDir, crash)).toHaveLength(2);
    expect(attemptsOf(runDir, hang)).toHaveLength(2);
    expect(processesMentioning(runDir)).toEqual([]);
  }, 120_000);

  it('resumes a sweep killed halfway without running any finished point twice', async () => {
    const out = tmpDir();
    const rows = [1, 2, 3, 4, 5].map((conc) => smallRow({ conc }));
    const matrix = writeMatrix(out, rows);
    const runDir = join(out, 'killed');
    const { child, finished } = spawnInfx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--run-id',
      'killed',
      ...FAST,
    ]);
    const okCount = () =>
      existsSync(join(runDir, 'points'))
        ? pointsOf(runDir).filter((id) => {
            const path = join(runDir, 'points', id, 'attempt-1', 'status.json');
            return existsSync(path) && statusOf(runDir, id, 1).status === 'ok';
          }).length
        : 0;
    expect(await eventually(() => okCount() >= 2, 60_000)).toBe(true);
    child.kill('SIGKILL');
    await finished;
    const doneBefore = pointsOf(runDir).filter((id) => {
      const path = join(runDir, 'points', id, 'attempt-1', 'status.json');
      return existsSync(path) && statusOf(runDir, id, 1).status === 'ok';
    });
    // The point process notices its sweep is gone and takes its engine down with it.
    expect(await eventually(() => processesMentioning(runDir).length === 0, 20_000)).toBe(true);

    const resumed = await infx(['sweep', '--resume', 'killed', '--out', out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`(+${doneBefore.length} done before)`);
    const manifest = RunManifestSchema.parse(readJson(join(runDir, 'manifest.json')));
    for (const p of manifest.points) {
      const attempts = attemptsOf(runDir, p.pointId);
      // The attempt the kill cut short may have no status.json: resume measures that point again.
      const oks = attempts.filter(
        (a) =>
          existsSync(join(runDir, 'points', p.pointId, a, 'status.json')) &&
          statusOf(runDir, p.pointId, Number(a.slice(8))).status === 'ok',
      );
      expect(oks, p.pointId).toHaveLength(1);
      if (doneBefore.includes(p.pointId)) expect(attempts).toEqual(['attempt-1']);
    }
    expect(processesMentioning(runDir)).toEqual([]);
  }, 120_000);

  it('fail-fast skips the rest of the failed bucket only; a failed canary stops everything', async () => {
    const out = tmpDir();
    const other = smallRow({ conc: 1, isl: 128, osl: 32, 'exp-name': 'llama8b_128_32' });
    const matrix = writeMatrix(out, [
      smallRow({ conc: 1 }),
      smallRow({ conc: 2 }),
      smallRow({ conc: 4 }),
      other,
    ]);
    const r = await infx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--run-id',
      'ff',
      ...FAST,
      '--fail-fast',
      '--sim-fault',
      'llama8b_256_64_bf16_vllm_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc1_=crash-after:3',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/1 ok this sweep, 1 failed, 2 not run/);
    expect(r.stdout).toMatch(/not run +\S*conc2_\S*: fail-fast: \S*conc1_\S* failed in benchmark/);
    expect(existsSync(join(out, 'ff', 'points', pointWith(join(out, 'ff'), '128_32'), 'attempt-1'))).toBe(
      true,
    );

    const k1 = smallRow({ conc: 2, isl: 1024, osl: 1024, 'exp-name': 'llama8b_1k1k' });
    const k2 = smallRow({ conc: 1, isl: 1024, osl: 1024, 'exp-name': 'llama8b_1k1k' });
    const canaryMatrix = writeMatrix(out, [k1, k2, other], 'canary.json');
    const plan = await infx(['sweep', '--matrix', canaryMatrix, '--out', out, '--canary', '--dry-run']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^1\. \[canary\] llama8b_1k1k_\S*conc1_/m);
    const c = await infx([
      'sweep',
      '--matrix',
      canaryMatrix,
      '--out',
      out,
      '--run-id',
      'canary',
      ...FAST,
      '--canary',
      '--sim-fault',
      '#1=no-start',
    ]);
    expect(c.code).toBe(1);
    expect(c.stdout).toContain('the canary failed, so no other point ran');
    const canaryDir = join(out, 'canary');
    expect(pointsOf(canaryDir).filter((id) => attemptsOf(canaryDir, id).length > 0)).toHaveLength(1);
  }, 120_000);

  it('prints the plan with --dry-run and writes nothing', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow({ conc: 2 })]);
    const r = await infx(['sweep', '--matrix', matrix, '--out', join(out, 'runs'), '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 point, 1 GPU-slot in all; executor local/);
    expect(r.stdout).toMatch(
      /server: \S+ \S+bin\/infx\.js sim serve --point \S+ --host 127\.0\.0\.1 --port 8000/,
    );
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });

  it('takes a relative --out (engines run in the attempt directory, so paths are made absolute)', async () => {
    const dir = tmpDir();
    writeMatrix(dir, [smallRow({ conc: 1 })]);
    const r = await infx(
      ['sweep', '--matrix', 'matrix.json', '--out', 'runs', '--run-id', 'rel', ...FAST],
      {},
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'runs/rel/manifest.json'))).toBe(true);
  }, 60_000);

  it('runs one point from a plain matrix row with sweep point (what each job runs)', async () => {
    const out = tmpDir();
    const row = writeMatrix(out, [smallRow({ conc: 3 })], 'row.json');
    const dir = join(out, 'attempt');
    const r = await infx(['sweep', 'point', '--point', row, '--out', dir, ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/conc3_h100 attempt 1: ok/);
    for (const f of ['point.json', 'status.json', 'result.json', 'requests.jsonl', 'server.log'])
      expect(existsSync(join(dir, f)), f).toBe(true);
    expect(PointResultSchema.parse(readJson(join(dir, 'result.json'))).load.concurrency).toBe(3);
  }, 60_000);

  it('explains bad input and bad flags', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow()]);
    const none = await infx(['sweep', '--out', out]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--config-files (with filters) or --matrix rows.json');
    const resume = await infx(['sweep', '--resume', 'nope', '--out', out]);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain(`no run nope in ${out}`);
    const fault = await infx(['sweep', '--matrix', matrix, '--out', out, '--sim-fault', 'x=explode']);
    expect(fault.code).toBe(1);
    expect(fault.stderr).toContain("--sim-fault 'x=explode': expected SELECTOR=");
    const nomatch = await infx([
      'sweep',
      '--matrix',
      matrix,
      '--out',
      out,
      '--sim-fault',
      'zzz=no-start',
      '--dry-run',
    ]);
    expect(nomatch.stderr).toContain("--sim-fault 'zzz' matches no point");
    const badRows = writeMatrix(out, [{ model: 'm' } as never], 'bad.json');
    const bad = await infx(['sweep', '--matrix', badRows, '--out', out]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not a generated matrix \(row 0/);
    const row = writeMatrix(out, [smallRow({ conc: 1 })], 'one.json');
    expect((await infx(['sweep', '--matrix', row, '--out', out, '--run-id', 'twice', ...FAST])).code).toBe(0);
    const again = await infx(['sweep', '--matrix', row, '--out', out, '--run-id', 'twice']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('run twice already exists');
    expect(again.stderr).toContain('--resume twice');
  }, 60_000);
});
