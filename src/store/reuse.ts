import type { ReuseCheck, ReuseVerdict, StoredRun } from '../schema/store.ts';

/**
 * Whether a stored run may stand in for a pull request's merge sweep (changelog-pr-spec §5.5): its checks in
 * the reference's order, fail closed: the first that fails decides, and nothing unknown passes (a run with
 * no recorded event, head commit or results is not reusable). A pinned run (named by the user) may also
 * have failed or been cancelled; an unpinned choice takes the newest stored run of the pull request that
 * passes with success.
 */

export const SWEEP_WORKFLOW = '.github/workflows/run-sweep.yml';

export type RunConclusion = 'success' | 'failure' | 'cancelled';

/** A stored run's conclusion: failed points fail it; points that never finished (fail-fast, Ctrl-C) cancel it. */
export function runConclusion(run: StoredRun): RunConclusion {
  if (run.failed > 0) return 'failure';
  if (run.missing > 0) return 'cancelled';
  return 'success';
}

export interface ReuseRequest {
  pr: number;
  /** The pull request's current commits (full SHAs). */
  commits: ReadonlySet<string>;
  pinned: boolean;
  workflow?: string;
  /** The sweep labels whose runs may be reused (the full-sweep ones), and those that forbid reuse. */
  labels: LabelRules;
}

export interface LabelRules {
  fullSweep: readonly string[];
  incompatible: readonly string[];
}

/** What is wrong with a run's recorded labels for reuse (§5.4 step 4, checked on the run itself), or null. */
export function labelProblem(run: StoredRun, pr: number, rules: LabelRules): string | null {
  const labels = run.provenance?.labels;
  if (labels == null)
    return `Reusable source run ${run.runId} has no recorded pull request labels, so its sweep's scope is unknown.`;
  const bad = labels.filter((l) => rules.incompatible.includes(l)).sort();
  if (bad.length > 0)
    return `PR #${pr}'s run ${run.runId} was swept with reuse-incompatible label(s): ${bad.join(', ')}.`;
  if (!labels.some((l) => rules.fullSweep.includes(l)))
    return (
      `PR #${pr}'s run ${run.runId} was swept without any of: ${[...rules.fullSweep].sort().join(', ')} ` +
      `(its labels: ${labels.length > 0 ? labels.join(', ') : 'none'}).`
    );
  return null;
}

/** Every check of §5.5 on one run, in order; the run is reusable when all pass. */
export function reuseChecks(run: StoredRun, req: ReuseRequest): ReuseCheck[] {
  const id = `Reusable source run ${run.runId}`;
  const p = run.provenance;
  const conclusion = runConclusion(run);
  const allowed: RunConclusion[] = req.pinned ? ['success', 'failure', 'cancelled'] : ['success'];
  const workflow = req.workflow ?? SWEEP_WORKFLOW;
  const head = p?.headSha ?? null;
  const check = (name: ReuseCheck['check'], ok: boolean, message: string): ReuseCheck => ({
    check: name,
    ok,
    message: ok ? '' : message,
  });
  return [
    check(
      'event',
      p?.event === 'pull_request',
      `${id} is not a pull_request run (its event: ${p?.event ?? 'not recorded: ingested before infx recorded provenance'}).`,
    ),
    ((problem) => check('labels', problem === null, problem ?? ''))(labelProblem(run, req.pr, req.labels)),
    check(
      'completed',
      !run.sweepActive,
      `${id} is not completed (its sweep still held sweep.lock when it was ingested: let it finish, or resume it, then ingest again).`,
    ),
    check(
      'conclusion',
      allowed.includes(conclusion),
      `${id} has conclusion '${conclusion}'; expected ${req.pinned ? 'success, failure, or cancelled' : 'success'}.` +
        (req.pinned
          ? ''
          : ` (${run.failed} failed, ${run.missing} missing of ${run.planned} points; pin it to reuse it anyway)`),
    ),
    check(
      'workflow',
      p?.workflow == null || p.workflow === workflow,
      `${id} is from ${p?.workflow}, expected ${workflow}.`,
    ),
    check('head-sha', head !== null, `${id} has no head_sha.`),
    check(
      'pr-commit',
      head !== null && req.commits.has(head.toLowerCase()),
      `${id} head ${head} is not in PR #${req.pr}'s commit list; pin a run whose commit is still part of the PR.`,
    ),
    check(
      'results',
      run.ingested > 0,
      `${id} has no benchmark, eval, or agentic result artifact (no stored results).`,
    ),
  ];
}

/** The verdict on a pinned run, or the unpinned choice among `candidates` (newest first). */
export function reuseVerdict(candidates: readonly StoredRun[], req: ReuseRequest): ReuseVerdict {
  const base = { kind: 'reuse-verdict' as const, pr: req.pr, pinned: req.pinned, commits: req.commits.size };
  if (req.pinned) {
    const run = candidates[0];
    if (run === undefined) throw new Error('a pinned reuse check needs its run');
    const checks = reuseChecks(run, req);
    const failed = checks.find((c) => !c.ok);
    return {
      ...base,
      runId: run.runId,
      reusable: failed === undefined,
      reason: failed?.message ?? `PR #${req.pr} approved reusable full sweep from pinned run ${run.runId}`,
      checks,
      considered: 1,
    };
  }
  for (const run of candidates) {
    const checks = reuseChecks(run, req);
    if (checks.every((c) => c.ok))
      return {
        ...base,
        runId: run.runId,
        reusable: true,
        reason: `PR #${req.pr} approved reusable full sweep from latest run on ${run.provenance?.headSha}`,
        checks,
        considered: candidates.indexOf(run) + 1,
      };
  }
  return {
    ...base,
    runId: null,
    reusable: false,
    reason:
      `no successful pull_request run of PR #${req.pr} is stored for any of its ${req.commits.size} commit(s) ` +
      `(${candidates.length} stored run(s) of the PR considered); pin a specific run: infx reuse check RUN --pr ${req.pr}`,
    checks: [],
    considered: candidates.length,
  };
}

/**
 * A pull request's commit list from a file: SHAs one per line (`#` comments, blank lines), the JSON of
 * `gh pr view N --json commits` ({commits: [{oid}]}) or of the REST API's pull request commits ([{sha}]).
 */
export function parseCommitList(text: string): { commits: string[] } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (err) {
      return { problem: `not valid JSON (${(err as Error).message})` };
    }
    const list = Array.isArray(json) ? json : (json as { commits?: unknown }).commits;
    if (!Array.isArray(list))
      return { problem: 'JSON without a commit list: give [{sha}] or {commits: [{oid}]}' };
    const commits: string[] = [];
    for (const [i, c] of list.entries()) {
      const sha = (c as { sha?: unknown; oid?: unknown } | null)?.sha ?? (c as { oid?: unknown } | null)?.oid;
      if (typeof sha !== 'string' || !/^[0-9a-f]{40}$/i.test(sha))
        return { problem: `commit ${i + 1} has no 40-hex sha (or oid)` };
      commits.push(sha.toLowerCase());
    }
    return { commits };
  }
  const commits: string[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    if (!/^[0-9a-f]{40}$/i.test(line))
      return { problem: `line ${i + 1}: '${line.slice(0, 60)}' is not a full 40-hex commit SHA` };
    commits.push(line.toLowerCase());
  }
  return { commits };
}
