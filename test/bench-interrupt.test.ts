import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PointResultSchema } from '../src/schema/point-result.ts';
import { withServer } from './client-helpers.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/** Ctrl-C during a run keeps everything measured so far (the built binary, a real SIGINT). */

describe('infx bench interrupted', () => {
  it('cancels requests in flight, writes what finished, exits 130', async () => {
    const hang = { fault: { kind: 'hang' as const } };
    const script = {
      defaults: { ttftMs: 5, itlMs: 1, tokenText: ' tok' },
      requests: { '2': hang, '3': hang },
    };
    await withServer(script, async (server) => {
      const dir = tmpDir('infx-interrupt-');
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, 'bin/infx.js'),
          'bench',
          '--base-url',
          server.url,
          '--model',
          'm',
          '--gpus',
          '1',
          '--isl',
          '16',
          '--osl',
          '4',
          '--concurrency',
          '2',
          '--num-prompts',
          '6',
          '--warmup',
          '0',
          '--out',
          dir,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INFX_NO_CACHE: '1' } },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      // Both lanes are stuck on a hanging request once the server has seen four requests.
      for (let i = 0; i < 200 && server.stats().requests < 4; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(server.stats().requests).toBe(4);
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).toBe(130);
      expect(stderr).toMatch(/interrupted: cancelling requests in flight/);
      expect(existsSync(join(dir, 'result.json'))).toBe(true);
      const result = PointResultSchema.parse(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')));
      expect(result.counts).toMatchObject({ completed: 2, cancelled: 2, failed: 0 });
      const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n');
      expect(lines).toHaveLength(4);
    });
  });
});
