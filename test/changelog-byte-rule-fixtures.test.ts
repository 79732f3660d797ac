import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkByteGate } from '../src/changelog/byte-gate.ts';
import { FIXTURES_SKIP_REASON, fixture } from './helpers.ts';

/** Every `.byte-rule` verdict of the reference fixtures (real PRs' base..head changelogs), reproduced. */

const DIR = fixture('changelog');
const available = existsSync(DIR);
if (!available) console.warn(`skipping changelog byte-rule fixture tests: ${FIXTURES_SKIP_REASON}`);
const cases = available
  ? readdirSync(DIR)
      .filter((f) => f.endsWith('.byte-rule'))
      .map((f) => f.slice(0, -'.byte-rule'.length))
      .sort()
  : [];

const show = (bundle: string, ref: string) =>
  execFileSync('git', ['--git-dir', bundle, 'show', `${ref}:perf-changelog.yaml`], { maxBuffer: 64 << 20 });

describe.skipIf(!available)('the byte gate reproduces the reference fixtures’ byte-rule verdicts', () => {
  it('has the cases', () => expect(cases.length).toBeGreaterThanOrEqual(10));

  it.each(cases)('%s', (name) => {
    const expected = readFileSync(join(DIR, `${name}.byte-rule`), 'utf8').trim();
    const clone = join(execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim(), 'repo.git');
    execFileSync('git', ['clone', '-q', '--bare', join(DIR, `${name}.bundle`), clone]);
    const r = checkByteGate(show(clone, 'base'), show(clone, 'head'), null, 'perf-changelog.yaml');
    if (expected === 'pass') expect(r).toMatchObject({ ok: true });
    else {
      expect(r.ok).toBe(false);
      expect(`fail: ${r.ok ? '' : r.message}`).toBe(expected);
      // infx's addition: where, and what to do.
      expect(r.ok ? null : r.line).toBeGreaterThan(0);
      expect(r.ok ? null : r.hint).toBeTruthy();
    }
  });
});
