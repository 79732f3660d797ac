import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LoadOptions, type LoadRequest, type LoadResult, runLoad } from '../src/client/load.ts';
import { buildPayload, endpointPath } from '../src/client/payload.ts';
import type { Endpoint } from '../src/client/stream-reader.ts';
import type { ScriptedScriptInput } from '../src/schema/scripted-script.ts';
import type { ServerEvent } from '../src/sim/scripted/log.ts';
import { type ScriptedServer, startScriptedServer } from '../src/sim/scripted/server.ts';
import { fixedSeqLenPhases } from '../src/workload/fixed-seq-len-driver.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/** Drives the client's load loop directly against a scripted server on loopback. */

export async function withServer<T>(
  script: ScriptedScriptInput,
  fn: (server: ScriptedServer) => Promise<T>,
): Promise<T> {
  // Timers only (no spinning): the server shares this thread's event loop with the client under test.
  const server = await startScriptedServer(script, { spinMs: 0 });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

export function textRequests(
  n: number,
  maxTokens: number,
  endpoint: Endpoint = 'completions',
): LoadRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    body: buildPayload({ endpoint, model: 'm', ignoreEos: true }, `prompt number ${i}`, maxTokens),
    maxTokens,
    targetInputTokens: 4,
    clientInputTokens: 4,
  }));
}

export function load(
  url: string,
  opts: Partial<LoadOptions> & {
    requests: LoadRequest[];
    warmup?: number;
    arrivalOffsetsMs?: Float64Array | null;
    endpoint?: Endpoint;
    timeoutMs?: number;
  },
): Promise<LoadResult> {
  const { requests, warmup, arrivalOffsetsMs, endpoint = 'completions', timeoutMs, ...rest } = opts;
  return runLoad({
    transport: {
      baseUrl: new URL(url),
      endpoint,
      path: endpointPath(endpoint),
      timeoutMs: timeoutMs ?? 10_000,
      apiKey: null,
    },
    phases: fixedSeqLenPhases(requests, warmup ?? 0, arrivalOffsetsMs ?? null),
    concurrency: 1,
    workers: 1,
    signal: new AbortController().signal,
    ...rest,
    lockstep: opts.lockstep ?? false,
  });
}

export interface ServerProcess {
  url: string;
  /** Stops the server; resolves when it has exited. */
  stop(): Promise<void>;
}

/** An `infx` server command (sim scripted, sim serve) in its own process; it prints "listening on URL". */
export async function spawnServer(args: string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/infx.js'), ...args, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${stderr}`)));
  });
  return {
    url,
    stop: async () => {
      // Stopping twice (a test reads the log, then its finally stops again) is a no-op.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The scripted server in its own process (the built CLI), so its timers never share the client's event
 * loop; its log comes back through --log-file. Needs `npm run build` (npm test builds first).
 */
export async function spawnScripted(
  script: ScriptedScriptInput,
  extra: string[] = [],
): Promise<{ url: string; stop(): Promise<ServerEvent[]> }> {
  const dir = tmpDir('infx-scripted-');
  const scriptPath = join(dir, 'script.json');
  const logPath = join(dir, 'log.jsonl');
  writeFileSync(scriptPath, JSON.stringify(script));
  const server = await spawnServer([
    'sim',
    'scripted',
    '--script',
    scriptPath,
    '--log-file',
    logPath,
    ...extra,
  ]);
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      return readFileSync(logPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ServerEvent)
        .sort((a, b) => a.k - b.k);
    },
  };
}
