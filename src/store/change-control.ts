import type { ChangelogMetadata } from '../schema/changelog-entry.ts';
import type { ReuseVerdict, RunAudit, StatusChangeReport } from '../schema/store.ts';
import { runChangelog, writeChangelog } from './changelog.ts';
import type { Store } from './db.ts';
import { runsOfPr } from './queries.ts';
import { type ReuseRequest, reuseVerdict } from './reuse.ts';
import { changeRunStatus, runStatusHistory, storedRun } from './run-status.ts';
import { type StagePr, stageProblem } from './stage.ts';

/**
 * Reuse, staging and the audit trail on a store: what `infx reuse`, `infx stage`, `infx unstage` and
 * `infx audit` do, given the pull request's commits and label rules the caller read.
 */

/** A pinned run's verdict (`runId` given), or the newest stored run of the PR that passes. */
export async function checkReuse(
  store: Store,
  runId: string | null,
  req: Omit<ReuseRequest, 'pinned'>,
): Promise<ReuseVerdict> {
  if (runId !== null)
    return reuseVerdict([await storedRun(store, store.url, runId)], { ...req, pinned: true });
  return reuseVerdict(await runsOfPr(store, req.pr), { ...req, pinned: false });
}

export interface ActorRequest {
  actor: string;
  reason?: string | undefined;
}

const report = (
  store: Store,
  change: { runId: string; event: StatusChangeReport['event'] },
  warnings: string[] = [],
): StatusChangeReport => ({
  kind: 'status-change',
  runId: change.runId,
  db: store.url,
  event: change.event,
  warnings,
});

/**
 * A pinned run made official for the pull request's merge (changelog-pr-spec §5.4, §8.4): checked again
 * inside the transaction that changes it, and given the merge run's changelog when one is passed.
 */
export async function applyReuse(
  store: Store,
  runId: string,
  req: Omit<ReuseRequest, 'pinned'> & ActorRequest & { changelog?: ChangelogMetadata | undefined },
): Promise<{ verdict: ReuseVerdict; change: StatusChangeReport }> {
  let verdict: ReuseVerdict | undefined;
  const warnings: string[] = [];
  const change = await changeRunStatus(store, runId, {
    request: 'reuse',
    actor: req.actor,
    reason: req.reason ?? '',
    check: async (run, db) => {
      verdict = reuseVerdict([run], { ...req, pinned: true });
      if (!verdict.reusable) return `run ${runId} is not reusable for PR #${req.pr}: ${verdict.reason}`;
      const { simulated, real } = run.engine;
      if (simulated > 0)
        warnings.push(
          `${simulated} of the run's ${simulated + real} results ${simulated === 1 ? 'is' : 'are'} simulated ` +
            "(infx's simulated engine, not measured on real hardware) and now official: the official view " +
            'shows them labelled simulated',
        );
      if (req.changelog)
        await writeChangelog({ db, backend: store.backend, sqlite: store.sqlite }, runId, req.changelog);
      return null;
    },
    describe: () => req.reason || (verdict?.reason ?? ''),
  });
  return { verdict: verdict!, change: report(store, change, warnings) };
}

export async function stageRun(
  store: Store,
  runId: string,
  req: ActorRequest & { pr: StagePr | null },
): Promise<StatusChangeReport> {
  const change = await changeRunStatus(store, runId, {
    request: 'stage',
    actor: req.actor,
    reason: req.reason ?? (req.pr ? `staged for PR #${req.pr.pr}` : 'infx stage'),
    check: (run, db) => stageProblem(run, db, req.pr),
  });
  return report(store, change);
}

export async function unstageRun(
  store: Store,
  runId: string,
  req: ActorRequest,
): Promise<StatusChangeReport> {
  const change = await changeRunStatus(store, runId, {
    request: 'unstage',
    actor: req.actor,
    reason: req.reason ?? 'infx unstage',
  });
  return report(store, change);
}

export async function runAudit(store: Store, runId: string): Promise<RunAudit> {
  const run = await storedRun(store, store.url, runId);
  const [changelog, events] = await Promise.all([runChangelog(store, runId), runStatusHistory(store, runId)]);
  return { kind: 'run-audit', runId, status: run.status, provenance: run.provenance, changelog, events };
}
