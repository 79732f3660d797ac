// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are GitHub expressions and bash scripts
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CiLabelOutputSchema, CiMatrixOutputSchema } from '../src/schema/ci-workflow.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { BIN, FAST, infx, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * `infx ci workflow` as a user runs it (bin/infx.js: `npm run build` first), and the scripts it writes run
 * as GitHub Actions would run them: the plan step, each point job in a workspace of its own, the artifacts
 * moved as upload/download-artifact move them, then the collect job's ingest and verify.
 */

const built = existsSync(BIN);
const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });

/** One config the simulated engine serves in a blink: two recipes, two concurrencies each. */
const MASTER = `llama8b-bf16-h100-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: meta-llama/Llama-3.1-8B-Instruct
  model-prefix: llama8b
  runner: h100
  precision: bf16
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
      - isl: 256
        osl: 64
        search-space:
          - { tp: 1, conc-start: 1, conc-end: 2 }
          - { tp: 2, conc-start: 2, conc-end: 4 }
`;
const changelogEntry = (what: string, pr: number) =>
  `- config-keys:\n    - llama8b-bf16-h100-vllm\n  description:\n    - "${what}"\n  pr-link: https://github.com/acme/bench/pull/${pr}\n`;

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
    const hosted = cli(b, 'ci', 'workflow', '--out', 'hosted', '--control-runner', 'ubuntu-latest');
    expect(hosted.status).toBe(0);
    expect(hosted.stderr).toContain('warning: the gate, setup and collect jobs run on ubuntu-latest');
    const sim = cli(b, 'ci', 'workflow', '--out', 'sim', '--sweep-args', '--engine sim');
    expect(sim.stderr).toContain('warning: the points run on the simulated engine');
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
    const json = cli(
      dir,
      'ci',
      'labels',
      '--labels-json',
      '["full-sweep-enabled","agentx-fast"]',
      '--format',
      'json',
    );
    expect(CiLabelOutputSchema.parse(JSON.parse(json.stdout))).toMatchObject({
      sweep: true,
      agentxFast: true,
      canary: true,
      failFast: false,
    });
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
    const parsed = CiMatrixOutputSchema.parse(JSON.parse(m.stdout));
    expect(parsed.count).toBe(3);
    expect(parsed.canary).toMatchObject({ index: 1, runner: 'h100' });
    expect(parsed.canary?.point).toMatch(/conc1/);
    expect(parsed.include.map((e) => e.index)).toEqual([2, 3]);
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

  it("runs the workflow's own scripts end to end: gate, plan, point jobs, collect (simulated engine)", async () => {
    const root = tmpDir('infx-ci-run-');
    const shim = join(root, 'bin');
    mkdirSync(shim);
    writeFileSync(join(shim, 'infx'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(shim, 'infx'), 0o755);

    // The project: a master config, its runners and a changelog; the PR appends an entry.
    const repo = join(root, 'repo');
    mkdirSync(join(repo, 'configs'), { recursive: true });
    const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' }).stdout.trim();
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 't@example.com');
    git('config', 'user.name', 't');
    writeFileSync(join(repo, 'configs/master.yaml'), MASTER);
    cpSync(join(REPO_ROOT, 'examples/runners.yaml'), join(repo, 'configs/runners.yaml'));
    writeFileSync(join(repo, 'perf-changelog.yaml'), changelogEntry('First', 1));
    git('add', '-A');
    git('commit', '-qm', 'base');
    const baseSha = git('rev-parse', 'HEAD');
    writeFileSync(
      join(repo, 'perf-changelog.yaml'),
      `${changelogEntry('First', 1)}\n${changelogEntry('Rerun', 7)}`,
    );
    git('commit', '-qam', 'Rerun llama8b');
    const headSha = git('rev-parse', 'HEAD');

    const flags = ['--config-files', 'configs/master.yaml', '--runner-config', 'configs/runners.yaml'];
    const sweepArgs = ['--engine', 'sim', ...FAST].join(' ');
    expect(cli(repo, 'ci', 'workflow', ...flags, '--sweep-args', sweepArgs).status).toBe(0);
    const doc = yaml.load(readFileSync(join(repo, '.github/workflows/infx-sweep.yml'), 'utf8')) as Doc;

    // What GitHub would put in each ${{ }} of a step's env, for a pull_request event labelled sweep-enabled.
    const runId = 'gh-42-1';
    const context: Record<string, string> = {
      'github.event_name': 'pull_request',
      "toJSON(github.event.pull_request.labels.*.name || fromJSON('[]'))":
        '["sweep-enabled","documentation"]',
      'github.event.pull_request.head.sha || github.sha': headSha,
      'github.event.pull_request.base.sha || github.event.before': baseSha,
      'github.event.pull_request.number': '7',
      'github.actor': 'octocat',
    };
    const resolve = (value: string) =>
      value.replace(/\$\{\{ (.*?) \}\}/g, (_, expr: string) => {
        const v = context[expr];
        if (v === undefined) throw new Error(`the test has no value for \${{ ${expr} }}`);
        return v;
      });
    const step = (job: string, name: string) => {
      const s = doc.jobs[job]?.steps.find((x) => x.name === name);
      if (!s?.run) throw new Error(`no step ${name} in ${job}`);
      return s;
    };
    const bash = (cwd: string, job: string, name: string, env: Record<string, string> = {}) => {
      const s = step(job, name);
      const out = join(cwd, 'github-output');
      writeFileSync(out, '');
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', s.run as string], {
        cwd,
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${shim}:${process.env.PATH}`,
          INFX_RUNS: 'infx-runs',
          GITHUB_OUTPUT: out,
          // A project of its own: its PR links name its repository, not the reference's.
          GITHUB_REPOSITORY: 'acme/bench',
          GITHUB_STEP_SUMMARY: join(cwd, 'summary.md'),
          ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, resolve(v)])),
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
    const setOutputs = (prefix: string, outputs: Record<string, string>) => {
      for (const [k, v] of Object.entries(outputs)) context[`${prefix}.${k}`] = v;
    };

    // gate: the labels, then the changelog gate with the label flags.
    const labels = bash(repo, 'gate', 'Labels');
    expect(labels.status, labels.stderr).toBe(0);
    expect(labels.outputs).toMatchObject({ sweep: 'true', 'trim-conc': 'true', canary: 'false' });
    setOutputs('steps.labels.outputs', labels.outputs);
    setOutputs('needs.gate.outputs', labels.outputs);
    const gate = bash(repo, 'gate', 'Changelog gate');
    expect(gate.status, gate.stderr).toBe(0);

    // setup: the changelog matrix (sweep-enabled trims to the lowest concurrency of each recipe), the plan.
    const matrix = bash(repo, 'setup', 'Changelog matrix');
    expect(matrix.status, matrix.stderr).toBe(0);
    const plan = bash(repo, 'setup', 'Plan the run', { INFX_RUN_ID: runId });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.outputs).toMatchObject({ 'run-id': runId, jobs: '2', canary: '', count: '2' });
    const include = JSON.parse(plan.outputs.matrix ?? '[]') as {
      point: string;
      index: number;
      runner: string;
    }[];
    expect(include.map((e) => e.runner)).toEqual(['h100', 'h100']);
    expect(include.map((e) => e.point).join(' ')).toMatch(/tp1.*conc1.* .*tp2.*conc2/);
    const planDir = join(repo, 'infx-runs', runId);

    // One job per point, each in a workspace of its own with the plan artifact downloaded.
    const artifacts = join(root, 'artifacts');
    for (const entry of include) {
      const job = join(root, `job-${entry.index}`);
      cpSync(planDir, join(job, 'infx-runs', runId), { recursive: true });
      const r = bash(job, 'points', 'Run the point', {
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
    context['secrets.INFX_DB'] = '';
    const noDb = bash(collect, 'collect', 'Ingest and verify', { INFX_RUN_ID: runId });
    expect(noDb.status).toBe(1);
    expect(noDb.stdout).toContain('::error::the repository secret INFX_DB is empty');
    context['secrets.INFX_DB'] = db;
    const ingest = bash(collect, 'collect', 'Ingest and verify', { INFX_RUN_ID: runId });
    expect(ingest.status, `${ingest.stdout}\n${ingest.stderr}`).toBe(0);
    expect(readFileSync(join(collect, 'summary.md'), 'utf8')).toContain(runId);
    const audit = await infx(['audit', runId, '--db', db]);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toMatch(/unofficial/);
    expect(audit.stdout).toContain('octocat');

    // A second label on the same PR: the gate fails with the reference's message, and nothing is planned.
    context["toJSON(github.event.pull_request.labels.*.name || fromJSON('[]'))"] =
      '["sweep-enabled","full-sweep-enabled"]';
    const conflict = bash(repo, 'gate', 'Labels');
    expect(conflict.status).toBe(1);
    expect(conflict.stderr).toContain('PR has multiple conflicting sweep labels. Pick exactly one.');
    expect(conflict.outputs.sweep).toBe('false');

    // A head commit that says [skip-sweep] stops the PR sweep at the gate.
    git('commit', '-q', '--allow-empty', '-m', 'Typo fix [skip-sweep]');
    context['github.event.pull_request.head.sha || github.sha'] = git('rev-parse', 'HEAD');
    context["toJSON(github.event.pull_request.labels.*.name || fromJSON('[]'))"] = '["sweep-enabled"]';
    const skipped = bash(repo, 'gate', 'Labels');
    expect(skipped.status, skipped.stderr).toBe(0);
    expect(skipped.outputs).toMatchObject({
      sweep: 'false',
      reason: expect.stringContaining('[skip-sweep]'),
    });
  }, 120_000);
});
