import { plural } from '../schema/plural.ts';
import type { ReuseVerdict, RunAudit, RunStatusEvent, StatusChangeReport } from '../schema/store.ts';

/** Plain-text forms of reuse verdicts, status changes and a run's audit trail (`--format json`: the reports). */

export function formatReuseVerdict(v: ReuseVerdict): string {
  const lines = [
    v.reusable
      ? `reusable: run ${v.runId} for PR #${v.pr}${v.pinned ? ' (pinned)' : ''}: ${v.reason}`
      : `not reusable${v.runId ? `: run ${v.runId}` : ''} for PR #${v.pr}: ${v.reason}`,
  ];
  for (const c of v.checks)
    lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.check}${c.ok ? '' : `: ${c.message}`}`);
  const failed = v.checks.findIndex((c) => !c.ok);
  if (failed >= 0 && failed < v.checks.length - 1)
    lines.push('  (fail closed: the first failed check decides; the later ones are shown for information)');
  return `${lines.join('\n')}\n`;
}

const eventLine = (e: RunStatusEvent) =>
  `  ${String(e.seq).padStart(3)}  ${e.at}  ${e.action.padEnd(10)} ${e.from ?? '—'} → ${e.to}` +
  `${e.actor ? `  by ${e.actor}` : ''}${e.reason ? `: ${e.reason}` : ''}`;

export function formatStatusChange(r: StatusChangeReport): string {
  const e = r.event;
  const what =
    e.action === 'restaged'
      ? 'staged again (it stays staged)'
      : e.action === 'reused'
        ? 'made official (reused for its merge)'
        : e.action;
  const warnings = r.warnings.map((w) => `warning: ${w}\n`).join('');
  return `run ${r.runId} ${what}: ${e.from ?? '—'} → ${e.to} in ${r.db}\n${eventLine(e)}\n${warnings}`;
}

export function formatAudit(a: RunAudit): string {
  const p = a.provenance;
  const lines = [`run ${a.runId}: ${a.status}`];
  if (p)
    lines.push(
      `  from: ${p.event}${p.prNumber ? ` of PR #${p.prNumber}` : ''}${p.headSha ? ` at ${p.headSha}` : ''}` +
        `${p.workflow ? ` (${p.workflow})` : ''}${p.labels ? `; labels: ${p.labels.join(', ') || 'none'}` : ''}` +
        `${p.runUrl ? `; ${p.runUrl}` : ''}`,
    );
  else lines.push('  from: not recorded (ingested before infx recorded provenance)');
  if (a.changelog.length === 0) lines.push('  changelog: no entries linked');
  else {
    const e0 = a.changelog[0]!;
    lines.push(
      `  changelog: ${plural(a.changelog.length, 'entry', 'entries')} of ${e0.baseRef ?? '?'}..${e0.headRef ?? '?'}`,
    );
    for (const e of a.changelog)
      lines.push(
        `    ${e.index}: ${e.entry['config-keys'].join(', ')}${e.prLink ? ` (${e.prLink})` : ''}` +
          ` — ${e.entry.description[0] ?? ''}`,
      );
  }
  lines.push('  history:', ...a.events.map(eventLine));
  return `${lines.join('\n')}\n`;
}
