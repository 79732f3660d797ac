import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/**
 * The interrupt helper of bench, sweep and the demo (src/cli/signals.ts onInterrupt), with real signals
 * sent to a child process: the first stops gracefully and says so, a second exits 130 at once.
 */

let entry = '';
beforeAll(async () => {
  entry = join(tmpDir('infx-interrupt-'), 'entry.mjs');
  await build({
    entryPoints: [join(REPO_ROOT, 'test/interrupt-entry.ts')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
  });
}, 60_000);

interface Child {
  child: ChildProcess;
  out: () => string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  waitFor: (text: string) => Promise<void>;
}

function start(...args: string[]): Child {
  const child = spawn(process.execPath, [entry, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const waitFor = async (text: string) => {
    for (let i = 0; i < 400 && !out.includes(text); i++) await new Promise((r) => setTimeout(r, 25));
    expect(out).toContain(text);
  };
  return { child, out: () => out, exited, waitFor };
}

describe('onInterrupt', () => {
  it('the first Ctrl-C stops gracefully and says so; the command ends on its own', async () => {
    const c = start('default', '200');
    await c.waitFor('ready');
    c.child.kill('SIGINT');
    const [code, signal] = await c.exited;
    expect(signal).toBeNull();
    expect(code).toBe(3);
    expect(c.out()).toBe('ready\nstopping\nstopped\n');
  }, 30_000);

  it('a second Ctrl-C does not wait: exit 130 at once', async () => {
    const c = start('default', '60000');
    await c.waitFor('ready');
    c.child.kill('SIGINT');
    await c.waitFor('stopping');
    const t0 = Date.now();
    c.child.kill('SIGINT');
    const [code] = await c.exited;
    expect(code).toBe(130);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(c.out()).toBe('ready\nstopping\n');
  }, 30_000);

  it.each(['SIGTERM', 'SIGHUP'] as const)(
    '%s stops gracefully too',
    async (sig) => {
      const c = start('default', '100');
      await c.waitFor('ready');
      c.child.kill(sig);
      const [code] = await c.exited;
      expect(code).toBe(3);
      expect(c.out()).toContain('stopping\nstopped\n');
    },
    30_000,
  );

  it('listens only to the signals it is given (the demo: Ctrl-C only)', async () => {
    const c = start('sigint-only', '100');
    await c.waitFor('ready');
    c.child.kill('SIGTERM');
    const [code, signal] = await c.exited;
    expect(code).toBeNull();
    expect(signal).toBe('SIGTERM');
    expect(c.out()).toBe('ready\n');
  }, 30_000);

  it('stops listening once disposed', async () => {
    const c = start('dispose');
    await c.waitFor('ready');
    c.child.kill('SIGINT');
    const [, signal] = await c.exited;
    expect(signal).toBe('SIGINT');
    expect(c.out()).toBe('ready\n');
  }, 30_000);
});
