// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are bash scripts, whose ${…} bash expands
import { type CiWorkflowOptions, CiWorkflowOptionsSchema } from '../schema/ci-workflow.ts';
import { InfxError } from '../schema/errors.ts';
import { RELEVANT_LABELS } from './ci-outputs.ts';
import { reviewWorkflow } from './ci-review.ts';
import {
  ACTIONS,
  flagIf,
  type Job,
  runsOn,
  type Step,
  script,
  setupSteps,
  shWords,
  workflowText,
} from './ci-yaml.ts';

/**
 * `infx ci workflow`: the GitHub Actions workflows that run a project's sweeps with infx on self-hosted
 * runners, in the shape of the reference's run-sweep.yml (changelog-pr-spec §3): a gate (labels, then the
 * changelog gate), a setup job that plans the run from `infx changelog matrix`, a canary, one job per point
 * on the point's runner, and a collect job that ingests and verifies the run. Untrusted event fields (labels,
 * PR body, refs) reach scripts only through `env:`, never as `${{ }}` inside `run:`.
 */

export class CiWorkflowError extends InfxError {}

export const CI_WORKFLOW_DEFAULTS: CiWorkflowOptions = {
  branch: 'main',
  runnerLabels: [],
  rowRunnerLabel: true,
  controlRunner: ['self-hosted'],
  dbSecret: 'INFX_DB',
  changelogFile: 'perf-changelog.yaml',
  configFiles: ['configs/amd-master.yaml', 'configs/nvidia-master.yaml'],
  runnerConfig: 'configs/runners.yaml',
  install: null,
  nodeVersion: '20',
  sweepArgs: ['--engine', 'recipe'],
  review: true,
};

export const SWEEP_WORKFLOW = 'infx-sweep.yml';
export const REVIEW_WORKFLOW = 'infx-review.yml';
/** Where the jobs keep run directories (not hidden: upload-artifact leaves hidden files out). */
export const RUNS_DIR = 'infx-runs';
export const PLAN_ARTIFACT = 'infx-plan';
export const POINT_ARTIFACT_PREFIX = 'infx-point-';
export const RUN_ARTIFACT = 'infx-run';

export interface CiWorkflowFile {
  name: string;
  text: string;
}

const E = (expr: string) => `\${{ ${expr} }}`;
const HEAD_SHA = E('github.event.pull_request.head.sha || github.sha');
const BASE_SHA = E('github.event.pull_request.base.sha || github.event.before');
const IS_LABEL_EVENT = "(github.event.action == 'labeled' || github.event.action == 'unlabeled')";
const RELEVANT = `contains(fromJSON('${JSON.stringify(RELEVANT_LABELS)}'), github.event.label.name)`;
const RUN_DIR = '$INFX_RUNS/$INFX_RUN_ID';
const RUN_ID = E('needs.setup.outputs.run-id');
const RUN_DIR_EXPR = `${RUNS_DIR}/${E('env.INFX_RUN_ID')}`;

/** Flags every changelog command gets: the files of this project. */
function changelogFiles(o: CiWorkflowOptions): string {
  return shWords([
    '--changelog-file',
    o.changelogFile,
    '--config-files',
    ...o.configFiles,
    '--runner-config',
    o.runnerConfig,
  ]);
}

function gateJob(o: CiWorkflowOptions): Job {
  const outputs = ['sweep', 'reason', 'trim-conc', 'all-evals', 'evals-only', 'agentx-fast', 'canary'];
  return {
    name: 'Changelog gate and labels',
    // Drafts never run; a label event runs only for a label that steers the sweep (§3.3).
    if:
      "github.event_name == 'push' || (github.event.pull_request.draft == false && " +
      `(!${IS_LABEL_EVENT} || ${RELEVANT}))`,
    'runs-on': o.controlRunner,
    outputs: Object.fromEntries([...outputs, 'fail-fast'].map((k) => [k, E(`steps.labels.outputs.${k}`)])),
    steps: [
      ...setupSteps(o, { ref: HEAD_SHA, history: true }),
      {
        name: 'Labels',
        id: 'labels',
        env: {
          EVENT: E('github.event_name'),
          LABELS: E("toJSON(github.event.pull_request.labels.*.name || fromJSON('[]'))"),
          HEAD_SHA,
        },
        run: script(
          'event=push',
          'skip=()',
          'if [ "$EVENT" = pull_request ]; then',
          '  event=pr',
          '  message="$(git log -1 --format=%B "$HEAD_SHA")"',
          '  case "$message" in *"[skip-sweep]"*) skip=(--skip-sweep) ;; esac',
          'fi',
          'infx ci labels --event "$event" --labels-json "$LABELS" "${skip[@]}" >> "$GITHUB_OUTPUT"',
        ),
      },
      {
        name: 'Changelog gate',
        // As the reference's check-changelog: a PR's gate; a push to main sweeps what was merged.
        if: "github.event_name == 'pull_request'",
        env: {
          BASE_SHA,
          HEAD_SHA,
          PR_NUMBER: E('github.event.pull_request.number'),
          ALL_EVALS: E('steps.labels.outputs.all-evals'),
          EVALS_ONLY: E('steps.labels.outputs.evals-only'),
        },
        run: script(
          // The project's own PR links: $GITHUB_REPOSITORY, which Actions sets on every runner.
          `args=(--base-ref "$BASE_SHA" --head-ref "$HEAD_SHA" --pr "$PR_NUMBER" --repo "$GITHUB_REPOSITORY" ${changelogFiles(o)})`,
          flagIf('ALL_EVALS', '--all-evals'),
          flagIf('EVALS_ONLY', '--evals-only'),
          'infx changelog validate "${args[@]}"',
        ),
      },
    ],
  };
}

function setupJob(o: CiWorkflowOptions): Job {
  const gate = (k: string) => E(`needs.gate.outputs.${k}`);
  return {
    name: 'Plan the sweep',
    needs: 'gate',
    // Fork PRs never reach self-hosted runners from here (§3.3); a push always plans.
    if:
      "needs.gate.outputs.sweep == 'true' && (github.event_name == 'push' || " +
      'github.event.pull_request.head.repo.full_name == github.repository)',
    'runs-on': o.controlRunner,
    // The run is named once, here: a re-run of failed point jobs keeps this job's outputs, so its points
    // land in the run they were planned in.
    env: { INFX_RUN_ID: `gh-${E('github.run_id')}-${E('github.run_attempt')}` },
    outputs: Object.fromEntries(
      ['run-id', 'matrix', 'jobs', 'canary', 'count'].map((k) => [k, E(`steps.plan.outputs.${k}`)]),
    ),
    steps: [
      ...setupSteps(o, { ref: HEAD_SHA, history: true }),
      {
        name: 'Changelog matrix',
        env: {
          EVENT: E('github.event_name'),
          BASE_SHA,
          HEAD_SHA,
          TRIM_CONC: gate('trim-conc'),
          ALL_EVALS: gate('all-evals'),
          EVALS_ONLY: gate('evals-only'),
        },
        run: script(
          `args=(--base-ref "$BASE_SHA" --head-ref "$HEAD_SHA" ${changelogFiles(o)})`,
          '# A push to main runs the full, untrimmed sweep: the label flags apply to pull requests only.',
          'if [ "$EVENT" = pull_request ]; then',
          `  ${flagIf('TRIM_CONC', '--trim-conc')}`,
          `  ${flagIf('ALL_EVALS', '--all-evals')}`,
          `  ${flagIf('EVALS_ONLY', '--evals-only')}`,
          'fi',
          'infx changelog matrix "${args[@]}" > infx-matrix.json',
        ),
      },
      {
        name: 'Plan the run',
        id: 'plan',
        env: {
          CANARY: gate('canary'),
          FAIL_FAST: gate('fail-fast'),
          AGENTX_FAST: gate('agentx-fast'),
        },
        run: script(
          `args=(--matrix infx-matrix.json --plan-only --out "$INFX_RUNS" --run-id "$INFX_RUN_ID"${o.sweepArgs.length ? ` ${shWords(o.sweepArgs)}` : ''})`,
          flagIf('CANARY', '--canary'),
          flagIf('FAIL_FAST', '--fail-fast'),
          flagIf('AGENTX_FAST', '--agentx-fast'),
          'infx sweep "${args[@]}"',
          'echo "run-id=$INFX_RUN_ID" >> "$GITHUB_OUTPUT"',
          `infx ci matrix "${RUN_DIR}" >> "$GITHUB_OUTPUT"`,
        ),
      },
      {
        name: 'Upload the plan',
        uses: ACTIONS.upload,
        with: { name: PLAN_ARTIFACT, path: RUN_DIR_EXPR, 'if-no-files-found': 'error' },
      },
      {
        name: 'Upload the changelog matrix',
        uses: ACTIONS.upload,
        with: { name: 'infx-matrix', path: 'infx-matrix.json', 'if-no-files-found': 'error' },
      },
    ],
  };
}

/** The steps of one point's job: the plan, the point (fresh engine, measurement, teardown), its artifact. */
function pointSteps(o: CiWorkflowOptions): Step[] {
  return [
    ...setupSteps(o),
    {
      name: 'Download the plan',
      uses: ACTIONS.download,
      with: { name: PLAN_ARTIFACT, path: RUN_DIR_EXPR },
    },
    {
      name: 'Run the point',
      run: script(
        `dir="${RUN_DIR}/points/$INFX_POINT"`,
        'infx sweep point --point "$dir/spec.json" --out "$dir/attempt-1"',
      ),
    },
    {
      name: 'Upload the point',
      if: 'always()',
      uses: ACTIONS.upload,
      // The path keeps points/<id>/attempt-1 below the wildcard, so the collect job merges them in place.
      with: {
        name: `${POINT_ARTIFACT_PREFIX}${E('env.INFX_POINT_INDEX')}`,
        path: `${RUN_DIR_EXPR}/points/*/attempt-*`,
        'if-no-files-found': 'warn',
      },
    },
  ];
}

function pointRunsOn(o: CiWorkflowOptions, runner: string): string[] {
  return runsOn([...o.runnerLabels, ...(o.rowRunnerLabel ? [runner] : [])]);
}

function canaryJob(o: CiWorkflowOptions): Job {
  const canary = (k: string) => E(`fromJSON(needs.setup.outputs.canary).${k}`);
  return {
    name: 'Canary',
    needs: 'setup',
    if: "needs.setup.outputs.canary != ''",
    'runs-on': pointRunsOn(o, canary('runner')),
    env: { INFX_RUN_ID: RUN_ID, INFX_POINT: canary('point'), INFX_POINT_INDEX: canary('index') },
    steps: pointSteps(o),
  };
}

function pointsJob(o: CiWorkflowOptions): Job {
  return {
    name: E('matrix.title'),
    needs: ['gate', 'setup', 'canary'],
    // A failed canary blocks the fan-out; a skipped one (no canary label) does not.
    if: E(
      "!cancelled() && needs.setup.result == 'success' && needs.setup.outputs.jobs != '0' && " +
        "(needs.canary.result == 'success' || needs.canary.result == 'skipped')",
    ),
    'runs-on': pointRunsOn(o, E('matrix.runner')),
    strategy: {
      'fail-fast': E("needs.gate.outputs.fail-fast == 'true'"),
      matrix: { include: E('fromJSON(needs.setup.outputs.matrix)') },
    },
    env: { INFX_RUN_ID: RUN_ID, INFX_POINT: E('matrix.point'), INFX_POINT_INDEX: E('matrix.index') },
    steps: pointSteps(o),
  };
}

function collectJob(o: CiWorkflowOptions): Job {
  return {
    name: 'Ingest and verify',
    needs: ['setup', 'canary', 'points'],
    if: E("!cancelled() && needs.setup.result == 'success'"),
    'runs-on': o.controlRunner,
    env: { INFX_RUN_ID: RUN_ID },
    steps: [
      ...setupSteps(o),
      {
        name: 'Download the plan',
        uses: ACTIONS.download,
        with: { name: PLAN_ARTIFACT, path: RUN_DIR_EXPR },
      },
      {
        name: 'Download the points',
        uses: ACTIONS.download,
        with: {
          pattern: `${POINT_ARTIFACT_PREFIX}*`,
          path: `${RUN_DIR_EXPR}/points`,
          'merge-multiple': true,
        },
      },
      {
        name: 'Ingest and verify',
        env: {
          INFX_DB: E(`secrets.${o.dbSecret}`),
          EVENT: E('github.event_name'),
          ACTOR: E('github.actor'),
        },
        run: script(
          `run_dir="${RUN_DIR}"`,
          'infx sweep status "$run_dir" | tee -a "$GITHUB_STEP_SUMMARY"',
          'if [ -z "$INFX_DB" ]; then',
          `  echo "::error::the repository secret ${o.dbSecret} is empty: set it to the results database URL (postgres://USER:PASSWORD@HOST:PORT/DB)"`,
          '  exit 1',
          'fi',
          "# A pull request's run is unofficial; a push to main stores the run as it is.",
          'status=()',
          'if [ "$EVENT" = pull_request ]; then status=(--status unofficial); fi',
          'code=0',
          'infx ingest "$run_dir" "${status[@]}" --actor "$ACTOR" || code=$?',
          'infx verify "$INFX_RUN_ID" --run-dir "$run_dir"',
          'exit "$code"',
        ),
      },
      {
        name: 'Upload the run directory',
        if: 'always()',
        uses: ACTIONS.upload,
        with: { name: RUN_ARTIFACT, path: RUN_DIR_EXPR, 'if-no-files-found': 'warn' },
      },
    ],
  };
}

function sweepWorkflow(o: CiWorkflowOptions): Record<string, unknown> {
  const paths = [o.changelogFile];
  return {
    name: 'infx sweep',
    on: {
      pull_request: {
        branches: [o.branch],
        types: ['ready_for_review', 'synchronize', 'labeled', 'unlabeled'],
        paths,
      },
      push: { branches: [o.branch], paths },
    },
    permissions: { contents: 'read' },
    // One group per PR (per commit for pushes); a label event that steers nothing gets a group of its own,
    // so it never cancels a sweep in progress.
    concurrency: {
      group:
        `infx-sweep-${E('github.event.pull_request.number || github.sha')}` +
        E(`${IS_LABEL_EVENT} && !${RELEVANT} && format('-label-{0}', github.run_id) || ''`),
      'cancel-in-progress': true,
    },
    env: { INFX_RUNS: RUNS_DIR },
    defaults: { run: { shell: 'bash' } },
    jobs: {
      gate: gateJob(o),
      setup: setupJob(o),
      canary: canaryJob(o),
      points: pointsJob(o),
      collect: collectJob(o),
    },
  };
}

/** The command line that writes these files again (only flags that differ from the defaults). */
export function regenerateCommand(o: CiWorkflowOptions, out: string): string {
  const d = CI_WORKFLOW_DEFAULTS;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const words = ['infx', 'ci', 'workflow'];
  if (out !== '.github/workflows') words.push('--out', out);
  if (o.branch !== d.branch) words.push('--branch', o.branch);
  if (o.runnerLabels.length) words.push('--runner-label', ...o.runnerLabels);
  if (!o.rowRunnerLabel) words.push('--no-row-runner-label');
  if (!same(o.controlRunner, d.controlRunner)) words.push('--control-runner', ...o.controlRunner);
  if (o.dbSecret !== d.dbSecret) words.push('--db-secret', o.dbSecret);
  if (o.changelogFile !== d.changelogFile) words.push('--changelog-file', o.changelogFile);
  if (!same(o.configFiles, d.configFiles)) words.push('--config-files', ...o.configFiles);
  if (o.runnerConfig !== d.runnerConfig) words.push('--runner-config', o.runnerConfig);
  if (o.install) words.push('--install', o.install);
  if (o.nodeVersion !== d.nodeVersion) words.push('--node-version', o.nodeVersion);
  if (!same(o.sweepArgs, d.sweepArgs)) words.push(`--sweep-args=${o.sweepArgs.join(' ')}`);
  if (!o.review) words.push('--no-review');
  return shWords(words);
}

/** What the options leave for the user to do (printed, not refused). */
export function ciWorkflowWarnings(o: CiWorkflowOptions): string[] {
  const out: string[] = [];
  if (o.install === null && !o.controlRunner.includes('self-hosted'))
    out.push(
      `the gate, setup and collect jobs run on ${o.controlRunner.join(', ')}, which has no infx installed: give --install (e.g. --install "npm install --global infx")`,
    );
  if (!o.sweepArgs.includes('--engine') || o.sweepArgs[o.sweepArgs.indexOf('--engine') + 1] === 'sim')
    out.push(
      'the points run on the simulated engine (infx sweep defaults to --engine sim): give --sweep-args "--engine recipe ..." to run real engines',
    );
  return out;
}

/** The files `infx ci workflow` writes, by name, for these options (the same options: the same bytes). */
export function ciWorkflowFiles(options: CiWorkflowOptions, version: string, out: string): CiWorkflowFile[] {
  const parsed = CiWorkflowOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CiWorkflowError(`${issue?.path.join('.') || 'options'}: ${issue?.message ?? 'invalid'}`);
  }
  const o = parsed.data;
  const header = (what: string) => [
    `${what}`,
    `Written by infx ${version}; edit the flags, not this file, and write it again with:`,
    `  ${regenerateCommand(o, out)}`,
  ];
  const files: CiWorkflowFile[] = [
    {
      name: SWEEP_WORKFLOW,
      text: workflowText(
        header(
          'infx sweep: the PR and main-branch sweeps of perf-changelog entries, on self-hosted runners.',
        ),
        sweepWorkflow(o),
      ),
    },
  ];
  if (o.review)
    files.push({
      name: REVIEW_WORKFLOW,
      text: workflowText(
        header('infx review: the rule-based review of a config change on every pull request.'),
        reviewWorkflow(o),
      ),
    });
  return files;
}
