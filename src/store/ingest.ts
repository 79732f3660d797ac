import { join } from 'node:path';
import type { ChangelogMetadata } from '../schema/changelog-entry.ts';
import type { IngestReport, RunStatus } from '../schema/store.ts';
import { writeChangelog } from './changelog.ts';
import { type Store, withRetry, writeTransaction } from './db.ts';
import { readEvalFiles } from './eval-files.ts';
import { runEngine } from './queries.ts';
import { runRows } from './rows.ts';
import { RUN_FILES, readRunDirFast } from './run-dir-reader.ts';
import { defaultActor } from './run-status.ts';
import { writeRun } from './write.ts';

/**
 * `infx ingest`: a run directory into the store, verified file by file. Every planned point is stored with
 * its outcome (ingested, failed with phase and reason, or missing) and every attempt with its status; the
 * result of a point is its newest ok attempt whose result.json validates. One transaction per run, and
 * idempotent: ingesting the same directory again changes nothing, and after a resume adds what is new.
 */

export interface IngestOptions {
  /**
   * The run's status; default: what is stored, else unofficial when a point was served by a simulated
   * engine (simulated results are never official unless asked for), else official.
   */
  status?: RunStatus | undefined;
  /**
   * The changelog entries that selected the run, instead of the manifest's (a reused run takes its merge
   * run's, changelog-pr-spec §8.4); default: the manifest's, when its matrix came from infx changelog matrix.
   */
  changelog?: ChangelogMetadata | undefined;
  /** Who ingests (the audit trail); default: $INFX_ACTOR, else the OS user. */
  actor?: string | undefined;
  /** Clock for ingested_at (tests). */
  now?: () => Date;
}

export async function ingestRunDir(
  store: Store,
  runDir: string,
  opts: IngestOptions = {},
): Promise<IngestReport> {
  const t0 = performance.now();
  const contents = await readRunDirFast(runDir);
  const rows = runRows(contents);
  const evalFiles = readEvalFiles(runDir, rows.evals);
  rows.evals = evalFiles.evals;
  rows.evalSamples = evalFiles.samples;
  const now = (opts.now ?? (() => new Date()))().toISOString();
  const manifestFile = join(runDir, RUN_FILES.manifest);
  // Other ingests may write the same database at the same time: one write transaction each, retried when
  // the database says it was busy or chose this one as a deadlock victim.
  const source = contents.manifest.source;
  const changelogMeta = opts.changelog ?? (source.kind === 'matrix' ? source.changelog : undefined);
  const { written, changelog } = await withRetry(() =>
    writeTransaction(store, async (db) => {
      const target = { db, backend: store.backend, sqlite: store.sqlite };
      const written = await writeRun(target, rows, {
        status: opts.status,
        now,
        actor: opts.actor ?? defaultActor(),
        manifestFile,
      });
      const changelog = changelogMeta ? await writeChangelog(target, rows.run.run_id, changelogMeta) : null;
      return { written, changelog };
    }),
  );
  const issues = [...contents.issues, ...rows.issues, ...evalFiles.issues, ...written.issues];
  const details = rows.details.map((d) => ({
    ...d,
    change: written.pointChanges.get(d.pointId) ?? 'unchanged',
  }));
  const count = (o: string) => details.filter((d) => d.outcome === o).length;
  const changes = { new: 0, updated: 0, unchanged: 0 };
  for (const d of details) changes[d.change]++;
  const ingested = count('ingested');
  const { simulated_results: simulated, real_results: real } = written.run;
  const warnings: string[] = [];
  if (changelog?.replaced)
    warnings.push(
      `the run's changelog entries (${changelog.replaced.baseRef}..${changelog.replaced.headRef}) were replaced by ` +
        `${changelog.entries} entr${changelog.entries === 1 ? 'y' : 'ies'} of ${changelog.baseRef}..${changelog.headRef}`,
    );
  if (written.status === 'official' && simulated > 0)
    warnings.push(
      `${simulated} of the run's ${simulated + real} results ${simulated === 1 ? 'is' : 'are'} simulated ` +
        "(served by infx's simulated engine, not measured on real hardware) and stored as official: the " +
        "official view shows them, labelled simulated, beside real engines' results; " +
        `\`infx ingest ${runDir} --status unofficial\` keeps them out of it`,
    );
  if (rows.evalsBelow.length > 0)
    warnings.push(
      `${rows.evalsBelow.length} point(s) fell below their accuracy eval threshold (${rows.evalsBelow.join(', ')}): ` +
        (written.status === 'official'
          ? 'stored as official, as --status says'
          : 'the run is not official (status.json eval has the scores and the threshold)'),
    );
  return {
    kind: 'ingest-report',
    runId: contents.manifest.runId,
    runDir,
    db: store.url,
    status: written.status,
    planned: details.length,
    ingested,
    failed: count('failed'),
    missing: count('missing'),
    points: changes,
    attempts: written.attempts,
    engine: runEngine(simulated, real),
    changelog,
    warnings,
    skippedRows: contents.manifest.skipped.length,
    issues,
    details,
    ok: ingested === details.length && issues.length === 0,
    durationMs: Math.round((performance.now() - t0) * 10) / 10,
  };
}
