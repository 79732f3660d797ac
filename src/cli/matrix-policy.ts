import { type Command, Option } from 'commander';
import { EVAL_GROUPINGS, type EvalGrouping } from '../matrix/evals.ts';
import { parseIntArg, reportError } from './common.ts';
import type { CliIO } from './io.ts';
import { readJsonInput } from './read-input.ts';

/**
 * `infx matrix plan` and `infx matrix priority`: the reference workflow's sweep policy over a generated
 * matrix. Their modules load on use, so they cost nothing to the commands that do not need them.
 */
export function registerMatrixPolicy(matrix: Command, io: CliIO, setExit: (code: number) => void): void {
  matrix
    .command('plan')
    .description(
      'what a PR with these labels (or a push to main) would run: buckets, canary, fail-fast, trimming',
    )
    .option('--matrix <file>', 'generated matrix JSON (default: stdin)')
    .option('--labels <labels...>', 'PR labels', [])
    .addOption(
      new Option('--event <event>', 'pull request or push to main').choices(['pr', 'push']).default('pr'),
    )
    .addOption(
      new Option('--eval-grouping <mode>', 'eval grouping (see matrix full-sweep)')
        .choices(EVAL_GROUPINGS)
        .default('reference'),
    )
    .addOption(
      new Option('--format <format>', 'text summary or the full plan as JSON')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(
      async (flags: {
        matrix?: string;
        labels: string[];
        event: 'pr' | 'push';
        evalGrouping: EvalGrouping;
        format: string;
      }) => {
        try {
          const { formatPlan, parseMatrix, planSweep } = await import('../matrix/plan.ts');
          const matrix = parseMatrix(await readJsonInput(flags.matrix, io, 'matrix'));
          const plan = planSweep(matrix, {
            labels: flags.labels,
            event: flags.event,
            evalGrouping: flags.evalGrouping,
          });
          io.stdout(flags.format === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
          setExit(plan.errors.length > 0 ? 1 : 0);
        } catch (err) {
          setExit(reportError(err, io));
        }
      },
    );

  matrix
    .command('priority')
    .description(
      'add CI priority scores and queue tokens to every job of a matrix or plan (reference ci_priority.py)',
    )
    .option('--matrix <file>', 'JSON payload: a matrix, a plan, or any object with jobs (default: stdin)')
    .option('--labels <labels...>', 'PR labels (skip_queue, ci-patchwork, ci-checklist-complete, ...)', [])
    .addOption(
      new Option('--event <event>', 'pull request or push to main').choices(['pr', 'push']).default('pr'),
    )
    .option('--pr-number <n>', 'PR number (with skip_queue: adds skip-queue-pr)', parseIntArg)
    .option('--namespace <ns>', 'token namespace, e.g. <run_id>:<run_attempt>', 'local:1')
    .option('--criteria <names...>', 'facts confirmed by a classifier; entries only score facts listed here')
    .option('--policy <file>', 'CI priority policy YAML (default: the reference policy)')
    .action(
      async (flags: {
        matrix?: string;
        labels: string[];
        event: 'pr' | 'push';
        prNumber?: number;
        namespace: string;
        criteria?: string[];
        policy?: string;
      }) => {
        try {
          const [{ loadCiPriorityPolicy }, { annotatePriorities, priorityLabelWarnings }, { pyDumps }] =
            await Promise.all([
              import('../config/ci-priority.ts'),
              import('../matrix/priority.ts'),
              import('../matrix/json.ts'),
            ]);
          const payload = await readJsonInput(flags.matrix, io, 'payload');
          const policy = flags.policy ? loadCiPriorityPolicy(flags.policy) : undefined;
          for (const w of priorityLabelWarnings(flags.labels, policy)) io.stderr(`warning: ${w}\n`);
          const annotated = annotatePriorities(payload, {
            event: flags.event,
            labels: flags.labels,
            criteria: flags.criteria,
            policy,
            namespace: flags.namespace,
            prNumber: flags.prNumber,
          });
          io.stdout(`${pyDumps(annotated)}\n`);
          setExit(0);
        } catch (err) {
          setExit(reportError(err, io));
        }
      },
    );
}
