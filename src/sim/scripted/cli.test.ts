import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionBody, send, sseData } from '../../../test/support/scripted-http.ts';

/**
 * `infx sim scripted` as a real process: bundles a tiny entry that registers the command the way
 * src/cli/main.ts registers every command, runs it, reads the port from stdout, stops it with SIGTERM.
 */

const repo = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'infx-sim-cli-'));
const entry = join(dir, 'sim-cli.mjs');

beforeAll(async () => {
  await build({
    stdin: {
      contents: [
        "import { Command } from 'commander';",
        "import { processIO } from './src/cli/io.ts';",
        "import { registerSim } from './src/cli/sim.ts';",
        'let code = 0;',
        'const program = new Command().exitOverride();',
        'registerSim(program, processIO, (c) => { code = c; });',
        "try { await program.parseAsync(process.argv.slice(2), { from: 'user' }); } catch { code = 2; }",
        'process.exitCode = code;',
      ].join('\n'),
      resolveDir: repo,
      loader: 'ts',
      sourcefile: 'sim-cli.ts',
    },
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    // commander is CommonJS: give the ES module bundle a require, as scripts/build.mjs does.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function runCli(args: string[]): Proc {
  const child = spawn(process.execPath, [entry, 'sim', 'scripted', ...args], { stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const exit = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function listening(p: Proc): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(p.stdout());
    if (m) return m[1]!;
    if (p.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no listening line; stdout: ${p.stdout()} stderr: ${p.stderr()}`);
}

describe('infx sim scripted', () => {
  it('prints the URL, serves as scripted, logs each request, and stops cleanly on SIGTERM', async () => {
    const log = join(dir, 'events.jsonl');
    const p = runCli([
      '--port',
      '0',
      '--ttft-ms',
      '2',
      '--itl-ms',
      '1',
      '--output-tokens',
      '3',
      '--log-file',
      log,
    ]);
    const url = await listening(p);
    const r = await send(url, '/v1/completions', { body: completionBody() });
    expect(sseData(r.body)).toHaveLength(3 + 2);
    p.child.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(p.stdout()).toBe(`listening on ${url}\n`);
    expect(p.stderr()).toMatch(/^scripted server closed: 1 requests, 1 ok/);
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ k: 0, outcome: 'ok', tokens: 3 });
    expect(events[0].writes).toHaveLength(3);
  });

  it('rejects a bad script naming the file and the key path, exit 1', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ requests: { '0': { fault: { kind: 'truncate' } } } }));
    const p = runCli(['--script', bad]);
    expect(await p.exit).toBe(1);
    expect(p.stdout()).toBe('');
    expect(p.stderr()).toContain(`error: ${bad}: requests.0.fault.afterChunks: required key is missing`);
  });

  it('says when the port is taken, exit 1', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const p = runCli(['--port', String(port)]);
      expect(await p.exit).toBe(1);
      expect(p.stderr()).toBe(`error: cannot listen on 127.0.0.1:${port}: the port is in use\n`);
    } finally {
      blocker.close();
    }
  });
});
