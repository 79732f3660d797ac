import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from '../helpers.ts';
import { BASE, BASE_RUNNERS, searchSpace } from './configs-cases.ts';

/**
 * The hostile configs that need a real process: a FIFO (which used to block forever), /dev/zero (which
 * used to grow to gigabytes), and big files whose memory is measured. Each child runs the bundled binary
 * with a preload that records its peak RSS and CPU time on exit, so the bounds hold however loaded the
 * machine is (CPU time, not wall-clock time).
 */

const BIN = join(REPO_ROOT, 'bin/infx.js');
const built = existsSync(join(REPO_ROOT, 'dist/infx.mjs'));
const MB = 1024 * 1024;

let dir: string;
let preload: string;
let runners: string;

interface Child {
  code: number | null;
  out: string;
  rssMB: number;
  cpuS: number;
}

function infx(args: string[]): Child {
  const stats = join(dir, `stats-${Math.random().toString(36).slice(2)}.json`);
  const r = spawnSync(process.execPath, ['--require', preload, BIN, ...args], {
    cwd: dir,
    env: { ...process.env, INFX_NO_CACHE: '1', INFX_STATS_FILE: stats },
    encoding: 'utf8',
    // A FIFO used to block for ever: the kill is the failure, not a hang of the suite.
    timeout: 20_000,
    maxBuffer: 16 * MB,
  });
  const s = existsSync(stats)
    ? (JSON.parse(readFileSync(stats, 'utf8')) as { rss: number; cpu: number })
    : null;
  return {
    code: r.status,
    out: `${r.stderr}\n${r.stdout}`,
    rssMB: s ? s.rss / MB : Number.POSITIVE_INFINITY,
    cpuS: s ? s.cpu : Number.POSITIVE_INFINITY,
  };
}

const argv = (command: string, master: string, runnerConfig = runners): string[] => {
  const files = ['--config-files', master, '--runner-config', runnerConfig];
  if (command === 'test-config') return ['matrix', 'test-config', ...files, '--config-keys', '*'];
  if (command === 'full-sweep') return ['matrix', 'full-sweep', ...files];
  return [command, ...files];
};

function refused(c: Child, file: string, rule: string, maxMB = 300): void {
  expect(c.code, c.out).toBe(1);
  expect(c.out).toContain(file);
  expect(c.out).toContain(rule);
  expect(c.out).not.toMatch(/^\s+at /m);
  expect(c.out).not.toMatch(/internal error/i);
  if (process.env.INFX_HOSTILE_STATS)
    console.log(`${file} ${rule}: ${c.rssMB.toFixed(0)} MB, ${c.cpuS.toFixed(2)} s CPU`);
  expect(c.cpuS, 'CPU seconds').toBeLessThan(2);
  expect(c.rssMB, 'peak RSS, MB').toBeLessThan(maxMB);
}

/** Writes about `bytes` of `unit` (repeated, each copy's keys made unique by `unique`) to a file. */
function bigFile(name: string, head: string, unit: (i: number) => string, bytes: number): string {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  let size = writeSync(fd, head);
  for (let i = 0; size < bytes; i++) size += writeSync(fd, unit(i));
  closeSync(fd);
  return path;
}

const copy = (text: string) => (i: number) =>
  text.replace(/^dsr1-fp8-h200-vllm:/m, `dsr1-fp8-h200-vllm-${i}:`);

beforeAll(() => {
  if (!built) return;
  dir = tmpDir('infx-hostile-proc-');
  preload = join(dir, 'stats.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => {
  const u = process.resourceUsage();
  require('node:fs').writeFileSync(process.env.INFX_STATS_FILE, JSON.stringify({ rss: u.maxRSS * 1024, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6 }));
});\n`,
  );
  runners = join(dir, 'runners.yaml');
  writeFileSync(runners, BASE_RUNNERS);
});

describe.skipIf(!built)(
  `hostile configs in a real process${built ? '' : ' (not built: run npm run build)'}`,
  () => {
    it('a FIFO as a config or runner config is refused at once, not waited on', () => {
      const fifo = join(dir, 'master.fifo');
      execFileSync('mkfifo', [fifo]);
      for (const command of ['validate', 'full-sweep', 'check'])
        refused(infx(argv(command, fifo)), fifo, 'file.not-regular');
      const good = join(dir, 'good.yaml');
      writeFileSync(good, BASE);
      refused(infx(argv('validate', good, fifo)), fifo, 'file.not-regular');
    });

    it('/dev/zero is refused without reading it', () => {
      for (const command of ['validate', 'check'])
        refused(infx(argv(command, '/dev/zero')), '/dev/zero', 'file.not-regular');
    });

    it('a 50 MB config of 100k entries stops at the node bound, in bounded memory', () => {
      const big = bigFile('big.yaml', '', copy(BASE), 50 * 1_000_000);
      for (const command of ['validate', 'test-config', 'check'])
        refused(infx(argv(command, big)), big, 'yaml.too-large');
    });

    it('a 50 MB config with non-ASCII text (two bytes a character in memory) stays bounded too', () => {
      const big = bigFile('big-utf8.yaml', '', (i) => `# entry ${i} — ×\n${copy(BASE)(i)}`, 50 * 1_000_000);
      refused(infx(argv('validate', big)), big, 'yaml.too-large', 400);
    });

    it('a valid 50 MB config (mostly comments) validates in bounded memory', () => {
      const big = bigFile(
        'big-valid.yaml',
        BASE,
        () => '# a comment that pads the file out to fifty megabytes\n',
        50 * 1_000_000,
      );
      const c = infx(argv('validate', big));
      expect(c.code, c.out).toBe(0);
      expect(c.out).toContain('1 config keys, 5 jobs, 5 points');
      if (process.env.INFX_HOSTILE_STATS)
        console.log(`valid 50 MB: ${c.rssMB.toFixed(0)} MB, ${c.cpuS.toFixed(2)} s CPU`);
      expect(c.cpuS, 'CPU seconds').toBeLessThan(2);
      expect(c.rssMB, 'peak RSS, MB').toBeLessThan(300);
    });

    it.each([
      ['100k aliases', () => `a: &a [1, 2, 3]\nk:\n${'  - *a\n'.repeat(100_000)}`, 'yaml.too-many-aliases'],
      [
        'a billion laughs',
        () =>
          [
            'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]',
            ...Array.from(
              { length: 9 },
              (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`,
            ),
          ].join('\n'),
        'yaml.too-large',
      ],
      ['100k search-space entries', () => searchSpace(100_000), 'yaml.too-large'],
      ['20,000 nested [', () => `k: ${'['.repeat(20_000)}\n`, 'yaml.too-deep'],
    ])('%s: refused with a clear error in bounded memory', (name, text, rule) => {
      const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
      writeFileSync(file, text());
      refused(infx(argv('validate', file)), file, rule);
    });
  },
);
