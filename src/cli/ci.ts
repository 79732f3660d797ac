import { type Command, Option } from 'commander';
import type { CiWorkflowOptions } from '../schema/ci-workflow.ts';
import { INFX_VERSION } from '../schema/version.ts';
import { reportError, UsageError } from './errors.ts';
import type { CliIO } from './io.ts';

/**
 * `infx ci`: GitHub Actions with infx. `workflow` writes the workflow files; `labels` and `matrix` are the
 * steps those workflows run (the gate's label decision, the setup job's matrix of points).
 */

interface WorkflowFlags {
  out: string;
  branch: string;
  runnerLabel?: string[];
  rowRunnerLabel: boolean;
  controlRunner?: string[];
  dbSecret: string;
  changelogFile: string;
  configFiles?: string[];
  runnerConfig: string;
  install?: string;
  nodeVersion: string;
  sweepArgs?: string;
  review: boolean;
  force?: boolean;
}

async function workflow(f: WorkflowFlags, io: CliIO): Promise<number> {
  const [
    { ciWorkflowFiles, ciWorkflowWarnings, CI_WORKFLOW_DEFAULTS },
    { writeCiWorkflows },
    { CiWorkflowOptionsSchema },
  ] = await Promise.all([
    import('../bot/ci-workflow.ts'),
    import('../bot/ci-write.ts'),
    import('../schema/ci-workflow.ts'),
  ]);
  const d = CI_WORKFLOW_DEFAULTS;
  const options: CiWorkflowOptions = {
    branch: f.branch,
    runnerLabels: f.runnerLabel ?? d.runnerLabels,
    rowRunnerLabel: f.rowRunnerLabel,
    controlRunner: f.controlRunner ?? d.controlRunner,
    dbSecret: f.dbSecret,
    changelogFile: f.changelogFile,
    configFiles: f.configFiles ?? d.configFiles,
    runnerConfig: f.runnerConfig,
    install: f.install === undefined || f.install.trim() === '' ? null : f.install,
    nodeVersion: f.nodeVersion,
    sweepArgs: f.sweepArgs === undefined ? d.sweepArgs : f.sweepArgs.split(/\s+/).filter(Boolean),
    review: f.review,
  };
  const parsed = CiWorkflowOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = FLAG_OF[String(issue?.path[0])] ?? String(issue?.path[0]);
    const value = issue?.path.reduce<unknown>(
      (v, k) => (v as Record<PropertyKey, unknown>)?.[k as PropertyKey],
      options,
    );
    throw new UsageError(`${flag} ${JSON.stringify(value)}: ${issue?.message ?? 'invalid'}`);
  }
  const files = ciWorkflowFiles(parsed.data, INFX_VERSION, f.out);
  const r = await writeCiWorkflows(f.out, files, f.force ?? false);
  for (const p of r.written) io.stdout(`wrote ${p}\n`);
  for (const p of r.replaced) io.stdout(`overwrote ${p} (--force)\n`);
  for (const p of r.unchanged) io.stdout(`${p} is up to date\n`);
  for (const w of ciWorkflowWarnings(parsed.data)) io.stderr(`warning: ${w}\n`);
  if (r.written.length + r.replaced.length > 0)
    io.stderr(
      `the point jobs run on self-hosted runners labelled ${['self-hosted', ...parsed.data.runnerLabels, ...(parsed.data.rowRunnerLabel ? ['<row runner>'] : [])].join(', ')}; ` +
        `set the repository secret ${parsed.data.dbSecret} to the results database URL\n`,
    );
  return 0;
}

const FLAG_OF: Record<string, string> = {
  branch: '--branch',
  runnerLabels: '--runner-label',
  controlRunner: '--control-runner',
  dbSecret: '--db-secret',
  changelogFile: '--changelog-file',
  configFiles: '--config-files',
  runnerConfig: '--runner-config',
  install: '--install',
  nodeVersion: '--node-version',
  sweepArgs: '--sweep-args',
};

export function registerCi(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const ci = program
    .command('ci')
    .description('GitHub Actions with infx: write the sweep workflows, and the steps they run');

  ci.command('workflow')
    .description(
      'write GitHub Actions workflows that run the changelog sweep on self-hosted runners: gate, ' +
        'plan (infx changelog matrix), canary, one job per point, ingest and verify; and infx review on PRs',
    )
    .option('--out <dir>', 'folder of the workflow files', '.github/workflows')
    .option('--branch <name>', 'the main branch (pushes sweep; pull requests into it sweep)', 'main')
    .option(
      '--runner-label <labels...>',
      'labels every point job asks for besides self-hosted and its row runner (e.g. gpu)',
    )
    .option('--no-row-runner-label', "do not ask for each point's runners.yaml label (h200, mi355x, ...)")
    .option(
      '--control-runner <labels...>',
      'runs-on labels of the jobs that run no engine (gate, plan, ingest, review) (default: self-hosted)',
    )
    .option('--db-secret <name>', 'the repository secret holding the results database URL', 'INFX_DB')
    .option('--changelog-file <path>', 'the changelog', 'perf-changelog.yaml')
    .option(
      '--config-files <files...>',
      'master configs (default: configs/amd-master.yaml configs/nvidia-master.yaml)',
    )
    .option('--runner-config <path>', 'the runner config', 'configs/runners.yaml')
    .option(
      '--install <command>',
      'shell command that puts infx on PATH in each job, e.g. "npm install --global infx" (default: the runners have it)',
    )
    .option('--node-version <version>', 'Node.js for actions/setup-node', '20')
    .option(
      '--sweep-args <args>',
      'arguments of the plan step\'s infx sweep, space-separated (default: "--engine recipe")',
    )
    .option('--no-review', 'do not write infx-review.yml')
    .option('--force', 'overwrite workflow files that differ from what these flags write')
    .action(async (flags: WorkflowFlags) => {
      try {
        setExit(await workflow(flags, io));
      } catch (err) {
        setExit(reportError(err, io));
      }
    });

  ci.command('labels')
    .description(
      "the gate's decision from the event and the PR's labels: key=value lines for $GITHUB_OUTPUT " +
        '(exit 1 on conflicting primary labels)',
    )
    .addOption(new Option('--event <event>', 'pull request or push').choices(['pr', 'push']).default('pr'))
    .option('--labels-json <json>', 'the label names as a JSON array', '[]')
    .option('--skip-sweep', 'the head commit message says [skip-sweep] (ignored on push)')
    .addOption(new Option('--format <format>', 'output format').choices(['github', 'json']).default('github'))
    .action(
      async (flags: {
        event: 'pr' | 'push';
        labelsJson: string;
        skipSweep?: boolean;
        format: 'github' | 'json';
      }) => {
        try {
          const { ciLabelDecision, labelOutputLines, parseLabelsJson } = await import('../bot/ci-outputs.ts');
          const d = ciLabelDecision(parseLabelsJson(flags.labelsJson), flags.event, flags.skipSweep ?? false);
          io.stdout(flags.format === 'json' ? `${JSON.stringify(d, null, 2)}\n` : labelOutputLines(d));
          for (const w of d.warnings) io.stderr(`warning: ${w}\n`);
          for (const e of d.errors) io.stderr(`error: ${e}\n`);
          io.stderr(`${d.sweep ? 'sweep' : 'no sweep'}: ${d.reason}\n`);
          setExit(d.errors.length > 0 ? 1 : 0);
        } catch (err) {
          setExit(reportError(err, io));
        }
      },
    );

  ci.command('matrix')
    .description(
      'the point jobs of a planned run (infx sweep --plan-only): matrix=, jobs=, canary= and count= lines for $GITHUB_OUTPUT',
    )
    .argument('<run-dir>', 'the planned run directory, e.g. infx-runs/<run-id>')
    .addOption(new Option('--format <format>', 'output format').choices(['github', 'json']).default('github'))
    .action(async (runDir: string, flags: { format: 'github' | 'json' }) => {
      try {
        const [{ ciMatrix, matrixOutputLines }, { readManifest }] = await Promise.all([
          import('../bot/ci-outputs.ts'),
          import('../sweep/run-dir.ts'),
        ]);
        const m = ciMatrix(await readManifest(runDir));
        io.stdout(flags.format === 'json' ? `${JSON.stringify(m, null, 2)}\n` : matrixOutputLines(m));
        io.stderr(
          `${m.count} point(s): ${m.include.length} matrix job(s)${m.canary ? `, canary ${m.canary.point}` : ''}\n`,
        );
        setExit(0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
