import { PRIMARY_LABELS, REUSE_LABEL_RULES } from '../matrix/labels.ts';
import type { PullRequest, WorkflowRun } from '../schema/github.ts';
import { SWEEP_WORKFLOW } from '../store/reuse.ts';
import { BotError } from './errors.ts';
import type { GitHub } from './github.ts';

/**
 * The pull request's preconditions of merge-with-reuse (changelog-pr-spec §4.4, 3–8), in the spec's order
 * and with its messages: open, not a fork, exactly one sweep label and a full-sweep one, no label that
 * makes a run ineligible (the same rules as `infx reuse`), and a successful run-sweep.yml pull_request run
 * on one of the PR's current commits with a result artifact that has not expired.
 */

/** An artifact that makes a run reusable: benchmark results, eval results, or an agentic result (§5.5 7). */
export function isReusableArtifact(name: string): boolean {
  return name === 'results_bmk' || name === 'eval_results_all' || name.startsWith('bmk_agentic_');
}

export interface ReusableRun {
  run: WorkflowRun;
  /** The unexpired artifact names that qualify it. */
  artifacts: string[];
}

export interface PrFacts {
  pr: PullRequest;
  label: string;
  commits: string[];
  reusable: ReusableRun;
}

/** The label preconditions (4–7 after the fork check), in order. */
export function labelRefusal(n: number, labels: readonly string[]): BotError | null {
  const primaries = [...new Set(labels)].filter((l) => l in PRIMARY_LABELS);
  const sweepLabels = Object.keys(PRIMARY_LABELS).join(', ');
  if (primaries.length !== 1)
    return new BotError(
      `PR #${n} must have exactly one sweep label`,
      primaries.length === 0
        ? `it has none; add one of ${REUSE_LABEL_RULES.fullSweep.join(', ')}`
        : `it has ${primaries.join(', ')}; remove all but one (of ${sweepLabels})`,
    );
  const label = primaries[0] as string;
  if (!REUSE_LABEL_RULES.fullSweep.includes(label))
    return new BotError(
      `PR #${n} must use a full-sweep label for artifact reuse`,
      `${label} sweeps a trimmed matrix; use one of ${REUSE_LABEL_RULES.fullSweep.join(', ')} and let it sweep`,
    );
  const bad = [...new Set(labels)].filter((l) => REUSE_LABEL_RULES.incompatible.includes(l)).sort();
  if (bad.length > 0)
    return new BotError(
      `PR #${n} uses ${bad.join(', ')}, which is not eligible for artifact reuse`,
      'remove the label, let the full sweep run, then merge with reuse; or merge normally (main runs the sweep)',
    );
  return null;
}

/** Why one successful run is not reusable, or null when it is. */
function runProblem(run: WorkflowRun, commits: ReadonlySet<string>): string | null {
  if (run.event !== 'pull_request') return `run ${run.id} is a ${run.event} run`;
  if (run.status !== 'completed' || run.conclusion !== 'success')
    return `run ${run.id} has conclusion ${run.conclusion ?? 'none'}`;
  if (run.path !== undefined && run.path !== SWEEP_WORKFLOW && !run.path.startsWith(`${SWEEP_WORKFLOW}@`))
    return `run ${run.id} is from ${run.path}`;
  if (!commits.has(run.head_sha.toLowerCase()))
    return `run ${run.id} is on ${run.head_sha.slice(0, 12)}, no longer a commit of the PR`;
  return null;
}

/** The newest successful, current, reusable run-sweep.yml run of the PR, or a refusal naming what was seen. */
async function reusableRun(gh: GitHub, n: number, pr: PullRequest, commits: string[]): Promise<ReusableRun> {
  const current = new Set(commits.map((c) => c.toLowerCase()));
  const workflowFile = SWEEP_WORKFLOW.slice(SWEEP_WORKFLOW.lastIndexOf('/') + 1);
  const runs = await gh.successfulPrRuns(workflowFile, pr.head.ref);
  const seen: string[] = [];
  for (const run of runs) {
    const problem = runProblem(run, current);
    if (problem !== null) {
      seen.push(problem);
      continue;
    }
    const all = await gh.runArtifacts(run.id);
    const artifacts = all.filter((a) => !a.expired && isReusableArtifact(a.name)).map((a) => a.name);
    if (artifacts.length > 0) return { run, artifacts };
    const expired = all.filter((a) => a.expired && isReusableArtifact(a.name)).map((a) => a.name);
    seen.push(
      expired.length > 0
        ? `run ${run.id}'s result artifacts have expired (${expired.join(', ')})`
        : `run ${run.id} has no results_bmk, eval_results_all or bmk_agentic_* artifact`,
    );
  }
  throw new BotError(
    `PR #${n} has no successful reusable run-sweep.yml run on a current commit`,
    `${runs.length} successful pull_request run(s) of ${workflowFile} on ${pr.head.ref}` +
      (seen.length > 0 ? `: ${seen.slice(0, 5).join('; ')}${seen.length > 5 ? '; …' : ''}` : '') +
      '; let the sweep run on the current head. To reuse a failed or cancelled run, post `/reuse-sweep-run <run_id>` ' +
      'yourself and merge without this command (its bare comment would un-pin the run)',
  );
}

/** Preconditions 3–8 on GitHub's view of the PR; the first refused is thrown. */
export async function checkPullRequest(gh: GitHub, n: number): Promise<PrFacts> {
  const pr = await gh.pull(n);
  if (pr.state !== 'open')
    throw new BotError(
      `PR #${n} is not OPEN (it is ${pr.merged ? 'merged' : pr.state})`,
      'only an open PR can be merged with reuse',
    );
  if (pr.head.repo === null || pr.base.repo === null || pr.head.repo.full_name !== pr.base.repo.full_name)
    throw new BotError(
      `PR #${n} is from a fork; the merge helper cannot update its branch`,
      'merge it normally: main then runs the full sweep',
    );
  const refusal = labelRefusal(
    n,
    pr.labels.map((l) => l.name),
  );
  if (refusal !== null) throw refusal;
  const commits = (await gh.pullCommits(n)).map((c) => c.sha.toLowerCase());
  const reusable = await reusableRun(gh, n, pr, commits);
  const label = pr.labels.map((l) => l.name).find((l) => l in PRIMARY_LABELS) as string;
  return { pr, label, commits, reusable };
}
