import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable, REPO_ROOT, tmpDir } from './helpers.ts';

/** The installed command as users run it: the bundled binary, with and without its parse cache. */

const BIN = join(REPO_ROOT, 'bin/infx.js');
const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));

const infx = (args: string[], env: Record<string, string> = {}, input?: string) =>
  spawnSync(process.execPath, [BIN, ...args], {
    cwd: fixturesAvailable ? fixture() : REPO_ROOT,
    env: { ...process.env, INFX_NO_CACHE: '', ...env },
    encoding: 'utf8',
    input,
    maxBuffer: 64 * 1024 * 1024,
  });

describe.skipIf(!built)(`bin/infx.js${built ? '' : ' (not built: run npm run build)'}`, () => {
  it('prints its version and help', () => {
    const out = infx(['--version']);
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(infx(['--help']).stdout).toContain('matrix');
  });

  describe.skipIf(!fixturesAvailable)(
    `on the reference configs${fixturesAvailable ? '' : ` (${FIXTURES_SKIP_REASON})`}`,
    () => {
      // Read lazily: a skipped describe still runs its body to collect tests.
      const args = fixturesAvailable
        ? readFileSync(fixture('golden/full-sweep.args'), 'utf8').trim().split(/\s+/)
        : [];
      const golden = fixturesAvailable ? readFileSync(fixture('golden/full-sweep.json'), 'utf8') : '';

      it('gives the golden output on a parse-cache miss and on a hit', () => {
        const cache = tmpDir();
        const miss = infx(['matrix', ...args], { INFX_CACHE_DIR: cache });
        expect(miss.status).toBe(0);
        expect(miss.stdout === golden).toBe(true);
        expect(readdirSync(join(cache, 'parsed')).length).toBe(3);
        const hit = infx(['matrix', ...args], { INFX_CACHE_DIR: cache });
        expect(hit.stdout === golden).toBe(true);
        const off = infx(['matrix', ...args, '--no-cache'], { INFX_CACHE_DIR: tmpDir() });
        expect(off.stdout === golden).toBe(true);
      });

      it('pipes into matrix plan', () => {
        const matrix = infx(['matrix', ...args, '--no-cache']).stdout;
        const plan = infx(
          ['matrix', 'plan', '--labels', 'full-sweep-fail-fast', '--format', 'json'],
          {},
          matrix,
        );
        expect(plan.status).toBe(0);
        const parsed = JSON.parse(plan.stdout) as { canary: unknown; failFast: boolean };
        expect(parsed.failFast).toBe(true);
        expect(parsed.canary).not.toBeNull();
      });

      it('stops quietly when its output pipe closes', () => {
        const out = spawnSync(
          'sh',
          ['-c', `"${process.execPath}" "${BIN}" matrix ${args.join(' ')} --no-cache | head -c 10`],
          {
            cwd: fixture(),
            encoding: 'utf8',
          },
        );
        expect(out.stdout).toBe('[{"image":');
        expect(out.stderr).toBe('');
      });
    },
  );
});
