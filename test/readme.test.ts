import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { anchorOf, type ShellBlock, shellBlocks } from './readme-blocks.ts';

/**
 * Every shell block of the README, run as written, top to bottom, in a temporary clone of this working tree
 * (the files git would commit, with node_modules and the built dist/ of this checkout linked in, which is
 * what `npm ci` leaves in a fresh clone). A block that fails fails the test, named by its line.
 */

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const BLOCKS = shellBlocks(README);
/** A block may start engines and sweeps; none should take long, but a slow CI machine gets room. */
const BLOCK_TIMEOUT_MS = 240_000;

function cloneTree(): string {
  const dir = join(tmpDir('infx-readme-'), 'infx');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(REPO_ROOT, f)));
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(REPO_ROOT, f), join(dir, f));
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(REPO_ROOT, 'dist'), join(dir, 'dist'));
  return dir;
}

/** A newcomer's environment: none of infx's own variables, an empty Hugging Face cache. */
function freshEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('INFX_') && !k.startsWith('HF_')) env[k] = v;
  env.HF_HOME = join(home, 'hf-empty');
  env.NO_COLOR = '1';
  return env;
}

interface Outcome {
  code: number | null;
  output: string;
  matched: boolean;
  /** Processes of the block still running once its shell exited (a server it started and never stopped). */
  leftover: boolean;
}

/**
 * Whether a process of the group still runs. A zombie does not count: a tool's helper that exited after its
 * parent (esbuild's service, when npx runs `prepare` in a fresh clone) stays one where init does not reap.
 */
function groupAlive(pgid: number): boolean {
  if (!existsSync('/proc/self/stat')) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}

function runBlock(block: ShellBlock, cwd: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a server the block starts (and its engines) stop with it.
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', block.text], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pgid = child.pid as number;
    let output = '';
    let matched = false;
    let leftover = false;
    let code: number | null = null;
    const stop = () => {
      try {
        process.kill(-pgid, 'SIGTERM');
      } catch {}
    };
    const timer = setTimeout(() => {
      output += `\n[readme test: block still running after ${BLOCK_TIMEOUT_MS / 1000} s; stopped]`;
      stop();
    }, BLOCK_TIMEOUT_MS);
    const onData = (b: Buffer) => {
      output += b.toString();
      if (output.length > 1_000_000) output = output.slice(-500_000);
      if (block.directive.kind === 'until' && !matched && block.directive.pattern.test(output)) {
        matched = true;
        stop();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    // The shell's exit is the block's end; whatever it left running is stopped (and reported) then, and
    // the pipes close once it is gone.
    child.on('exit', (c) => {
      code = c;
      if (!matched && groupAlive(pgid)) {
        leftover = true;
        stop();
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      stop();
      resolve({ code, output, matched, leftover });
    });
  });
}

describe('README', () => {
  it('has a table of contents whose links all reach a heading, first after the set-up commands', () => {
    const headings = [...README.matchAll(/^#{1,6}\s+(.*)$/gm)].map((m) => anchorOf(m[1] as string));
    const toc = README.indexOf('## Contents');
    expect(toc, 'a "## Contents" section').toBeGreaterThan(0);
    expect(README.slice(0, toc).match(/^## /gm), 'Contents is the first section').toBeNull();
    const links = [...README.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(8);
    for (const l of links) expect(headings, `link #${l}`).toContain(l);
    expect(README).toMatch(/^## Quick start/m);
  });

  it('names no document outside the repository, and its licence is the LICENSE file', () => {
    expect(README).not.toMatch(/\.\.\/shared|\.\.\/\.library/);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('Apache-2.0');
    const license = readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8');
    expect(license).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(existsSync(join(REPO_ROOT, 'docs/architecture.md'))).toBe(true);
    expect(readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8')).not.toMatch(/\.\.\/shared/);
  });

  it('shows synopses ([--flag] …) as text, never as a block to run', () => {
    for (const b of BLOCKS) expect(b.text, `README.md:${b.line}`).not.toMatch(/\[--|…/);
  });

  it('opens with the two set-up commands, which CI runs verbatim', () => {
    const setup = BLOCKS.filter((b) => b.directive.kind === 'setup');
    expect(setup.map((b) => b.line)).toEqual([BLOCKS[0]?.line]);
    expect(setup[0]?.text.split('\n').map((l) => l.replace(/\s+#.*$/, ''))).toEqual([
      'npm ci && npm run demo',
      'npm ci && npm test',
    ]);
    const ci = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8').trim().split('\n');
    expect(ci.at(-1)).toBe('npm ci && npm test');
  });

  describe('every shell block runs as written, in order, in a fresh clone', () => {
    let clone: string | undefined;
    const home = tmpDir('infx-readme-home-');
    const env = freshEnv(home);
    for (const block of BLOCKS.filter((b) => b.directive.kind !== 'setup')) {
      const first = block.text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#')) ?? '';
      it(
        `README.md:${block.line} (${block.section}): ${first.slice(0, 60)}`,
        async () => {
          clone ??= cloneTree();
          const got = await runBlock(block, clone, env);
          const tail = got.output.slice(-4000);
          if (block.directive.kind === 'until')
            expect(got.matched, `never printed ${block.directive.pattern}:\n${tail}`).toBe(true);
          else if (block.directive.kind === 'run') {
            expect(got.code, `exit code, output:\n${tail}`).toBe(block.directive.exit);
            expect(got.leftover, `the block left processes running:\n${tail}`).toBe(false);
          }
        },
        BLOCK_TIMEOUT_MS + 30_000,
      );
    }
  });
});
