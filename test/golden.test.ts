import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable, runCli } from './helpers.ts';

/**
 * `infx matrix` reproduces, byte for byte, what the reference generator printed for each golden argument
 * list (paths in the args are relative to the fixtures folder), with the same exit code.
 */

const cases = fixturesAvailable
  ? readdirSync(fixture('golden'))
      .filter((f) => f.endsWith('.args'))
      .map((f) => f.slice(0, -'.args'.length))
      .sort()
  : [];

const absolute = (arg: string) => (arg.startsWith('configs/') ? fixture(arg) : arg);

describe.skipIf(!fixturesAvailable)(
  `golden matrix output${fixturesAvailable ? '' : ` (${FIXTURES_SKIP_REASON})`}`,
  () => {
    it('finds the golden cases', () => {
      expect(cases.length).toBeGreaterThanOrEqual(17);
    });

    it.each(cases)('%s', async (name) => {
      const args = readFileSync(fixture('golden', `${name}.args`), 'utf8')
        .trim()
        .split(/\s+/)
        .map(absolute);
      const expected = readFileSync(fixture('golden', `${name}.json`), 'utf8');
      const exit = Number(readFileSync(fixture('golden', `${name}.exit`), 'utf8').trim());
      const result = await runCli(['matrix', ...args]);
      expect(result.code).toBe(exit);
      if (exit === 0) {
        expect(result.stdout === expected, `stdout differs from golden/${name}.json`).toBe(true);
      } else {
        // The reference prints a traceback whose last line(s) carry the message after "ValueError: ".
        const stderr = readFileSync(fixture('golden', `${name}.stderr`), 'utf8');
        const message = stderr.slice(stderr.lastIndexOf('ValueError: ') + 'ValueError: '.length).trim();
        expect(result.stdout).toBe(expected);
        expect(result.stderr).toContain(message);
      }
    });
  },
);
