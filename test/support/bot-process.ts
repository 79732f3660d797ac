import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BotHealth } from '../../src/schema/github-webhooks.ts';
import { REPO_ROOT, tmpDir } from '../helpers.ts';
import { SECRET } from './bot-deliveries.ts';

/** `infx bot serve` as a process (bin/infx.js), on a free port, until stopped. */

export interface BotProcess {
  /** Where deliveries are POSTed. */
  hook: string;
  url: string;
  stderr(): string;
  health(): Promise<BotHealth>;
  /** Waits until every accepted delivery is handled; its health then. */
  settle(): Promise<BotHealth>;
  stop(): Promise<void>;
}

export function botFiles(): { dir: string; secret: string; token: string } {
  const dir = tmpDir('infx-bot-');
  writeFileSync(join(dir, 'secret'), `${SECRET}\n`);
  writeFileSync(join(dir, 'token'), 'ghp_test_token\n');
  return { dir, secret: join(dir, 'secret'), token: join(dir, 'token') };
}

export async function startBot(args: string[]): Promise<BotProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bin/infx.js'), 'bot', 'serve', '--port', '0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GITHUB_API_URL: '' },
    },
  );
  let out = '';
  let err = '';
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bot did not start: ${err}`)), 20_000);
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /bot listening at (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bot exited ${code}: ${err}`));
    });
  });
  const base = new URL(url).origin;
  const health = async () => (await (await fetch(`${base}/healthz`)).json()) as BotHealth;
  return {
    hook: url,
    url: base,
    stderr: () => err,
    health,
    async settle() {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const h = await health();
        if (h.pending === 0 && h.handled + h.failed === h.accepted) return h;
        if (Date.now() > deadline) throw new Error(`bot did not settle: ${JSON.stringify(h)}\n${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
