import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import type { EngineLaunch, EngineProcess } from '../schema/engine-launch.ts';
import { EngineStartError, startEngine, waitUntilReady } from './process.ts';

/** Readiness of a launch with workers behind a router: every worker's own probe and the router's. */

let servers: Server[] = [];
afterEach(() => {
  for (const s of servers) s.close();
  servers = [];
});

/** An HTTP server whose GET /health answers `status()`; counts the probes it got. */
async function healthServer(status: () => number): Promise<{ port: number; probes: () => number }> {
  let probes = 0;
  const server = createServer((req, res) => {
    if (req.url === '/health') probes++;
    res.writeHead(req.url === '/health' ? status() : 404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { port: (server.address() as { port: number }).port, probes: () => probes };
}

const proc = (role: EngineProcess['role'], port: number, readyPath?: string): EngineProcess => ({
  role,
  argv: ['bash', '-c', 'sleep 30'],
  env: {},
  files: [],
  port,
  nodes: 1,
  gpus: role === 'router' ? 0 : 4,
  ...(readyPath ? { readyPath } : {}),
});

const launchOf = (processes: EngineProcess[]): EngineLaunch => ({
  kind: 'recipe',
  framework: 'vllm',
  recipe: null,
  container: 'none',
  image: null,
  processes,
  baseUrl: `http://127.0.0.1:${processes[processes.length - 1]!.port}`,
  readyPath: '/health',
  servedModel: 'm',
});

describe('readiness of workers behind a router', () => {
  it('names the worker that is not ready and probes the router only once every worker is', async () => {
    let secondUp = 503;
    const w0 = await healthServer(() => 200);
    const w1 = await healthServer(() => secondUp);
    const front = await healthServer(() => 200);
    const l = launchOf([
      proc('server', w0.port, '/health'),
      proc('server', w1.port, '/health'),
      proc('router', front.port),
    ]);
    const dir = tmpDir();
    const engine = await startEngine(l, { cwd: dir, logPath: join(dir, 'e.log') });
    try {
      const err = await waitUntilReady(l, engine, { timeoutMs: 300, intervalMs: 20 }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EngineStartError);
      expect((err as Error).message).toBe(
        `the engine's server 1 (port ${w1.port}) was not ready after 0 s (GET http://127.0.0.1:${w1.port}/health never answered 200)`,
      );
      expect(w0.probes()).toBeGreaterThan(0);
      expect(front.probes()).toBe(0);
      secondUp = 200;
      await waitUntilReady(l, engine, { timeoutMs: 5000, intervalMs: 20 });
      expect(front.probes()).toBeGreaterThan(0);
    } finally {
      await engine.stop(1000);
    }
  });

  it('names the router when the workers are ready and it is not', async () => {
    const w0 = await healthServer(() => 200);
    const front = await healthServer(() => 503);
    const l = launchOf([proc('decode', w0.port, '/health'), proc('router', front.port)]);
    const dir = tmpDir();
    const engine = await startEngine(l, { cwd: dir, logPath: join(dir, 'e.log') });
    try {
      await expect(waitUntilReady(l, engine, { timeoutMs: 300, intervalMs: 20 })).rejects.toThrow(
        `the engine's router was not ready after 0 s (GET http://127.0.0.1:${front.port}/health never answered 200)`,
      );
    } finally {
      await engine.stop(1000);
    }
  });
});
