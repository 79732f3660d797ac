import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { eventually } from '../../test/sweep-helpers.ts';
import type { EngineLaunch, EngineProcess } from '../schema/engine-launch.ts';
import { processStartTicks } from './groups.ts';
import { allocatePort, releasePort } from './ports.ts';
import {
  EngineStartError,
  logTail,
  PROBE_MAX_BYTES,
  probeReady,
  startEngine,
  waitUntilReady,
} from './process.ts';

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

/**
 * The process that had this pid at `startTicks` is still running, not a zombie waiting for a (possibly slow)
 * init to reap it. The start time matters: with a pid_max of 32,768 and a test suite that spawns thousands of
 * processes, a reaped pid can be handed to a new process before it is checked.
 */
const alive = (pid: number, startTicks: number) => {
  try {
    if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false;
  } catch {
    return false;
  }
  return processStartTicks(pid) === startTicks;
};

function listen(
  server: { listen: (port: number, host: string, cb: () => void) => unknown; address: () => unknown },
  port = 0,
): Promise<number> {
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

/** A TCP server that answers each connection with `answer` once the request has arrived. */
async function rawServer(
  answer: (socket: Socket) => void,
): Promise<{ server: Server; url: URL; drained: () => Promise<void> }> {
  const open = new Set<Socket>();
  const server = createTcpServer((socket) => {
    open.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => open.delete(socket));
    socket.once('data', () => answer(socket));
  });
  const port = await listen(server);
  return {
    server,
    url: new URL(`http://127.0.0.1:${port}/health`),
    drained: async () => {
      for (let i = 0; i < 200 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(open.size).toBe(0);
    },
  };
}

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
    const pid = engine.pids()[0] as number;
    // The child's pid is written after the trap is set: from then on SIGTERM is ignored, however slow the host.
    const pidFile = join(dir, 'child.pid');
    expect(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'))).toBe(
      true,
    );
    const childPid = Number(readFileSync(pidFile, 'utf8'));
    const pidTicks = processStartTicks(pid) ?? Number.NaN;
    const childTicks = processStartTicks(childPid) ?? Number.NaN;
    expect(alive(pid, pidTicks)).toBe(true);
    expect(alive(childPid, childTicks)).toBe(true);
    const { forced } = await engine.stop(300);
    expect(forced).toBe(true);
    expect(alive(pid, pidTicks)).toBe(false);
    // stop() resolves on the leader's exit; the kernel finishes killing the rest of the group a moment later
    // (a busy host has shown a child not yet a zombie at that instant), so the child gets a few seconds.
    expect(await eventually(() => !alive(childPid, childTicks), 5000)).toBe(true);
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

  it('sees readiness when the engine logs, is interrupted by its signal, and never probes after it returns', async () => {
    const dir = tmpDir();
    const server = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end());
    const port = await listen(server);
    let probes = 0;
    server.on('request', () => probes++);
    server.close(); // nothing listens until the engine "starts"
    const l = launch([proc('sleep 30')], `http://127.0.0.1:${port}`);
    const engine = await startEngine(l, { cwd: dir, logPath: join(dir, 'a.log') });
    try {
      const ready = waitUntilReady(l, engine, { timeoutMs: 10_000, intervalMs: 60_000 });
      await new Promise((r) => setTimeout(r, 50));
      await listen(server, port);
      // The poll interval is a minute: only the log write can wake the wait this soon.
      appendFileSync(join(dir, 'a.log'), 'listening on http://127.0.0.1\n');
      await ready;
      const seen = probes;
      expect(seen).toBe(1);
      await new Promise((r) => setTimeout(r, 50));
      expect(probes).toBe(seen);
      const stop = new AbortController();
      server.close();
      const interrupted = waitUntilReady(l, engine, {
        timeoutMs: 10_000,
        signal: stop.signal,
        intervalMs: 60_000,
      });
      stop.abort();
      await expect(interrupted).rejects.toThrow('interrupted while waiting for the engine');
    } finally {
      server.close();
      await engine.stop(1000);
    }
  });

  it('reads no more of an answer than its status line: endless bodies, silence and garbage never hang a probe', async () => {
    // 200 with a body that never ends: ready, from the status line alone.
    const endless = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n');
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
      };
      socket.on('drain', pump);
      pump();
    });
    // 503 with an endless body: answered, not ready.
    const busy = await rawServer((socket) => {
      socket.write('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      const chunk = Buffer.alloc(64 * 1024, 'y');
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
      };
      socket.on('drain', pump);
      pump();
    });
    // Accepts and never says a word; and one that sends bytes but never a line.
    const silent = await rawServer(() => {});
    const garbage = await rawServer((socket) => {
      const chunk = Buffer.alloc(PROBE_MAX_BYTES, 'z');
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
      };
      socket.on('drain', pump);
      pump();
    });
    try {
      expect(await probeReady(endless.url, 5000)).toBe('ready');
      expect(await probeReady(busy.url, 5000)).toBe('answered');
      expect(await probeReady(silent.url, 100)).toBe('none');
      expect(await probeReady(garbage.url, 5000)).toBe('none');
      expect(await probeReady(new URL('http://127.0.0.1:9/health'), 5000)).toBe('none');
      // The whole wait, against servers that never become ready: the timeout, never a hang.
      const dir = tmpDir();
      for (const s of [busy, silent, garbage]) {
        const l = launch([proc('sleep 30')], s.url.origin);
        const engine = await startEngine(l, { cwd: dir, logPath: join(dir, 'e.log') });
        await expect(waitUntilReady(l, engine, { timeoutMs: 300 })).rejects.toThrow(/not ready after 0 s/);
        await engine.stop(1000);
      }
      // Every probe hung up: no connection is left open on any server.
      for (const s of [endless, busy, silent, garbage]) await s.drained();
    } finally {
      for (const s of [endless, busy, silent, garbage]) s.server.close();
    }
  });

  it('hands out a port once until it is released', async () => {
    const a = await allocatePort();
    const b = await allocatePort();
    expect(a).not.toBe(b);
    releasePort(a);
    releasePort(b);
  });
});
