import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cancelJobs,
  isTerminal,
  type JobScriptSpec,
  type JobState,
  jobScript,
  jobStates,
  SlurmError,
  slurmAvailable,
  submitJob,
} from '../src/sweep/executors/slurm-cli.ts';
import { tmpDir } from './helpers.ts';

/**
 * Against a real Slurm cluster (on this host: `sudo scripts/dev-slurm.sh start`). Skipped, saying why, where
 * there is none; with INFX_REQUIRE_SLURM=1 (CI) a missing cluster fails instead.
 */

const available = await slurmAvailable();
const required = process.env.INFX_REQUIRE_SLURM === '1';
const HOW = /not found on PATH/.test(available.ok ? '' : available.reason)
  ? 'install and start one with: sudo scripts/dev-slurm.sh install && sudo scripts/dev-slurm.sh start'
  : 'start one with: sudo scripts/dev-slurm.sh start';
if (!available.ok && !required) console.warn(`skipping Slurm cluster tests: ${available.reason} (${HOW})`);

const WAIT_MS = 60_000;
const POLL_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `done` holds for the job's state; fails with the last state seen after WAIT_MS. */
async function waitForJob(id: string, what: string, done: (s: JobState) => boolean): Promise<JobState> {
  const deadline = Date.now() + WAIT_MS;
  let last: JobState | undefined;
  while (Date.now() < deadline) {
    last = (await jobStates([id])).get(id);
    if (last && done(last)) return last;
    await sleep(POLL_MS);
  }
  throw new Error(`job ${id}: not ${what} after ${WAIT_MS / 1000}s (last state ${JSON.stringify(last)})`);
}

async function waitFor(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: still not true after ${WAIT_MS / 1000}s`);
    await sleep(POLL_MS);
  }
}

function processAlive(pid: number): boolean {
  try {
    execFileSync('ps', ['-o', 'pid=', '-p', String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false; // ps exits 1 when no such process
  }
}

function spec(
  dir: string,
  name: string,
  command: string[],
  extra: Partial<JobScriptSpec> = {},
): JobScriptSpec {
  return { name, output: join(dir, `${name}-%j.log`), workDir: dir, command, timeLimitMinutes: 5, ...extra };
}

describe('Slurm cluster', () => {
  it.runIf(required)('is available (INFX_REQUIRE_SLURM=1)', () => {
    if (!available.ok)
      throw new Error(`INFX_REQUIRE_SLURM=1 but no Slurm cluster: ${available.reason} (${HOW})`);
    expect(available.version).toMatch(/\d+\.\d+/);
  });
});

describe.skipIf(!available.ok)('real Slurm jobs', () => {
  it('runs a job to COMPLETED with exit code 0, in its work dir with its env', async () => {
    const dir = tmpDir('infx-slurm-');
    const script = jobScript(
      spec(dir, 'ok', ['bash', '-c', 'echo "$GREETING $SLURM_JOB_ID" > "out file.txt"; sleep 1'], {
        env: { GREETING: "hello 'slurm'" },
      }),
    );
    const id = await submitJob(script, { cwd: dir });
    const end = await waitForJob(id, 'finished', (s) => isTerminal(s.state));
    expect(end).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(end.nodes).toBeTruthy();
    expect(readFileSync(join(dir, 'out file.txt'), 'utf8')).toBe(`hello 'slurm' ${id}\n`);
    expect(existsSync(join(dir, `ok-${id}.log`))).toBe(true);
  });

  it('reports a job that exits 3 as FAILED with exit code 3', async () => {
    const dir = tmpDir('infx-slurm-');
    const id = await submitJob(jobScript(spec(dir, 'fail', ['bash', '-c', 'echo failing >&2; exit 3'])));
    const end = await waitForJob(id, 'finished', (s) => isTerminal(s.state));
    expect(end).toMatchObject({ state: 'FAILED', exitCode: 3 });
    expect(readFileSync(join(dir, `fail-${id}.log`), 'utf8')).toContain('failing');
  });

  it('cancels a running job: CANCELLED, and its process is gone', async () => {
    const dir = tmpDir('infx-slurm-');
    const pidFile = join(dir, 'pid');
    const command = ['bash', '-c', 'echo $$ > "$1"; exec sleep 60', 'job', pidFile];
    const id = await submitJob(jobScript(spec(dir, 'long', command)));
    await waitForJob(id, 'RUNNING', (s) => s.state === 'RUNNING' || isTerminal(s.state));
    await waitFor(
      `job ${id} writing ${pidFile}`,
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '',
    );
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(processAlive(pid)).toBe(true);

    await cancelJobs([id]);
    const end = await waitForJob(id, 'finished', (s) => isTerminal(s.state));
    expect(end.state).toBe('CANCELLED');
    await waitFor(`process ${pid} of job ${id} exiting`, () => !processAlive(pid));
    await cancelJobs([id]); // cancelling a job that ended is no error
  });

  it('sends a signal with cancelJobs({ signal }) to the exec’d command', async () => {
    const dir = tmpDir('infx-slurm-');
    const trap = 'trap "echo got USR1 > usr1; exit 0" USR1; echo ready > ready; while :; do sleep 0.1; done';
    const id = await submitJob(jobScript(spec(dir, 'sig', ['bash', '-c', trap])));
    await waitFor(`job ${id} starting`, () => existsSync(join(dir, 'ready')));
    await cancelJobs([id], { signal: 'SIGUSR1' });
    const end = await waitForJob(id, 'finished', (s) => isTerminal(s.state));
    expect(end).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(readFileSync(join(dir, 'usr1'), 'utf8')).toBe('got USR1\n');
  });

  it('reports a heterogeneous job as one job id', async () => {
    const dir = tmpDir('infx-slurm-');
    const script = jobScript(
      spec(dir, 'het', ['sleep', '30'], { components: [{ nodes: 1 }, { nodes: 1, ntasks: 1 }] }),
    );
    const id = await submitJob(script);
    try {
      // One node cannot hold both components, so on the dev cluster it stays pending; either way it is one job.
      const s = (await jobStates([id])).get(id);
      expect(['PENDING', 'RUNNING']).toContain(s?.state);
    } finally {
      await cancelJobs([id]);
    }
    expect((await waitForJob(id, 'finished', (s) => isTerminal(s.state))).state).toBe('CANCELLED');
  });

  it("fails submission with sbatch's own message", async () => {
    const dir = tmpDir('infx-slurm-');
    const script = jobScript(spec(dir, 'bad', ['true'], { partition: 'no-such-partition' }));
    const err = await submitJob(script).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SlurmError);
    expect((err as SlurmError).stderr).toMatch(/partition/i);
    expect((err as SlurmError).message).toMatch(/sbatch --parsable failed/);
  });

  it('says UNKNOWN for a job id Slurm does not know', async () => {
    const states = await jobStates(['999999999']);
    expect(states.get('999999999')).toEqual({ state: 'UNKNOWN', exitCode: null, reason: null, nodes: null });
  });
});
