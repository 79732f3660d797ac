import type { Kysely } from 'kysely';
import type { StoredRun } from '../schema/store.ts';
import { type LabelRules, SWEEP_WORKFLOW } from './reuse.ts';
import type { Database } from './tables.ts';

/**
 * Whether a stored run can be staged (changelog-pr-spec §6, candidate validation, in order): with a pull
 * request given, it must be that PR's run of the sweep workflow, on one of its commits, swept under a
 * full-sweep label; in every case its sweep must have finished (partial runs are deliberately stageable),
 * and it must carry the changelog entries that selected it and stored results.
 */

export interface StagePr {
  pr: number;
  commits: ReadonlySet<string>;
  labels: LabelRules;
}

export async function stageProblem(
  run: StoredRun,
  db: Kysely<Database>,
  pr: StagePr | null,
): Promise<string | null> {
  const because = (why: string) => `Run ${run.runId} cannot be staged because ${why}`;
  const p = run.provenance;
  if (pr) {
    if (p?.event !== 'pull_request' || (p.workflow != null && p.workflow !== SWEEP_WORKFLOW))
      return because(`it is not a pull-request run of run-sweep.yml (event ${p?.event ?? 'not recorded'})`);
    // A pinned id also passes when the run was made for this very pull request (§6 rule 2).
    const head = p.headSha?.toLowerCase();
    if (!(head && pr.commits.has(head)) && p.prNumber !== pr.pr)
      return because('its head commit is not in the PR commit list');
    if (!(p.labels ?? []).some((l) => pr.labels.fullSweep.includes(l)))
      return because('it was not created while a full-sweep label was applied');
  }
  if (run.sweepActive)
    return because(
      'it is in_progress/null (its sweep still held sweep.lock when it was ingested: let it finish, then ingest again)',
    );
  const entries = await db
    .selectFrom('changelog_entries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('run_id', '=', run.runId)
    .executeTakeFirst();
  if (Number(entries?.n ?? 0) === 0)
    return because(
      'it has no changelog entries (sweep the output of `infx changelog matrix`, or ingest it with --changelog FILE)',
    );
  if (run.ingested === 0) return because('it has no stored benchmark results');
  return null;
}
