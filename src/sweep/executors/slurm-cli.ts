import { execFile } from 'node:child_process';
import { InfxError } from '../../schema/errors.ts';
import {
  isTerminal,
  type JobState,
  parseSacct,
  parseScontrolJobs,
  parseSqueue,
  SACCT_FIELDS,
  SQUEUE_FORMAT,
} from './slurm-parse.ts';

/**
 * The Slurm command-line tools (sbatch, squeue, scontrol, sacct, scancel), each spawned without a shell and
 * with a timeout. Everything here talks to a live cluster; the parsing lives in slurm-parse.ts.
 */

export type { JobState, JobStateName } from './slurm-parse.ts';
export { isTerminal, JOB_STATES, normalizeState } from './slurm-parse.ts';
export type { GpuRequest, JobComponent, JobScriptSpec } from './slurm-script.ts';
export { JobScriptError, jobScript } from './slurm-script.ts';

/** A Slurm command that failed: which, how (exit code or timeout), and what it printed on stderr. */
export class SlurmError extends InfxError {
  override name = 'SlurmError';
  constructor(
    message: string,
    readonly command: string,
    readonly stderr: string,
    readonly commandExitCode: number | null,
  ) {
    super(message);
  }
}

interface RunOptions {
  input?: string;
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

const QUERY_TIMEOUT_MS = 20_000;
const SUBMIT_TIMEOUT_MS = 60_000;

function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<string> {
  const timeout = opts.timeoutMs ?? QUERY_TIMEOUT_MS;
  const shown = [cmd, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      {
        timeout,
        maxBuffer: 64 * 1024 * 1024,
        ...(opts.cwd !== undefined && { cwd: opts.cwd }),
        ...(opts.env !== undefined && { env: { ...process.env, ...opts.env } }),
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        const text = String(stderr).trim();
        if (e.code === 'ENOENT') {
          return reject(new SlurmError(`${cmd} not found on PATH: is Slurm installed?`, shown, text, null));
        }
        if (e.killed) {
          return reject(new SlurmError(`${shown} timed out after ${timeout / 1000}s`, shown, text, null));
        }
        const code = typeof e.code === 'number' ? e.code : null;
        const why = text || String(stdout).trim().split('\n')[0] || e.message;
        reject(new SlurmError(`${shown} failed (exit ${code ?? '?'}): ${why}`, shown, text, code));
      },
    );
    // sbatch reads the script from stdin; the others must not wait on an inherited one.
    child.stdin?.on('error', () => {});
    child.stdin?.end(opts.input ?? '');
  });
}

/** Whether sbatch is on PATH and the controller answers, with the Slurm version (`slurm-wlm 22.05.8`). */
export async function slurmAvailable(): Promise<
  { ok: true; version: string } | { ok: false; reason: string }
> {
  let version: string;
  try {
    version = (await run('sbatch', ['--version'], { timeoutMs: 10_000 })).trim();
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  try {
    // scontrol ping fails at once when slurmctld is down, where sinfo retries for seconds.
    const ping = await run('scontrol', ['ping'], { timeoutMs: 10_000 });
    if (!/\bUP\b/.test(ping)) return { ok: false, reason: `slurmctld is not up: ${ping.trim()}` };
    await run('sinfo', ['-h', '-o', '%P']);
  } catch (err) {
    return {
      ok: false,
      reason: `${version} is installed but the cluster does not answer: ${(err as Error).message}`,
    };
  }
  return { ok: true, version };
}

/** Submits a batch script (given as text, sent on stdin) and returns the job id. */
export async function submitJob(
  script: string,
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> {
  const out = await run('sbatch', ['--parsable'], { ...opts, input: script, timeoutMs: SUBMIT_TIMEOUT_MS });
  // --parsable prints `ID` or `ID;CLUSTER`.
  const id = out.trim().split('\n').pop()?.split(';')[0]?.trim() ?? '';
  if (!/^\d+$/.test(id))
    throw new SlurmError(`sbatch printed no job id: ${JSON.stringify(out)}`, 'sbatch', '', 0);
  return id;
}

const JOB_ID = /^\d+(_\d+)?$/;

function checkIds(ids: readonly string[]): void {
  const bad = ids.find((id) => !JOB_ID.test(id));
  if (bad !== undefined) throw new SlurmError(`not a Slurm job id: ${JSON.stringify(bad)}`, '', '', null);
}

const invalidId = (err: unknown): boolean =>
  err instanceof SlurmError && /Invalid job id specified/i.test(err.stderr || err.message);

/**
 * States of the given jobs: squeue for the active ones (one call), `scontrol show job` for those that ended
 * (kept MinJobAge seconds after the end), then sacct where accounting is on; UNKNOWN when none knows the job.
 */
export async function jobStates(ids: readonly string[]): Promise<Map<string, JobState>> {
  checkIds(ids);
  const wanted = [...new Set(ids)];
  const out = new Map<string, JobState>();
  if (wanted.length === 0) return out;
  try {
    const queued = parseSqueue(
      await run('squeue', ['-h', '-o', SQUEUE_FORMAT, `--jobs=${wanted.join(',')}`]),
    );
    for (const id of wanted) {
      const s = queued.get(id);
      // squeue has no exit code: a job it shows as ended is asked again below.
      if (s && !isTerminal(s.state)) out.set(id, s);
    }
  } catch (err) {
    if (!invalidId(err)) throw err; // every id already left squeue
  }
  const gone = wanted.filter((id) => !out.has(id));
  await Promise.all(
    gone.map(async (id) => {
      try {
        const s = parseScontrolJobs(await run('scontrol', ['show', 'job', '-o', id])).get(id);
        if (s) out.set(id, s);
      } catch (err) {
        if (!invalidId(err)) throw err;
      }
    }),
  );
  const old = wanted.filter((id) => !out.has(id));
  if (old.length > 0) {
    try {
      const text = await run('sacct', ['-n', '-P', '-X', '-o', SACCT_FIELDS, `--jobs=${old.join(',')}`]);
      for (const [id, s] of parseSacct(text)) if (old.includes(id)) out.set(id, s);
    } catch {
      // accounting storage is off (the default of a small cluster): nothing more to learn
    }
  }
  for (const id of wanted) {
    if (!out.has(id)) out.set(id, { state: 'UNKNOWN', exitCode: null, reason: null, nodes: null });
  }
  return out;
}

/**
 * Cancels jobs (SIGTERM, then SIGKILL after the cluster's KillWait), or with `signal` only sends that signal
 * (`TERM`, `USR1`, `9`), to the batch script as well as the steps. Jobs that already ended are no error.
 */
export async function cancelJobs(ids: readonly string[], opts: { signal?: string } = {}): Promise<void> {
  checkIds(ids);
  if (ids.length === 0) return;
  const args: string[] = [];
  if (opts.signal !== undefined) {
    if (!/^(SIG)?[A-Z0-9]+$/i.test(opts.signal)) {
      throw new SlurmError(`not a signal name: ${JSON.stringify(opts.signal)}`, 'scancel', '', null);
    }
    args.push(`--signal=${opts.signal.replace(/^SIG/i, '')}`, '--full');
  }
  try {
    await run('scancel', [...args, ...ids]);
  } catch (err) {
    const text = err instanceof SlurmError ? err.stderr : '';
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    const harmless = (l: string) => /already completing or completed|Invalid job id specified/i.test(l);
    if (lines.length === 0 || !lines.every(harmless)) throw err;
  }
}
