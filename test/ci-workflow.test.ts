// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are GitHub expressions and bash scripts
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { tmpDir } from './helpers.ts';
import { BIN, FAST, infx, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * `infx ci workflow` as a user runs it (bin/infx.js: `npm run build` first), and the scripts it writes run
 * as GitHub Actions would run them: the plan step, each point job in a workspace of its own, the artifacts
 * moved as upload/download-artifact move them, then the collect job's ingest and verify.
 */

const built = existsSync(BIN);
const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });

type Step = { name?: string; run?: string; env?: Record<string, string> };
type Doc = { jobs: Record<string, { steps: Step[] }> };

describe.skipIf(!built)(`infx ci workflow${built ? '' : ' (not built: run npm run build)'}`, () => {
  it('writes the files, leaves identical ones alone, refuses different ones without --force', () => {
    const dir = tmpDir('infx-ci-');
    const first = cli(dir, 'ci', 'workflow', '--runner-label', 'gpu');
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(
      'wrote .github/workflows/infx-sweep.yml\nwrote .github/workflows/infx-review.yml\n',
    );
    const sweepFile = join(dir, '.github/workflows/infx-sweep.yml');
    const written = readFileSync(sweepFile, 'utf8');
    expect(yaml.load(written)).toMatchObject({ name: 'infx sweep' });

    const again = cli(dir, 'ci', 'workflow', '--runner-label', 'gpu');
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('.github/workflows/infx-sweep.yml is up to date');
    expect(readFileSync(sweepFile, 'utf8')).toBe(written);

    // Other flags write other bytes: refused, naming the file, and nothing is touched.
    const other = cli(dir, 'ci', 'workflow', '--runner-label', 'h200');
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(
      'error: .github/workflows/infx-sweep.yml, .github/workflows/infx-review.yml already exist and differ',
    );
    expect(other.stderr).toContain('nothing was written');
    expect(other.stderr).toContain('--force');
    expect(readFileSync(sweepFile, 'utf8')).toBe(written);

    writeFileSync(sweepFile, `${written}# edited by hand\n`);
    const edited = cli(dir, 'ci', 'workflow', '--runner-label', 'gpu');
    expect(edited.status).toBe(1);
    expect(edited.stderr).toContain('error: .github/workflows/infx-sweep.yml already exists and differs');
    const forced = cli(dir, 'ci', 'workflow', '--runner-label', 'gpu', '--force');
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain('overwrote .github/workflows/infx-sweep.yml (--force)');
    expect(readFileSync(sweepFile, 'utf8')).toBe(written);
  });

  it('writes the same bytes again from the command in its header', () => {
    const a = tmpDir('infx-ci-');
    const flags = ['--out', 'wf', '--runner-label', 'gpu', '--db-secret', 'RESULTS_DB', '--no-review'];
    expect(cli(a, 'ci', 'workflow', ...flags).status).toBe(0);
    expect(readdirSync(join(a, 'wf'))).toEqual(['infx-sweep.yml']);
    const text = readFileSync(join(a, 'wf/infx-sweep.yml'), 'utf8');
    const header = /^# {3}infx ci workflow (.*)$/m.exec(text)?.[1] ?? '';
    expect(header).toBe(flags.join(' '));
    const b = tmpDir('infx-ci-');
    expect(cli(b, 'ci', 'workflow', ...header.split(' ')).status).toBe(0);
    expect(readFileSync(join(b, 'wf/infx-sweep.yml'), 'utf8')).toBe(text);
  });

  it.each([
    [['--db-secret', 'my secret'], /--db-secret "my secret": a secret name/],
    [['--db-secret', 'GITHUB_TOKEN'], /reserved by GitHub/],
    [['--runner-label', 'gpu,h200'], /--runner-label \["gpu,h200"\]|--runner-label "gpu,h200"/],
    [['--changelog-file', '/etc/passwd'], /--changelog-file "\/etc\/passwd"/],
    [['--node-version', 'latest'], /--node-version "latest"/],
    [['--frobnicate'], /unknown option '--frobnicate'/],
  ])('%j is refused with exit 2 and says why', (args, message) => {
    const dir = tmpDir('infx-ci-');
    const r = cli(dir, 'ci', 'workflow', ...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(join(dir, '.github'))).toBe(false);
  });

  it('infx ci labels: the gate decision as $GITHUB_OUTPUT lines', () => {
    const dir = tmpDir('infx-ci-');
    const out = (r: ReturnType<typeof cli>) =>
      Object.fromEntries(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => l.split(/=(.*)/s).slice(0, 2)),
      );
    const full = cli(dir, 'ci', 'labels', '--labels-json', '["full-sweep-fail-fast","all-evals","bug"]');
    expect(full.status).toBe(0);
    expect(out(full)).toMatchObject({
      sweep: 'true',
      primary: 'full-sweep-fail-fast',
      canary: 'true',
      'fail-fast': 'true',
      'all-evals': 'true',
      'trim-conc': 'false',
    });
    expect(out(cli(dir, 'ci', 'labels', '--labels-json', '["sweep-enabled"]'))).toMatchObject({
      sweep: 'true',
      'trim-conc': 'true',
      canary: 'false',
    });
    const two = cli(dir, 'ci', 'labels', '--labels-json', '["sweep-enabled","full-sweep-enabled"]');
    expect(two.status).toBe(1);
    expect(two.stderr).toContain('PR has multiple conflicting sweep labels. Pick exactly one.');
    expect(out(two).sweep).toBe('false');
    expect(out(cli(dir, 'ci', 'labels', '--labels-json', '["all-evals"]')).sweep).toBe('false');
    const skip = cli(dir, 'ci', 'labels', '--labels-json', '["full-sweep-enabled"]', '--skip-sweep');
    expect(out(skip).sweep).toBe('false');
    expect(out(skip).reason).toContain('[skip-sweep]');
    const push = cli(dir, 'ci', 'labels', '--event', 'push', '--skip-sweep');
    expect(out(push)).toMatchObject({ sweep: 'true', 'trim-conc': 'false', canary: 'false' });
    const bad = cli(dir, 'ci', 'labels', '--labels-json', 'sweep-enabled');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--labels-json: not JSON');
  });

  it('infx ci matrix: the canary apart, the other points as the matrix include list', async () => {
    const dir = tmpDir('infx-ci-');
    const rows = [1, 2, 4].map((conc) =>
      smallRow({ conc, isl: 1024, osl: 1024, 'max-model-len': 2048, 'exp-name': 'llama8b_1k1k' }),
    );
    writeMatrix(dir, rows);
    const plan = await infx(
      [
        'sweep',
        '--matrix',
        'matrix.json',
        '--plan-only',
        '--canary',
        '--run-id',
        'gh-1-1',
        '--engine',
        'sim',
      ],
      {},
      dir,
    );
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain('3 points planned');
    const m = cli(dir, 'ci', 'matrix', 'runs/gh-1-1', '--format', 'json');
    expect(m.status).toBe(0);
    const parsed = JSON.parse(m.stdout);
    expect(parsed.count).toBe(3);
    expect(parsed.canary).toMatchObject({ index: 1, runner: 'h100' });
    expect(parsed.canary.point).toMatch(/conc1/);
    expect(parsed.include.map((e: { index: number }) => e.index)).toEqual([2, 3]);
    // Planned, not run: every point has its spec and no attempt.
    for (const e of parsed.include)
      expect(readdirSync(join(dir, 'runs/gh-1-1/points', e.point))).toEqual(['spec.json']);
    const both = cli(dir, 'sweep', '--matrix', 'matrix.json', '--plan-only', '--dry-run');
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('not both');
    const resume = cli(dir, 'sweep', '--resume', 'gh-1-1', '--plan-only');
    expect(resume.status).toBe(2);
    expect(resume.stderr).toContain('--plan-only would be ignored');
    const lines = cli(dir, 'ci', 'matrix', 'runs/gh-1-1').stdout.split('\n');
    expect(lines[0]).toBe(`matrix=${JSON.stringify(parsed.include)}`);
    expect(lines.slice(1, 4)).toEqual(['jobs=2', `canary=${JSON.stringify(parsed.canary)}`, 'count=3']);
    const notRun = cli(dir, 'ci', 'matrix', 'runs/nope');
    expect(notRun.status).toBe(1);
    expect(notRun.stderr).toContain('not a run directory');
  });

  it("runs the workflow's own plan, point and collect scripts end to end (simulated engine)", async () => {
    const root = tmpDir('infx-ci-run-');
    const shim = join(root, 'bin');
    mkdirSync(shim);
    writeFileSync(join(shim, 'infx'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(shim, 'infx'), 0o755);
    const wf = join(root, 'repo');
    mkdirSync(wf);
    const sweepArgs = ['--engine', 'sim', ...FAST].join(' ');
    expect(cli(wf, 'ci', 'workflow', '--sweep-args', sweepArgs).status).toBe(0);
    const doc = yaml.load(readFileSync(join(wf, '.github/workflows/infx-sweep.yml'), 'utf8')) as Doc;
    const script = (job: string, step: string) => {
      const s = doc.jobs[job]?.steps.find((x) => x.name === step);
      if (!s?.run) throw new Error(`no step ${step} in ${job}`);
      return s.run;
    };
    const bash = (cwd: string, text: string, env: Record<string, string>) => {
      const out = join(cwd, 'github-output');
      writeFileSync(out, '');
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', text], {
        cwd,
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${shim}:${process.env.PATH}`,
          INFX_RUNS: 'infx-runs',
          GITHUB_OUTPUT: out,
          GITHUB_STEP_SUMMARY: join(cwd, 'summary.md'),
          ...env,
        },
      });
      const outputs = Object.fromEntries(
        readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(/=(.*)/s).slice(0, 2)),
      );
      return { ...r, outputs };
    };
    const runId = 'gh-42-1';

    // setup: the changelog matrix step's file, then the plan step as written.
    const setup = join(root, 'setup');
    mkdirSync(setup);
    writeMatrix(setup, [smallRow({ conc: 1 }), smallRow({ conc: 2 })], 'infx-matrix.json');
    const plan = bash(setup, script('setup', 'Plan the run'), {
      INFX_RUN_ID: runId,
      CANARY: 'false',
      FAIL_FAST: 'false',
      AGENTX_FAST: 'false',
    });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.outputs).toMatchObject({ 'run-id': runId, jobs: '2', canary: '', count: '2' });
    const include = JSON.parse(plan.outputs.matrix ?? '[]') as { point: string; index: number }[];
    const planDir = join(setup, 'infx-runs', runId);

    // One job per point, each in a workspace of its own with the plan artifact downloaded.
    const artifacts = join(root, 'artifacts');
    for (const entry of include) {
      const job = join(root, `job-${entry.index}`);
      cpSync(planDir, join(job, 'infx-runs', runId), { recursive: true });
      const r = bash(job, script('points', 'Run the point'), {
        INFX_RUN_ID: runId,
        INFX_POINT: entry.point,
        INFX_POINT_INDEX: String(entry.index),
      });
      expect(r.status, r.stderr).toBe(0);
      // upload-artifact keeps the path below the wildcard of infx-runs/<run>/points/*/attempt-*.
      const points = join(job, 'infx-runs', runId, 'points');
      for (const id of readdirSync(points))
        for (const a of readdirSync(join(points, id)).filter((n) => n.startsWith('attempt-')))
          cpSync(join(points, id, a), join(artifacts, `infx-point-${entry.index}`, id, a), {
            recursive: true,
          });
    }
    expect(readdirSync(artifacts).sort()).toEqual(['infx-point-1', 'infx-point-2']);

    // collect: the plan, the points merged into points/, then ingest and verify as written.
    const collect = join(root, 'collect');
    cpSync(planDir, join(collect, 'infx-runs', runId), { recursive: true });
    for (const a of readdirSync(artifacts))
      cpSync(join(artifacts, a), join(collect, 'infx-runs', runId, 'points'), { recursive: true });
    const db = join(root, 'results.db');
    const env = { INFX_RUN_ID: runId, EVENT: 'pull_request', ACTOR: 'octocat' };
    const noDb = bash(collect, script('collect', 'Ingest and verify'), { ...env, INFX_DB: '' });
    expect(noDb.status).toBe(1);
    expect(noDb.stdout).toContain('::error::the repository secret INFX_DB is empty');
    const ingest = bash(collect, script('collect', 'Ingest and verify'), { ...env, INFX_DB: db });
    expect(ingest.status, `${ingest.stdout}\n${ingest.stderr}`).toBe(0);
    expect(readFileSync(join(collect, 'summary.md'), 'utf8')).toContain(runId);
    const audit = await infx(['audit', runId, '--db', db]);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toMatch(/unofficial/);
    expect(audit.stdout).toContain('octocat');
  }, 120_000);
});
