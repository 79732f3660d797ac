import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from '../helpers.ts';

/**
 * Unexpected errors are bugs, and say so (issue 13 item 10): one line on stderr naming the error, that it
 * is a bug and where the full report went; the report file holds the stack; exit code 70. Driven through
 * launch() as bin.ts uses it (test/hostile/bug-entry.ts, bundled by scripts/run-ts.mjs).
 */

function crash(mode: string, ...args: string[]) {
  const dir = tmpDir('infx-bugs-');
  const r = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'scripts/run-ts.mjs'), 'test/hostile/bug-entry.ts', mode, ...args],
    { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, INFX_BUG_DIR: dir }, timeout: 60_000 },
  );
  return { ...r, dir };
}

describe('the bug handler', () => {
  it.each([
    ['io', ['schema', 'run-manifest'], "TypeError: Cannot read properties of undefined (reading 'write')"],
    ['timer', [], 'RangeError: a timer callback went wrong'],
    ['rejection', [], 'Error: nobody awaited this'],
  ])(
    '%s: one line, a report file with the trace, exit 70',
    (mode, args, error) => {
      const r = crash(mode, ...args);
      expect(r.status, r.stderr).toBe(70);
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      const line = lines[0]!;
      expect(line).toContain(`infx: internal error (this is a bug in infx): ${error}`);
      expect(line).not.toMatch(/\n\s+at /);
      const report = /the full report is in (\S+);/.exec(line)?.[1];
      expect(report).toBeDefined();
      expect(report!.startsWith(r.dir)).toBe(true);
      expect(existsSync(report!)).toBe(true);
      const text = readFileSync(report!, 'utf8');
      expect(text).toContain(error);
      expect(text).toMatch(/\n\s+at /);
      expect(text).toContain(`command: infx ${[mode, ...args].join(' ')}`);
      expect(readdirSync(r.dir)).toHaveLength(1);
    },
    60_000,
  );
});
