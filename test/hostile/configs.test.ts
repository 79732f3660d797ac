import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tmpDir } from '../helpers.ts';
import {
  ALL,
  BASE,
  BASE_MULTI,
  BASE_RUNNERS,
  CASES,
  type Case,
  type Command,
  type Content,
} from './configs-cases.ts';

/**
 * Issue 13, the config/check part: every bad config file of the table is refused by `infx validate`,
 * `infx matrix full-sweep`, `infx matrix test-config` and `infx check` (or by `check` alone, for configs
 * that validate but cannot run) with exit 1, the file named (with its line where there is one), the rule
 * id, no stack trace, within 2 s and 300 MB. Runs in-process; test/hostile/configs-process.test.ts runs the
 * cases that need a real process (a FIFO, /dev/zero, memory caps of big files).
 */

const MB = 1024 * 1024;
const asRoot = process.getuid?.() === 0;

function argv(command: Command, master: string, runners: string): string[] {
  const files = ['--config-files', master, '--runner-config', runners];
  switch (command) {
    case 'validate':
      return ['validate', ...files];
    case 'full-sweep':
      return ['matrix', 'full-sweep', ...files];
    case 'test-config':
      return ['matrix', 'test-config', ...files, '--config-keys', '*'];
    case 'check':
      return ['check', ...files];
  }
}

function materialize(dir: string, name: string, content: Content): string {
  const path = join(dir, name);
  if (typeof content === 'string' || Buffer.isBuffer(content)) {
    writeFileSync(path, content);
    return path;
  }
  switch (content.kind) {
    case 'dir':
      mkdirSync(path);
      return path;
    case 'fifo':
      execFileSync('mkfifo', [path]);
      return path;
    case 'sparse': {
      const fd = openSync(path, 'w');
      // A hole, not 65 MB of disk: the size is what is refused.
      writeFileSync(fd, 'a: 1\n');
      closeSync(fd);
      execFileSync('truncate', ['-s', String(content.bytes), path]);
      return path;
    }
    case 'symlink-loop':
      symlinkSync(`${path}.b`, path);
      symlinkSync(path, `${path}.b`);
      return path;
    case 'dangling-symlink':
      symlinkSync(join(dir, 'nowhere.yaml'), path);
      return path;
    case 'through-file':
      writeFileSync(path, BASE);
      return join(path, 'master.yaml');
    case 'path':
      return content.path;
    case 'unreadable':
      writeFileSync(path, content.text);
      chmodSync(path, 0o000);
      return path;
  }
}

/** The line a case must name: a text's first line, a number, or null. */
function expectedLine(c: Case, text: string | undefined): number | null {
  if (c.at === undefined || c.at === null) return null;
  if (typeof c.at === 'number') return c.at;
  const i = text?.indexOf(c.at) ?? -1;
  if (i < 0) throw new Error(`test bug: '${c.at}' is not in the file of '${c.name}'`);
  return text!.slice(0, i).split('\n').length;
}

const textOf = (content: Content) =>
  typeof content === 'string' ? content : Buffer.isBuffer(content) ? content.toString('utf8') : undefined;

let dir: string;
let good: { master: string; multi: string; runners: string };
const paths = new Map<string, string>();
const baselineRss = process.memoryUsage().rss;

beforeAll(() => {
  dir = tmpDir('infx-hostile-');
  good = {
    master: materialize(dir, 'good-master.yaml', BASE),
    multi: materialize(dir, 'good-multi.yaml', BASE_MULTI),
    runners: materialize(dir, 'good-runners.yaml', BASE_RUNNERS),
  };
  CASES.forEach((c, i) => {
    paths.set(c.name, materialize(dir, `case-${String(i).padStart(3, '0')}.yaml`, c.content));
  });
});

describe('the good bases', () => {
  it.each(ALL)('%s exits 0 on them', async (command) => {
    for (const master of [good.master, good.multi]) {
      const r = await runCli(argv(command, master, good.runners));
      expect(r.stderr + r.stdout, `${command} ${master}`).not.toMatch(/error \[|^\s+error\s/m);
      expect(r.code).toBe(0);
    }
  });
});

describe('hostile and broken configs', () => {
  it('the table has at least 80 bad files', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(80);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  for (const c of CASES) {
    const skip =
      c.content instanceof Object && 'kind' in c.content && c.content.kind === 'unreadable' && asRoot;
    describe.skipIf(skip)(`${c.name}${skip ? ' (root reads any file)' : ''}`, () => {
      it.each(c.commands ?? ALL)(
        `%s: exit 1, [${c.rule}] at the file and line, no trace`,
        async (command) => {
          const bad = paths.get(c.name)!;
          const master = c.role === 'runners' ? (c.partner ?? good.master) : bad;
          const runners = c.role === 'runners' ? bad : (c.partner ?? good.runners);
          const started = performance.now();
          let r: { code: number; stdout: string; stderr: string };
          try {
            r = await runCli(argv(command, master, runners));
          } catch (err) {
            throw new Error(`internal error (an exception escaped the command): ${(err as Error).stack}`);
          }
          const ms = performance.now() - started;
          const out = `${r.stderr}\n${r.stdout}`;
          expect(r.code, out).toBe(1);
          expect(out).toContain(bad);
          expect(out).toContain(c.rule);
          const line = expectedLine(c, textOf(c.content));
          if (line !== null) expect(out).toContain(`${bad}:${line}:${c.column ?? ''}`);
          if (c.says) expect(out).toMatch(c.says);
          expect(out).not.toMatch(/^\s+at /m);
          expect(out).not.toMatch(/internal error/i);
          expect(ms).toBeLessThan(2_000);
          // maxRSS is the peak since this worker started: an upper bound on what any case took.
          expect((process.resourceUsage().maxRSS * 1024 - baselineRss) / MB).toBeLessThan(300);
        },
      );
    });
  }
});
