import { plural } from '../schema/plural.ts';
import type { IngestPoint, IngestReport, InputIssue, VerifyReport } from '../schema/store.ts';

/** Plain-text summaries of ingest and verify reports (`--format json` prints the reports themselves). */

const MAX_LINES = 50;

function capped(lines: string[]): string[] {
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `  … and ${lines.length - MAX_LINES} more (--format json lists all)`];
}

const issueLine = (i: InputIssue) =>
  `  skipped  ${i.file}${i.jsonPath && !i.problem.includes(i.jsonPath) ? ` (${i.jsonPath})` : ''}: ${i.problem}`;

function pointLine(d: IngestPoint): string | null {
  const earlier = d.attempts
    .filter((a) => a.attempt !== d.attempt && a.status !== 'ok')
    .map((a) => `attempt ${a.attempt} ${a.status}${a.phase ? ` in ${a.phase}` : ''}`);
  if (d.outcome === 'ingested')
    return earlier.length === 0
      ? null
      : `  retried  ${d.pointId}: attempt ${d.attempt} stored (${earlier.join(', ')})`;
  const where = d.phase ? ` in ${d.phase}` : '';
  return `  ${d.outcome.padEnd(7)}  ${d.pointId}${where}: ${d.reason ?? ''}`;
}

export function formatIngestReport(r: IngestReport): string {
  const c = (x: { new: number; updated: number; unchanged: number }) =>
    `${x.new} new, ${x.updated} updated, ${x.unchanged} unchanged`;
  const lines = [
    `run ${r.runId} (${r.status}) → ${r.db} in ${(r.durationMs / 1000).toFixed(2)} s`,
    `  ${r.planned} planned: ${r.ingested} ingested, ${r.failed} failed, ${r.missing} missing` +
      (r.skippedRows > 0
        ? `; ${plural(r.skippedRows, 'matrix row')} skipped by the sweep (see manifest.json)`
        : ''),
    `  points: ${c(r.points)}; attempts: ${c(r.attempts)}`,
  ];
  const e = r.engine;
  if (e.simulated > 0)
    lines.push(
      `  simulated: ${e.kind === 'simulated' ? 'every result' : `${e.simulated} of ${e.simulated + e.real} results`} ` +
        `from infx's simulated engine, labelled simulated${r.status === 'official' ? '' : ` (stored as ${r.status})`}`,
    );
  if (r.changelog)
    lines.push(
      `  changelog: ${plural(r.changelog.entries, 'entry', 'entries')} of ${r.changelog.baseRef}..${r.changelog.headRef} ` +
        `linked (${r.changelog.change})`,
    );
  lines.push(...r.warnings.map((w) => `warning: ${w}`));
  const points = r.details.map(pointLine).filter((l): l is string => l !== null);
  lines.push(...capped(points), ...capped(r.issues.map(issueLine)));
  if (r.ok) lines.push('ok: every planned point is stored with its result');
  else {
    const why = [];
    if (r.failed + r.missing > 0) why.push(`${plural(r.failed + r.missing, 'point')} without a result`);
    if (r.issues.length > 0) why.push(plural(r.issues.length, 'input problem'));
    lines.push(
      `incomplete: ${why.join(' and ')}; everything else is stored` +
        (r.missing > 0 ? ' (infx sweep --resume runs missing points; ingest again after)' : ''),
    );
  }
  return `${lines.join('\n')}\n`;
}

export function formatVerifyReport(r: VerifyReport): string {
  const checked = Object.entries(r.checked)
    .map(([t, n]) => `${n} ${t}`)
    .join(', ');
  const lines = [`verify run ${r.runId}: ${r.db} against ${r.runDir} (${checked})`];
  const diffs = r.differences.map((d) =>
    d.column === null
      ? `  ${d.table} ${d.key}: ${d.db === null ? 'in the run directory, not in the database' : 'in the database, not in the run directory'}`
      : `  ${d.table} ${d.key} ${d.column}: database ${d.db ?? 'none'}, run directory ${d.runDir ?? 'none'}`,
  );
  lines.push(...capped(diffs), ...capped(r.issues.map(issueLine)));
  lines.push(
    r.ok
      ? 'ok: the database holds exactly what the run directory holds'
      : `mismatch: ${plural(r.differences.length, 'difference')}; ingest the run again to store the run directory's state`,
  );
  return `${lines.join('\n')}\n`;
}
