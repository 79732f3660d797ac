import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchRunSchema } from '../src/schema/bench-run.ts';
import { PointResultSchema } from '../src/schema/point-result.ts';
import {
  PointAttemptSchema,
  PointStatusSchema,
  type RunManifest,
  RunManifestSchema,
} from '../src/schema/run-dir.ts';
import { acquireRunLock } from '../src/sweep/lock.ts';
import { type ServerProcess, spawnServer, withServer } from './client-helpers.ts';
import { REPO_ROOT, runCli, tmpDir } from './helpers.ts';

/**
 * `infx bench --concurrency 1 2 4 --out DIR` against a server infx did not start: a run directory that
 * ingest, plot and compare read as any sweep's, resumed point by point, refused when it is another run's;
 * and a one-point `--out DIR`, which is a run directory too.
 */

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const manifestOf = (dir: string): RunManifest =>
  RunManifestSchema.parse(readJson(join(dir, 'manifest.json')));
const attemptsOf = (dir: string, pointId: string) =>
  readdirSync(join(dir, 'points', pointId))
    .filter((n) => n.startsWith('attempt-'))
    .sort();

describe('infx bench --concurrency against infx sim serve', () => {
  // The engine in its own process, on its own clock in lockstep: this machine's load cannot move the figures.
  let sim: ServerProcess;
  beforeAll(async () => {
    sim = await spawnServer(['sim', 'serve', '--model', MODEL, '--hardware', 'h100', '--time-scale', '20']);
  });
  afterAll(async () => {
    await sim?.stop();
  });

  const sweep = (out: string, extra: string[] = []) =>
    runCli([
      'bench',
      '--base-url',
      sim.url,
      '--model',
      MODEL,
      '--isl',
      '128',
      '--osl',
      '32',
      '--num-prompts',
      '8',
      '--warmup',
      '2',
      '--accelerator',
      'h100',
      '--framework',
      'vllm',
      '--precision',
      'bf16',
      '--out',
      out,
      ...extra,
    ]);

  it('writes one point per concurrency as a run directory that ingest, plot and compare accept', async () => {
    const root = tmpDir('infx-bench-sweep-');
    const dir = join(root, 'my-run'); // not there yet: bench creates it
    const out = await sweep(dir, ['--concurrency', '4', '1', '2']);
    expect(out.code, out.stderr).toBe(0);

    const m = manifestOf(dir);
    expect(m.runId).toBe('my-run'); // the folder's name, as a sweep's runs/<run-id>
    expect(m.points.map((p) => p.conc)).toEqual([1, 2, 4]); // lowest first, however they were listed
    expect(new Set(m.points.map((p) => p.row['model-prefix']))).toEqual(new Set(['llama-3.1-8b-instruct']));
    expect(m.points.every((p) => p.row.runner === 'h100' && p.row.framework === 'vllm')).toBe(true);
    // The manifest's source is the one-row matrix written beside it, by content hash.
    expect(m.source.kind).toBe('matrix');
    const matrix = readFileSync(join(dir, 'matrix.json'));
    if (m.source.kind === 'matrix')
      expect(m.source.file.sha256).toBe(createHash('sha256').update(matrix).digest('hex'));
    expect(BenchRunSchema.parse(readJson(join(dir, 'bench.json'))).runId).toBe(m.runId);
    for (const p of m.points) {
      const attempt = join(dir, 'points', p.pointId, 'attempt-1');
      expect(PointAttemptSchema.parse(readJson(join(attempt, 'point.json'))).conc).toBe(p.conc);
      expect(PointStatusSchema.parse(readJson(join(attempt, 'status.json'))).status).toBe('ok');
      const r = PointResultSchema.parse(readJson(join(attempt, 'result.json')));
      expect(r.load.concurrency).toBe(p.conc);
      expect(r.gpus.total).toBe(1); // no --gpus: what the simulated engine announces
    }
    expect(existsSync(join(dir, 'result.json'))).toBe(false); // several points: no top-level copy
    expect(existsSync(join(dir, 'sweep.lock'))).toBe(false); // the lock was given back
    expect(out.stdout).toMatch(/3 points: 3 points measured, 0 failed/);
    expect(out.stderr).toMatch(/point 2\/3 \(concurrency 2\) ok: \d+ tok\/s\/GPU/);

    const db = join(root, 'results.db');
    const ingest = await runCli(['ingest', dir, '--db', db]);
    expect(ingest.code, ingest.stdout + ingest.stderr).toBe(0);
    expect(ingest.stdout).toMatch(/3 planned: 3 ingested, 0 failed, 0 missing/);

    const svg = join(root, 'chart.svg');
    const plot = await runCli(['plot', dir, '--out', svg]);
    expect(plot.code, plot.stderr).toBe(0);
    expect(plot.stdout).toMatch(/1 series, 3 points/);
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg|<\?xml/);
    const byId = await runCli(['plot', m.runId, '--db', db, '--out', join(root, 'from-db.svg')]);
    expect(byId.stdout).toMatch(/1 series, 3 points/);

    // Run again: every point is there, nothing is measured again.
    const again = await sweep(dir, ['--concurrency', '1', '2', '4']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/3 points: 0 points measured, 3 done before, 0 failed/);
    for (const p of m.points) expect(attemptsOf(dir, p.pointId)).toEqual(['attempt-1']);

    // Another run into the same folder is refused, naming what differs; the run is left as it was.
    const manifestText = readFileSync(join(dir, 'manifest.json'), 'utf8');
    const other = await sweep(dir, ['--concurrency', '1', '2', '8', '--osl', '64']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/holds another run/);
    expect(other.stderr).toMatch(/--osl: "32" there, "64" here/);
    expect(other.stderr).toMatch(/--concurrency: "1 2 4" there, "1 2 8" here/);
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe(manifestText);

    // A second run of the same deployment compares with the first, config by config.
    const second = join(root, 'second');
    expect((await sweep(second, ['--concurrency', '1', '2', '4'])).code).toBe(0);
    const compare = await runCli(['compare', second, '--baseline', dir, '--db', db]);
    expect(compare.code, compare.stderr).toBe(0);
    expect(compare.stdout).toMatch(/1 config with no difference/);
    expect(compare.stdout).toMatch(/llama-3\.1-8b-instruct 128\/32 h100 vllm bf16 tp1/);
  });
});

const fast = { ttftMs: 5, itlMs: 1, tokenText: ' tok' };
const scriptedFlags = (url: string, out: string) => [
  'bench',
  '--base-url',
  url,
  '--model',
  'scripted',
  '--isl',
  '32',
  '--osl',
  '8',
  '--warmup',
  '0',
  '--out',
  out,
];

describe('infx bench --out: one point is a run directory', () => {
  it('keeps result.json at the top, ingests, and measures again only with --force', async () => {
    await withServer({ defaults: fast }, async (server) => {
      const root = tmpDir('infx-bench-one-');
      const dir = join(root, 'one');
      const flags = [
        ...scriptedFlags(server.url, dir),
        '--concurrency',
        '2',
        '--num-prompts',
        '6',
        '--gpus',
        '1',
      ];
      const first = await runCli(flags);
      // 0, or 1 where this machine's load made the client the bottleneck: the files are written either way.
      expect([0, 1], first.stderr).toContain(first.code);
      const m = manifestOf(dir);
      expect(m.points).toHaveLength(1);
      const point = m.points[0]!;
      expect(point.conc).toBe(2);
      const attempt1 = join(dir, 'points', point.pointId, 'attempt-1');
      for (const name of ['result.json', 'requests.jsonl'])
        expect(readFileSync(join(dir, name), 'utf8')).toBe(readFileSync(join(attempt1, name), 'utf8'));
      expect(first.stdout).toMatch(/completed 6\/6/);
      expect(first.stdout).toMatch(/1 point: 1 point measured, /);

      const ingest = await runCli(['ingest', dir, '--db', join(root, 'r.db')]);
      expect(ingest.code, ingest.stdout + ingest.stderr).toBe(0);
      expect(ingest.stdout).toMatch(/1 planned: 1 ingested/);

      const again = await runCli(flags);
      expect(again.stdout).toMatch(/1 point: 0 points measured, 1 done before/);
      expect(again.stdout).toMatch(/completed 6\/6/); // the summary of what the folder holds
      expect(attemptsOf(dir, point.pointId)).toEqual(['attempt-1']);

      // infx sweep cannot start the server this run measured: resume and retry say what to run instead.
      for (const args of [
        ['sweep', 'retry', dir],
        ['sweep', '--resume', 'one', '--out', root],
      ]) {
        const refused = await runCli(args);
        expect(refused.code, args.join(' ')).toBe(2);
        expect(refused.stderr).toMatch(
          /written by infx bench against a running server.*same infx bench command/,
        );
      }

      const forced = await runCli([...flags, '--force']);
      expect(forced.stdout).toMatch(/1 point: 1 point measured/);
      expect(attemptsOf(dir, point.pointId)).toEqual(['attempt-1', 'attempt-2']);
      const attempt2 = join(dir, 'points', point.pointId, 'attempt-2');
      expect(readFileSync(join(dir, 'result.json'), 'utf8')).toBe(
        readFileSync(join(attempt2, 'result.json'), 'utf8'),
      );
    });
  });
});

describe('infx bench interrupted in a sweep', () => {
  it('keeps the points measured, and the same command measures the rest', async () => {
    // Point 1 (concurrency 1) sends requests 0-3; point 2 sends 4-7, and request 5 never answers.
    const script = { defaults: fast, requests: { '5': { fault: { kind: 'hang' as const } } } };
    await withServer(script, async (server) => {
      const dir = join(tmpDir('infx-bench-int-'), 'run');
      const args = [
        join(REPO_ROOT, 'bin/infx.js'),
        ...scriptedFlags(server.url, dir),
        '--concurrency',
        '1',
        '2',
        '--num-prompts',
        '4',
        '--gpus',
        '1',
      ];
      const child = spawn(process.execPath, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, INFX_NO_CACHE: '1' },
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      for (let i = 0; i < 200 && server.stats().requests < 8; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(server.stats().requests).toBe(8);
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).toBe(130);
      // (1 not valid may come between, where this machine's load made the client the bottleneck)
      expect(stdout).toMatch(/2 points: 1 point measured, .*0 failed, 1 interrupted/);
      const [p1, p2] = manifestOf(dir).points as [RunManifest['points'][0], RunManifest['points'][0]];
      const status = (id: string, n: number) =>
        PointStatusSchema.parse(readJson(join(dir, 'points', id, `attempt-${n}`, 'status.json')));
      expect(status(p1.pointId, 1).status).toBe('ok');
      expect(status(p2.pointId, 1)).toMatchObject({ status: 'failed', interrupted: true });

      // The server answers everything from request 8 on: the rest is measured, the first point is kept.
      const resumed = await runCli(args.slice(1));
      expect(resumed.stdout).toMatch(/2 points: 1 point measured, 1 done before, .*0 failed/);
      expect(attemptsOf(dir, p1.pointId)).toEqual(['attempt-1']);
      expect(status(p2.pointId, 2).status).toBe('ok');
    });
  });
});

describe('infx bench: bad flags and folders', () => {
  const base = ['bench', '--base-url', 'http://127.0.0.1:9', '--model', 'm', '--isl', '8', '--osl', '8'];

  it.each([
    [['0'], /--concurrency.*must be a positive integer, got '0'/],
    [['-4'], /--concurrency.*must be a positive integer, got '-4'/],
    [['2.5'], /--concurrency.*invalid int value: '2\.5'/],
    [['1', '4', '4'], /concurrency 4 is listed twice/],
    [['1', 'two'], /--concurrency.*invalid int value: 'two'/],
  ])('--concurrency %j → exit 2, nothing written', async (values, message) => {
    const dir = join(tmpDir(), 'run');
    const out = await runCli([...base, '--out', dir, '--concurrency', ...values]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    [['--accelerator', 'h_100'], /--accelerator 'h_100' is not a usable name/],
    [['--model-prefix', 'my model'], /--model-prefix 'my model' is not a usable name/],
    [['--run-id', '../up'], /--run-id: run id "\.\.\/up" is not usable/],
  ])('%j → exit 2 before the server is asked', async (flags, message) => {
    const dir = join(tmpDir(), 'run');
    const out = await runCli([...base, '--out', dir, '--concurrency', '1', '2', ...flags]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(existsSync(dir)).toBe(false);
  });

  it('a server that does not say how many GPUs it runs on needs --gpus (exit 2, nothing written)', async () => {
    await withServer({ defaults: fast }, async (server) => {
      const dir = join(tmpDir(), 'run');
      const out = await runCli([...scriptedFlags(server.url, dir), '--concurrency', '1', '2']);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/--gpus N is needed: the server at .* does not say how many GPUs/);
      expect(existsSync(dir)).toBe(false);
    });
  });

  it('an unreachable server writes no run directory (exit 1)', async () => {
    const dir = join(tmpDir(), 'run');
    const out = await runCli([...base, '--out', dir, '--concurrency', '1', '2']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/cannot reach the server/);
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a sweep run directory, an older bench output and a folder another sweep holds', async () => {
    await withServer({ defaults: fast }, async (server) => {
      const bench = (dir: string) =>
        runCli([
          ...scriptedFlags(server.url, dir),
          '--concurrency',
          '1',
          '--num-prompts',
          '2',
          '--gpus',
          '1',
        ]);

      const swept = tmpDir();
      const manifest: RunManifest = {
        schemaVersion: 1,
        runId: 'swept',
        createdAt: new Date().toISOString(),
        infxVersion: 'test',
        host: { hostname: 'h', platform: 'linux', arch: 'x64', node: 'v20', cpus: 2 },
        source: { kind: 'matrix', file: { path: '/m.json', sha256: '0'.repeat(64) } },
        seed: 0,
        options: { executor: 'local', retries: 0, failFast: false, canary: false, parallel: 1, slurm: null },
        points: [],
        skipped: [],
      };
      writeFileSync(join(swept, 'manifest.json'), JSON.stringify(manifest));
      const a = await bench(swept);
      expect(a.code).toBe(1);
      expect(a.stderr).toMatch(/holds run swept, written by infx sweep, not infx bench/);

      const older = tmpDir();
      writeFileSync(join(older, 'result.json'), '{}');
      const b = await bench(older);
      expect(b.code).toBe(1);
      expect(b.stderr).toMatch(/holds a result\.json but no manifest\.json/);
      expect(existsSync(join(older, 'manifest.json'))).toBe(false);

      const held = join(tmpDir(), 'held');
      mkdirSync(held);
      const lock = acquireRunLock(held, { command: 'infx sweep (test)' });
      try {
        const c = await bench(held);
        expect(c.code).toBe(1);
        expect(c.stderr).toMatch(/is in use by another sweep/);
        expect(existsSync(join(held, 'manifest.json'))).toBe(false);
      } finally {
        lock.release();
      }
      rmSync(held, { recursive: true, force: true });
    });
  });
});
