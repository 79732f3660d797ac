import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers.ts';
import { getJson, open, TestBackend } from './support/router-backend.ts';

/** `infx router` as users run it: bin/infx.js (needs `npm run build`). */

const BIN = join(REPO_ROOT, 'bin/infx.js');
const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));
const infx = (args: string[]) =>
  spawnSync(process.execPath, [BIN, 'router', ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 20_000,
  });

const backends: TestBackend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
});

describe.skipIf(!built)(`infx router${built ? '' : ' (not built: run npm run build)'}`, () => {
  it.each([
    [['--port', '0'], /required option '--backend <url>'/],
    [['--backend', 'localhost:8000', '--port', '0'], /--backend 'localhost:8000' is not an http:\/\/ URL/],
    [
      ['--backend', 'not a url', '--port', '0'],
      /--backend 'not a url' is not a URL\nhint: write it as http:\/\/HOST:PORT/,
    ],
    [['--backend', 'https://127.0.0.1:1', '--port', '0'], /plain http to its backends, not https/],
    [
      ['--backend', 'http://127.0.0.1:1/v1', '--port', '0'],
      /hint: pass only the origin: --backend http:\/\/127.0.0.1:1/,
    ],
    [['--backend', 'http://127.0.0.1:1', '--backend', 'http://127.0.0.1:1/', '--port', '0'], /given twice/],
    [['--backend', 'http://127.0.0.1:1', '--policy', 'fastest'], /argument 'fastest' is invalid/],
    [['--backend', 'http://127.0.0.1:1', '--cache-threshold', '2'], /--cache-threshold/],
    [
      ['--backend', 'http://127.0.0.1:1', '--policy', 'kv-aware', '--backend-wait', '0', '--port', '0'],
      /cannot for: http:\/\/127.0.0.1:1: no answer: [^\n]*\nhint: pass --no-kv-events/,
    ],
    [
      ['--backend', 'http://127.0.0.1:1', '--seed', '99999999999', '--port', '0'],
      /bad router options: seed:/,
    ],
  ])('%j exits 2 with %s', (args, message) => {
    const r = infx(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('prints one line when listening, routes, and stops cleanly on SIGTERM', async () => {
    const b = await new TestBackend('b0').start();
    backends.push(b);
    b.auto = ['hi'];
    const child = spawn(
      process.execPath,
      [
        BIN,
        'router',
        '--backend',
        b.url,
        '--port',
        '0',
        '--policy',
        'power-of-two',
        '--health-interval',
        '0',
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /^listening on (\S+) \(policy power-of-two; backends (\S+)\)\n$/.exec(out);
        if (m) {
          expect(m[2]).toBe(b.url);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`infx router exited with ${code}: ${out}`)));
    });
    const r = await open(url, '/v1/completions', { prompt: 'x', stream: true });
    expect((await r.rest()).complete).toBe(true);
    expect(((await getJson(url, '/metrics')).body as { policy: string }).policy).toBe('power-of-two');
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  });
});
