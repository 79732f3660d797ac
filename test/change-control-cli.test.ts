import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from './helpers.ts';
import { writeGsmFile } from './support/eval-server.ts';
import { FAST, infx, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * Change control end to end with the CLI, as a PR's CI would run it: `infx changelog matrix` in a real git
 * work tree, `infx sweep` of its output under GitHub Actions' environment (a pull_request event), ingest
 * linking the changelog entries, then `infx reuse check`, `infx stage`, `infx unstage`, `infx reuse apply`
 * and `infx audit` on a real SQLite file — and two processes changing one run at once.
 */

const MASTER = `llama8b-bf16-h100-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: meta-llama/Llama-3.1-8B-Instruct
  model-prefix: llama8b
  precision: bf16
  framework: vllm
  runner: h100
  multinode: false
  scenarios:
    fixed-seq-len:
      - isl: 256
        osl: 64
        search-space:
          - { tp: 1, conc-list: [1, 2] }
`;
const entry = (key: string, link: string) =>
  `- config-keys:\n    - ${key}\n  description:\n    - "Update ${key}"\n  pr-link: ${link}\n`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function prRepo(): { dir: string; head: string } {
  const dir = tmpDir('infx-cc-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@example.com');
  git(dir, 'config', 'user.name', 't');
  mkdirSync(join(dir, 'configs'));
  writeFileSync(join(dir, 'configs/nvidia-master.yaml'), MASTER);
  writeFileSync(join(dir, 'configs/amd-master.yaml'), '{}\n');
  writeFileSync(join(dir, 'configs/runners.yaml'), 'labels:\n  h100: [h100_0]\n');
  writeFileSync(join(dir, 'perf-changelog.yaml'), entry('llama8b-bf16-h100-vllm', 'XXX'));
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'base');
  writeFileSync(
    join(dir, 'perf-changelog.yaml'),
    `${entry('llama8b-bf16-h100-vllm', 'XXX')}\n${entry('llama8b-*', 'https://github.com/o/r/pull/42')}`,
  );
  git(dir, 'commit', '-q', '-am', 'bump llama8b');
  git(dir, 'tag', 'head');
  return { dir, head: git(dir, 'rev-parse', 'head') };
}

/** GitHub Actions' environment for a pull_request run of run-sweep.yml. */
function actionsEnv(out: string, head: string, labels: string[]): NodeJS.ProcessEnv {
  const event = join(out, 'event.json');
  writeFileSync(
    event,
    JSON.stringify({
      action: 'synchronize',
      pull_request: {
        number: 42,
        head: { sha: head, ref: 'feat' },
        labels: labels.map((name) => ({ name })),
      },
    }),
  );
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_WORKFLOW_REF: 'o/r/.github/workflows/run-sweep.yml@refs/pull/42/merge',
    GITHUB_RUN_ID: '1001',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'o/r',
  };
}

const LOCAL = { GITHUB_ACTIONS: '', INFX_ACTOR: 'tester' };

/** The PR repository, and `infx changelog matrix` of it written to OUT/cl.json. */
async function changelogMatrix() {
  const { dir, head } = prRepo();
  const out = tmpDir('infx-cc-');
  const matrix = await infx(['changelog', 'matrix', '--base-ref', 'base', '--head-ref', 'head'], LOCAL, dir);
  expect(matrix.code, matrix.stderr).toBe(0);
  writeFileSync(join(out, 'cl.json'), matrix.stdout);
  return { dir, head, out, db: join(out, 'infx.db') };
}

describe('change control from the command line', () => {
  it('a PR run selected by the changelog is linked, reused, staged and audited', async () => {
    const { dir, head, out, db } = await changelogMatrix();

    const sweep = await infx(
      ['sweep', '--matrix', join(out, 'cl.json'), '--out', join(out, 'runs'), '--run-id', 'pr1', ...FAST],
      actionsEnv(out, head, ['full-sweep-enabled']),
    );
    expect(sweep.code, sweep.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'runs/pr1/manifest.json'), 'utf8'));
    expect(manifest.provenance).toMatchObject({ event: 'pull_request', prNumber: 42, headSha: head });
    expect(manifest.source.changelog.entries.map((e: { 'pr-link': string }) => e['pr-link'])).toEqual([
      'https://github.com/o/r/pull/42',
    ]);
    const ingest = await infx(['ingest', join(out, 'runs/pr1'), '--db', db], LOCAL);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout).toContain('changelog: 1 entry of base..head linked (new)');

    // A plain matrix run on this machine: local, no changelog.
    writeMatrix(out, [smallRow({ conc: 1 })], 'plain.json');
    const local = await infx(
      ['sweep', '--matrix', join(out, 'plain.json'), '--out', join(out, 'runs'), '--run-id', 'dev1', ...FAST],
      LOCAL,
    );
    expect(local.code, local.stderr).toBe(0);
    expect((await infx(['ingest', join(out, 'runs/dev1'), '--db', db], LOCAL)).code).toBe(0);

    const range = ['--base-ref', 'base', '--head-ref', 'head', '--db', db];
    const check = await infx(
      ['reuse', 'check', 'pr1', '--pr', '42', ...range, '--format', 'json'],
      LOCAL,
      dir,
    );
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({
      runId: 'pr1',
      reusable: true,
      pinned: true,
      commits: 1,
    });
    const unpinned = await infx(['reuse', 'check', '--pr', '42', ...range], LOCAL, dir);
    expect(unpinned.stdout).toContain(
      `reusable: run pr1 for PR #42: PR #42 approved reusable full sweep from latest run on ${head}`,
    );
    const dev = await infx(['reuse', 'check', 'dev1', '--pr', '42', ...range], LOCAL, dir);
    expect(dev.code).toBe(1);
    expect(dev.stdout).toContain(
      'FAIL  event: Reusable source run dev1 is not a pull_request run (its event: local).',
    );
    const commits = join(out, 'commits.txt');
    writeFileSync(commits, `${'0'.repeat(40)}\n`);
    const moved = await infx(
      ['reuse', 'check', 'pr1', '--pr', '42', '--commits', commits, '--db', db],
      LOCAL,
    );
    expect(moved.code).toBe(1);
    expect(moved.stdout).toContain(`head ${head} is not in PR #42's commit list`);
    const noCommits = await infx(['reuse', 'check', 'pr1', '--pr', '42', '--db', db], LOCAL);
    expect([noCommits.code, noCommits.stderr]).toEqual([
      2,
      expect.stringContaining('say which commits the PR has'),
    ]);
    expect((await infx(['reuse', 'check', '--pr', 'x42', '--commits', commits], LOCAL)).code).toBe(2);

    const stage = await infx(['stage', 'pr1', '--pr', '42', ...range, '--actor', 'alice'], LOCAL, dir);
    expect(stage.code, stage.stderr).toBe(0);
    expect(stage.stdout).toContain('run pr1 staged: unofficial → staged');
    const devStage = await infx(['stage', 'dev1', '--db', db], LOCAL);
    expect([devStage.code, devStage.stderr]).toEqual([
      1,
      expect.stringContaining('Run dev1 cannot be staged because it has no changelog entries'),
    ]);
    expect((await infx(['unstage', 'pr1', '--db', db, '--reason', 'rerun the canary'], LOCAL)).code).toBe(0);
    const twice = await infx(['unstage', 'pr1', '--db', db], LOCAL);
    expect([twice.code, twice.stderr]).toEqual([
      1,
      "error: run 'pr1' is not staged (it is unofficial): nothing to unstage\n",
    ]);

    const apply = await infx(
      ['reuse', 'apply', 'pr1', '--pr', '42', ...range, '--changelog', join(out, 'cl.json')],
      LOCAL,
      dir,
    );
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('run pr1 made official (reused for its merge): unofficial → official');
    expect(apply.stdout).toContain('warning: 2 of the run');

    const audit = await infx(['audit', 'pr1', '--db', db, '--format', 'json'], LOCAL);
    const a = JSON.parse(audit.stdout);
    expect(a.status).toBe('official');
    expect(a.events.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([
      ['ingested', 'tester'],
      ['staged', 'alice'],
      ['unstaged', 'tester'],
      ['reused', 'tester'],
    ]);
    expect(a.events[2].reason).toBe('rerun the canary');
    expect(a.changelog[0].entry['config-keys']).toEqual(['llama8b-*']);
    const text = await infx(['audit', 'pr1', '--db', db], LOCAL);
    expect(text.stdout).toContain('from: pull_request of PR #42 at');
    expect(text.stdout).toContain('0: llama8b-* (https://github.com/o/r/pull/42) — Update llama8b-*');
  });

  it("a changelog matrix's eval rows are planned as eval-only points beside its throughput rows", async () => {
    const out = tmpDir('infx-cc-');
    const file = join(out, 'evals.json');
    const row = smallRow({ conc: 1 });
    const write = (single: object[], evals: object[]) =>
      writeFileSync(
        file,
        JSON.stringify({
          single_node: single.length > 0 ? { '256_64': single } : {},
          multi_node: {},
          // As the processor prints them: the benchmark row again, marked.
          evals,
          changelog_metadata: {
            base_ref: 'a',
            head_ref: 'b',
            entries: [{ 'config-keys': ['x'], description: ['d'], 'pr-link': 'XXX' }],
          },
        }),
      );
    write([row], [{ ...row, 'run-eval': true, 'eval-only': true }]);
    const gsm = writeGsmFile(out, 'test.jsonl', 4);
    const sweep = (...extra: string[]) =>
      infx(['sweep', '--matrix', file, '--out', join(out, 'runs'), '--dry-run', ...extra], LOCAL);
    const planned = await sweep('--eval-dataset', gsm);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/^run .*: 2 points/m);
    expect(planned.stdout).toMatch(/eval_llama8b_256_64/);
    // Without the questions the eval row is listed as not run, with the reason; the benchmark still runs.
    const without = await sweep();
    expect(without.stdout).toMatch(/: 1 point,/);
    expect(without.stdout).toContain('need its questions: give infx sweep --eval-dataset FILE');
    // Only eval rows (an evals-only PR): the eval points alone.
    write([], [{ ...row, 'run-eval': true, 'eval-only': true }]);
    const evalsOnly = await sweep('--eval-dataset', gsm);
    expect(evalsOnly.code, evalsOnly.stderr).toBe(0);
    expect(evalsOnly.stdout).toMatch(/: 1 point,/);
    // Nothing at all is refused, saying so.
    write([], []);
    const none = await sweep();
    expect([none.code, none.stderr]).toEqual([
      1,
      expect.stringContaining('select no throughput or eval rows'),
    ]);
  });

  it('two processes staging and unstaging one run leave a gapless trail (SQLite)', async () => {
    const { head, out, db } = await changelogMatrix();
    const env = actionsEnv(out, head, ['full-sweep-enabled']);
    expect(
      (
        await infx(
          ['sweep', '--matrix', join(out, 'cl.json'), '--out', join(out, 'runs'), '--run-id', 'pr1', ...FAST],
          env,
        )
      ).code,
    ).toBe(0);
    expect((await infx(['ingest', join(out, 'runs/pr1'), '--db', db], LOCAL)).code).toBe(0);
    const loop = async () => {
      for (let i = 0; i < 3; i++) {
        await infx(['stage', 'pr1', '--db', db], LOCAL);
        await infx(['unstage', 'pr1', '--db', db], LOCAL);
      }
    };
    await Promise.all([loop(), loop()]);
    const a = JSON.parse((await infx(['audit', 'pr1', '--db', db, '--format', 'json'], LOCAL)).stdout);
    const events = a.events as { seq: number; from: string | null; to: string }[];
    expect(events.length).toBeGreaterThanOrEqual(7);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (let i = 1; i < events.length; i++) expect(events[i]!.from).toBe(events[i - 1]!.to);
    expect(events.at(-1)!.to).toBe(a.status);
  });
});
