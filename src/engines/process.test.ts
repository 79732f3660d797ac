import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import type { EngineLaunch, EngineProcess } from '../schema/engine-launch.ts';
import { allocatePort, releasePort } from './ports.ts';
import { EngineStartError, logTail, startEngine, waitUntilReady } from './process.ts';

/** Real processes: bash scripts standing in for engine servers. */

const proc = (script: string, over: Partial<EngineProcess> = {}): EngineProcess => ({
  role: 'server',
  argv: ['bash', '-c', script],
  env: {},
  files: [],
  port: null,
  nodes: 1,
  gpus: 0,
  ...over,
});

const launch = (processes: EngineProcess[], baseUrl = 'http://127.0.0.1:9'): EngineLaunch => ({
  kind: 'recipe',
  framework: 'vllm',
  recipe: null,
  container: 'none',
  image: null,
  processes,
  baseUrl,
  readyPath: '/health',
  servedModel: 'm',
});

/** Running, not a zombie waiting for a (possibly slow) init to reap it. */
const alive = (pid: number) => {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('engine processes', () => {
  it('writes files first, logs output, and stops a process that ignores SIGTERM with SIGKILL, children included', async () => {
    const dir = tmpDir();
    const log = join(dir, 'server.log');
    const l = launch([
      proc(
        'echo "$GREETING from $(cat opts.yaml)"; trap "" TERM; sleep 60 & echo $! > child.pid; wait; sleep 60',
        {
          env: { GREETING: 'hello' },
          files: [{ path: 'opts.yaml', content: 'yaml' }],
        },
      ),
    ]);
    const engine = await startEngine(l, { cwd: dir, logPath: log });
    const [pid] = engine.pids();
    await new Promise((r) => setTimeout(r, 300));
    const { forced } = await engine.stop(300);
    expect(forced).toBe(true);
    expect(alive(pid as number)).toBe(false);
    expect(alive(Number(readFileSync(join(dir, 'child.pid'), 'utf8')))).toBe(false);
    const text = readFileSync(log, 'utf8');
    expect(text).toContain('=== infx: starting server: bash -c');
    expect(text).toContain('hello from yaml');
    expect(await logTail(log, 1)).toEqual(['hello from yaml']);
  });

  it('is ready when the front answers 200, and fails fast when a process exits first', async () => {
    const dir = tmpDir();
    const server = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const up = launch([proc('sleep 30')], `http://127.0.0.1:${port}`);
      const engine = await startEngine(up, { cwd: dir, logPath: join(dir, 'a.log') });
      await waitUntilReady(up, engine, { timeoutMs: 5000, intervalMs: 50 });
      expect((await engine.stop(2000)).forced).toBe(false);
    } finally {
      server.close();
    }
    const dies = launch([proc('echo "CUDA out of memory" >&2; exit 3')]);
    const engine = await startEngine(dies, { cwd: dir, logPath: join(dir, 'b.log') });
    const err = await waitUntilReady(dies, engine, { timeoutMs: 10_000, intervalMs: 50 }).catch((e) => e);
    expect(err).toBeInstanceOf(EngineStartError);
    expect(err.message).toBe("the engine's server process exited before it was ready (exit code 3)");
    expect(await logTail(join(dir, 'b.log'))).toContain('CUDA out of memory');
    const slow = launch([proc('sleep 30')]);
    const hung = await startEngine(slow, { cwd: dir, logPath: join(dir, 'c.log') });
    await expect(waitUntilReady(slow, hung, { timeoutMs: 200, intervalMs: 50 })).rejects.toThrow(
      /not ready after 0 s \(GET http:\/\/127\.0\.0\.1:9\/health never answered 200\)/,
    );
    await hung.stop(1000);
  });

  it('hands out a port once until it is released', async () => {
    const a = await allocatePort();
    const b = await allocatePort();
    expect(a).not.toBe(b);
    releasePort(a);
    releasePort(b);
  });
});
