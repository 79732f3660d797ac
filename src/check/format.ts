import type { CheckFinding, CheckReport } from '../schema/check-finding.ts';
import { plural } from '../schema/plural.ts';

/**
 * The text report: findings grouped by config key (config order). Within a key, findings of one rule on one
 * topology (the point without its concurrency) print once, with the other concurrencies they hold at.
 */

function counts(findings: readonly CheckFinding[]): string {
  const e = findings.filter((f) => f.severity === 'error').length;
  const w = findings.filter((f) => f.severity === 'warning').length;
  const n = findings.filter((f) => f.severity === 'note').length;
  const parts = [plural(e, 'error'), plural(w, 'warning')];
  if (n > 0) parts.push(plural(n, 'note'));
  return parts.join(', ');
}

interface Group {
  first: CheckFinding;
  concs: number[];
}

function groups(findings: readonly CheckFinding[]): Group[] {
  const out = new Map<string, Group>();
  for (const f of findings) {
    const key =
      f.point === null
        ? `${f.rule}\u0000${f.message}`
        : `${f.severity}\u0000${f.rule}\u0000${f.topology}\u0000${f.worker}`;
    const g = out.get(key);
    if (!g) out.set(key, { first: f, concs: [] });
    else if (f.conc !== null) g.concs.push(f.conc);
  }
  return [...out.values()];
}

const SEVERITY_WIDTH = 8;

function formatGroup(g: Group): string {
  const f = g.first;
  const indent = ' '.repeat(2 + SEVERITY_WIDTH);
  const where = [f.worker, f.hardware].filter((s) => s !== null).join(', ');
  const head = [f.rule, f.point, where ? `[${where}]` : null].filter((s) => s !== null).join('  ');
  const lines = [`  ${f.severity.padEnd(SEVERITY_WIDTH)}${head}`, `${indent}${f.message}`];
  if (f.fix) lines.push(`${indent}fix: ${f.fix}`);
  if (g.concs.length > 0) lines.push(`${indent}same at conc=${g.concs.join(', ')}`);
  return lines.join('\n');
}

export function formatReport(report: CheckReport): string {
  const byKey = new Map<string, CheckFinding[]>();
  for (const f of report.findings) {
    const list = byKey.get(f.configKey) ?? [];
    list.push(f);
    byKey.set(f.configKey, list);
  }
  const out: string[] = [];
  for (const c of report.configs) {
    const findings = byKey.get(c.configKey);
    if (!findings) continue;
    out.push(`${c.configKey} (${c.file}): ${plural(c.points, 'point')}: ${counts(findings)}`);
    const rank = { error: 0, warning: 1, note: 2 } as const;
    const sorted = groups(findings).sort((a, b) => rank[a.first.severity] - rank[b.first.severity]);
    for (const g of sorted) out.push(formatGroup(g));
    out.push('');
  }
  const s = report.summary;
  const clean = report.configs.filter((c) => !byKey.has(c.configKey)).length;
  const errorsWhere =
    s.errors > 0
      ? ` (${plural(s.pointsWithErrors, 'point')} in ${plural(s.configsWithErrors, 'config')})`
      : '';
  out.push(
    `summary: ${plural(s.configs, 'config')} (${clean} without findings), ${plural(s.points, 'point')} at ` +
      `gpu-memory-utilization ${report.gpuMemoryUtilization}: ${plural(s.errors, 'error')}${errorsWhere}, ` +
      `${plural(s.warnings, 'warning')}, ${plural(s.notes, 'note')}`,
  );
  return `${out.join('\n')}\n`;
}
