import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable, REPO_ROOT, tmpDir } from './helpers.ts';

/**
 * `infx matrix` answered from the output cache (src/cli/matrix-replay.ts) by the built binary: the same
 * bytes as a computed run, and never stale: a changed input byte, flag, user catalog or corrupt entry is
 * computed again.
 */

const BIN = join(REPO_ROOT, 'bin/infx.js');
const built = existsSync(join(REPO_ROOT, 'dist/matrix-replay.mjs'));

describe.skipIf(!built || !fixturesAvailable)(
  `infx matrix with the output cache${built ? '' : ' (not built: run npm run build)'}${fixturesAvailable ? '' : ` (${FIXTURES_SKIP_REASON})`}`,
  () => {
    const args = fixturesAvailable
      ? readFileSync(fixture('golden/full-sweep.args'), 'utf8').trim().split(/\s+/)
      : [];
    const golden = fixturesAvailable ? readFileSync(fixture('golden/full-sweep.json'), 'utf8') : '';

    /** A copy of the fixture configs to edit, and a cache folder of its own. */
    function workspace() {
      const cwd = tmpDir('infx-out-cache-');
      cpSync(fixture('configs'), join(cwd, 'configs'), { recursive: true });
      const cache = tmpDir('infx-out-cache-dir-');
      const { INFX_CATALOG: _, ...inherited } = process.env;
      const infx = (extra: string[] = [], env: Record<string, string> = {}) =>
        spawnSync(process.execPath, [BIN, 'matrix', ...args, ...extra], {
          cwd,
          env: { ...inherited, INFX_NO_CACHE: '', INFX_CACHE_DIR: cache, ...env },
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        });
      const entries = () =>
        existsSync(join(cache, 'output')) ? readdirSync(join(cache, 'output')).sort() : [];
      return { cwd, cache, infx, entries };
    }

    it('a hit gives the same bytes as the run that stored it', () => {
      const w = workspace();
      const miss = w.infx();
      expect(miss.status).toBe(0);
      expect(miss.stdout === golden).toBe(true);
      expect(w.entries()).toHaveLength(1);
      const hit = w.infx();
      expect(hit.status).toBe(0);
      expect(hit.stdout === golden).toBe(true);
      expect(hit.stderr).toBe('');
      // --no-cache computes without storing.
      const off = w.infx(['--no-cache']);
      expect(off.stdout === golden).toBe(true);
      expect(w.entries()).toHaveLength(1);
    }, 60_000);

    it('one changed input byte is computed again', () => {
      const w = workspace();
      expect(w.infx().status).toBe(0);
      const file = join(w.cwd, 'configs/nvidia-master.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('runtime:0.8.1.post1', 'runtime:0.8.1.post9'));
      const after = w.infx();
      expect(after.status).toBe(0);
      expect(after.stdout).toContain('runtime:0.8.1.post9');
      expect(after.stdout).not.toBe(golden);
    }, 60_000);

    it('another flag is another entry', () => {
      const w = workspace();
      expect(w.infx().status).toBe(0);
      const fewer = w.infx(['--max-tp', '2']);
      expect(fewer.status).toBe(0);
      expect(fewer.stdout.length).toBeLessThan(golden.length);
      expect(w.entries()).toHaveLength(2);
      expect(w.infx(['--max-tp', '2']).stdout).toBe(fewer.stdout);
    }, 60_000);

    it('a user catalog that appears, or another one named, is read', () => {
      const w = workspace();
      expect(w.infx().status).toBe(0);
      mkdirSync(join(w.cwd, '.infx'));
      writeFileSync(join(w.cwd, '.infx/catalog.yaml'), 'not: [a catalog\n');
      const after = w.infx();
      expect(after.status).toBe(1);
      expect(after.stderr).toMatch(/catalog/);
      // $INFX_CATALOG is part of the key: '' turns the default catalog off, as without the cache.
      expect(w.infx([], { INFX_CATALOG: '' }).status).toBe(0);
      expect(w.infx([], { INFX_CATALOG: join(w.cwd, '.infx/catalog.yaml') }).status).toBe(1);
    }, 60_000);

    it('a corrupt entry is computed again, without a crash', () => {
      const w = workspace();
      expect(w.infx().status).toBe(0);
      const [entry] = w.entries();
      const path = join(w.cache, 'output', entry!);
      writeFileSync(path, readFileSync(path, 'utf8').slice(0, 1000));
      const again = w.infx();
      expect(again.status).toBe(0);
      expect(again.stderr).toBe('');
      expect(again.stdout === golden).toBe(true);
      // Stored again: a header line, then the output as it is.
      const [line, body] = readFileSync(path, 'utf8').split(/\n(.*)/s) as [string, string];
      expect(() => JSON.parse(line)).not.toThrow();
      expect(body === golden).toBe(true);
    }, 60_000);

    it('a failed run is not stored', () => {
      const w = workspace();
      const bad = w.infx(['--max-tp', 'x']);
      expect(bad.status).toBe(2);
      expect(w.entries()).toHaveLength(0);
    }, 60_000);
  },
);
