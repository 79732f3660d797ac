import { spawn } from 'node:child_process';
import { BotError } from './errors.ts';

/**
 * The bot's clone: a PR's head and base fetched and the head checked out (detached, untracked files
 * removed), one PR at a time, since they share the one work tree; and infx run in it as a child process
 * with a time limit and bounded output.
 */

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 32 * 1024 * 1024;

export function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const take = (into: Buffer[]) => (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT) child.kill('SIGKILL');
      else into.push(b);
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new BotError(`cannot run ${cmd}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr:
          signal === null
            ? stderr
            : `${stderr}\n(stopped by ${signal}: over ${timeoutMs / 1000} s or ${MAX_OUTPUT} bytes of output)`,
      });
    });
  });
}

async function git(dir: string, args: string[]): Promise<Ran> {
  return run('git', args, dir, 5 * 60_000, { ...process.env, GIT_TERMINAL_PROMPT: '0' });
}

const hasCommit = async (dir: string, sha: string) =>
  (await git(dir, ['cat-file', '-e', `${sha}^{commit}`])).code === 0;

let lock: Promise<unknown> = Promise.resolve();

/** One checkout at a time: the clone has one work tree. */
function serialized<T>(fn: () => Promise<T>): Promise<T> {
  const next = lock.then(fn, fn);
  lock = next.catch(() => {});
  return next;
}

/** `fn` with the PR's head checked out in the clone, no other checkout until it is done. */
export function withCheckout<T>(
  dir: string,
  remote: string,
  pr: number,
  t: { headSha: string; baseSha: string },
  fn: () => Promise<T>,
): Promise<T> {
  return serialized(async () => {
    if (!(await hasCommit(dir, t.headSha)) || !(await hasCommit(dir, t.baseSha))) {
      const fetched = await git(dir, [
        'fetch',
        '--quiet',
        '--no-tags',
        remote,
        `+refs/pull/${pr}/head:refs/infx/pull/${pr}`,
        '+refs/heads/*:refs/infx/heads/*',
      ]);
      if (fetched.code !== 0)
        throw new BotError(`git fetch ${remote} in ${dir} failed: ${fetched.stderr.trim()}`);
    }
    for (const sha of [t.headSha, t.baseSha])
      if (!(await hasCommit(dir, sha)))
        throw new BotError(
          `commit ${sha} is not in ${remote} (fetched refs/pull/${pr}/head and the branches)`,
        );
    // A PR's symlink (configs/x.yaml -> /etc/...) is checked out as a file holding its target, so infx never
    // reads, and posts, a file of the bot's host.
    const co = await git(dir, [
      '-c',
      'core.symlinks=false',
      'checkout',
      '--quiet',
      '--force',
      '--detach',
      t.headSha,
    ]);
    if (co.code !== 0) throw new BotError(`git checkout ${t.headSha} in ${dir} failed: ${co.stderr.trim()}`);
    await git(dir, ['clean', '-ffdxq']);
    return fn();
  });
}

/** infx run in the clone (inside withCheckout). */
export function runInfx(infx: readonly string[], args: string[], dir: string): Promise<Ran> {
  const [cmd, ...pre] = infx as [string, ...string[]];
  return run(cmd, [...pre, ...args], dir, 10 * 60_000, { ...process.env, NO_COLOR: '1' });
}
