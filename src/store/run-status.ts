import { userInfo } from 'node:os';
import { type Kysely, sql } from 'kysely';
import { InfxError } from '../schema/errors.ts';
import type { RunStatus, RunStatusEvent, StoredRun } from '../schema/store.ts';
import { type Store, withRetry, writeTransaction } from './db.ts';
import { rebuildLatestFor } from './latest.ts';
import { type Db, kysely, runById } from './queries.ts';
import { type Database, RESULT_COLUMNS } from './tables.ts';

/**
 * A run's status and its audit trail. official: the published results (a push to main, or a pull
 * request's run reused for its merge); unofficial: a pull request's or a developer's run; staged: an
 * unofficial run put on the staging view for review (changelog-pr-spec §6, §9.1: staging never touches the
 * official results). Every change is an event (who, when, from, to, why) in `run_status_events`, and the
 * official view's latest results are rebuilt in the same transaction.
 */

export class RunStatusError extends InfxError {}

/** Who is asking: $INFX_ACTOR, else the OS user. */
export function defaultActor(): string {
  const env = process.env.INFX_ACTOR;
  if (env) return env;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

type Event = Omit<RunStatusEvent, 'seq'>;

/** Appends an event to the run's trail inside the caller's transaction. */
export async function appendStatusEvent(
  db: Kysely<Database>,
  runId: string,
  ev: Event,
): Promise<RunStatusEvent> {
  const last = await db
    .selectFrom('run_status_events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('run_id', '=', runId)
    .executeTakeFirst();
  const seq = Number(last?.seq ?? 0) + 1;
  await db
    .insertInto('run_status_events')
    .values({
      run_id: runId,
      seq,
      at: ev.at,
      action: ev.action,
      from_status: ev.from,
      to_status: ev.to,
      actor: ev.actor,
      reason: ev.reason,
    })
    .execute();
  return { seq, ...ev };
}

export async function runStatusHistory(d: Db, runId: string): Promise<RunStatusEvent[]> {
  const rows = await kysely(d)
    .selectFrom('run_status_events')
    .selectAll()
    .where('run_id', '=', runId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    seq: r.seq,
    at: r.at,
    action: r.action as RunStatusEvent['action'],
    from: r.from_status as RunStatus | null,
    to: r.to_status as RunStatus,
    actor: r.actor,
    reason: r.reason,
  }));
}

/** The stored run `runId`, or an error saying how to store it. */
export async function storedRun(d: Db, url: string, runId: string): Promise<StoredRun> {
  const run = await runById(d, runId);
  if (run === undefined)
    throw new RunStatusError(
      `no run '${runId}' in the database ${url}: ingest its run directory first (infx ingest runs/${runId})`,
    );
  return run;
}

export type StatusRequest = 'stage' | 'unstage' | 'reuse';

/** The event a request makes of a run in `from`, or why the run cannot take it. */
export function transition(
  runId: string,
  from: RunStatus,
  request: StatusRequest,
): { action: RunStatusEvent['action']; to: RunStatus } | { refused: string } {
  if (request === 'stage') {
    if (from === 'official')
      return {
        refused:
          `run '${runId}' is official: its results are already published, and staging is for an unofficial ` +
          "(pull request's) run under review",
      };
    return { action: from === 'staged' ? 'restaged' : 'staged', to: 'staged' };
  }
  if (request === 'unstage') {
    if (from !== 'staged')
      return { refused: `run '${runId}' is not staged (it is ${from}): nothing to unstage` };
    return { action: 'unstaged', to: 'unofficial' };
  }
  if (from === 'official') return { refused: `run '${runId}' is already official` };
  return { action: 'reused', to: 'official' };
}

export interface StatusChangeRequest {
  request: StatusRequest;
  actor: string;
  reason: string;
  now?: () => Date;
  /**
   * Checks the run inside the transaction, before anything changes: a message refuses the change (the run
   * as stored, and the transaction to read more of it with).
   */
  check?: (run: StoredRun, db: Kysely<Database>) => Promise<string | null>;
  /** The event's reason when it is only known after the check (default: `reason`). */
  describe?: () => string;
}

export interface StatusChange {
  runId: string;
  event: RunStatusEvent;
}

export async function changeRunStatus(
  store: Store,
  runId: string,
  req: StatusChangeRequest,
): Promise<StatusChange> {
  const at = (req.now ?? (() => new Date()))().toISOString();
  return withRetry(() =>
    writeTransaction(store, async (db) => {
      // As ingest: changes to one run wait for each other on PostgreSQL (SQLite has one writer at a time).
      if (store.backend === 'postgres')
        await sql`select pg_advisory_xact_lock(hashtext(${`infx-run:${runId}`}))`.execute(db);
      const run = await storedRun(db, store.url, runId);
      const t = transition(runId, run.status, req.request);
      if ('refused' in t) throw new RunStatusError(t.refused);
      const problem = await req.check?.(run, db);
      if (problem) throw new RunStatusError(problem);
      if (t.to !== run.status) {
        await db.updateTable('runs').set({ status: t.to }).where('run_id', '=', runId).execute();
        await rebuildLatestFor(db, runId, RESULT_COLUMNS);
      }
      const event = await appendStatusEvent(db, runId, {
        at,
        action: t.action,
        from: run.status,
        to: t.to,
        actor: req.actor,
        reason: req.describe?.() ?? req.reason,
      });
      return { runId, event };
    }),
  );
}
