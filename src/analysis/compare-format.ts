import type { CompareReport, ConfigComparison, EqualConcMetric } from '../schema/compare-report.ts';
import { formatValue } from './ticks.ts';

/** `infx compare` output: aligned text tables, or a Markdown section ready to paste into a pull request. */

const pct = (v: number | null) => (v === null ? 'N/A' : `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`);
const money = (v: number | null) => (v === null ? 'N/A' : `$${v < 1 ? v.toFixed(3) : v.toFixed(2)}`);
const STATUS: Record<string, string> = {
  ok: '',
  'outside-run': 'outside run front',
  'outside-baseline': 'outside baseline front',
  'outside-both': 'outside both fronts',
};

/** The one-sentence verdict for a config. */
export function headline(c: ConfigComparison): string {
  const parts: string[] = [];
  const g = c.gainPct;
  const n = c.matched.filter((m) => m.status === 'ok').length;
  if (g.mean === null) parts.push('no interactivity where both fronts are defined, so no matched comparison');
  else {
    const verb = g.mean >= 0 ? 'beats the baseline by' : 'trails the baseline by';
    const spread =
      n > 1 && g.min !== null && g.max !== null && g.max - g.min >= 0.05
        ? ` (${pct(g.min)} to ${pct(g.max)})`
        : '';
    parts.push(
      `at matched interactivity this config ${verb} ${Math.abs(g.mean).toFixed(1)}%${n > 1 ? ' on average' : ''}${spread}`,
    );
  }
  const m = c.maxTputChangePct;
  if (m !== null) {
    const size = `${Math.abs(m).toFixed(1)}%`;
    parts.push(
      Math.abs(m) < 0.05
        ? 'its maximum equals the old maximum'
        : `its maximum is ${size} ${m > 0 ? 'above' : 'below'} the old maximum`,
    );
  }
  let s = `${parts.join('; ')}.`;
  if (c.dominates) s += ' It is at least as good across the whole baseline curve.';
  s = s.charAt(0).toUpperCase() + s.slice(1);
  return s;
}

function matchedRows(c: ConfigComparison): string[][] {
  return c.matched.map((m) => [
    formatValue(m.interactivity, 4),
    formatValue(m.baseline.tputPerGpu),
    formatValue(m.run.tputPerGpu),
    m.status === 'ok' ? pct(m.gainPct) : (STATUS[m.status] as string),
    money(m.baseline.costPerMTokens),
    money(m.run.costPerMTokens),
  ]);
}

const MATCHED_HEAD = [
  'tok/s/user',
  'baseline tok/s/GPU',
  'run tok/s/GPU',
  'gain',
  'baseline $/M tok',
  'run $/M tok',
];
const CONC_HEAD = ['conc', 'metric', 'baseline', 'run', 'delta', '%'];

const delta = (m: EqualConcMetric) =>
  m.delta === null
    ? 'N/A'
    : `${m.delta > 0 ? '+' : ''}${formatValue(m.delta)}${m.improved === null ? '' : m.improved ? ' ✓' : ' ✗'}`;

function concRows(c: ConfigComparison): string[][] {
  return c.equalConcurrency.flatMap((row) =>
    row.metrics.map((m, i) => [
      i === 0 ? String(row.conc) : '',
      `${m.metric} (${m.unit}) ${m.better === 'higher' ? '↑' : '↓'}`,
      formatValue(m.baseline),
      formatValue(m.run),
      delta(m),
      pct(m.pct),
    ]),
  );
}

/** Text columns padded to the widest cell; numbers right-aligned. */
export function alignTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = head.map((_, i) =>
    rows.every((r) => /^[-+$]?[\d,.]+%?( [✓✗])?$|^N\/A$|^$/.test(r[i] ?? '')),
  );
  const line = (r: readonly string[]) =>
    r
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] as number) : cell.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function mdTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${head.map(esc).join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

function onlyLines(r: CompareReport): string[] {
  const out: string[] = [];
  if (r.onlyInRun.length > 0)
    out.push(`Only in the run (no baseline): ${r.onlyInRun.map((c) => c.label).join('; ')}`);
  if (r.onlyInBaseline.length > 0)
    out.push(`Only in the baseline (not run): ${r.onlyInBaseline.map((c) => c.label).join('; ')}`);
  return out;
}

const priceLine = (c: ConfigComparison) =>
  c.price.perGpuHour === null
    ? 'cost: no price for this hardware (--price-per-gpu-hour)'
    : `cost at $${c.price.perGpuHour}/GPU-hour (${c.price.source === 'flag' ? '--price-per-gpu-hour' : 'catalog estimate'})`;

const stat = (r: CompareReport) => (r.interactivityStat === 'median' ? 'median' : 'p90');

export function formatCompareText(r: CompareReport): string {
  const out: string[] = [`${r.run.label} vs baseline ${r.baseline.label} (${stat(r)} interactivity)`, ''];
  if (r.configs.length === 0) out.push('No config is in both: nothing to compare.', '');
  for (const c of r.configs) {
    out.push(`== ${c.label}`, headline(c));
    for (const note of c.notes) out.push(`note: ${note}`);
    out.push('');
    if (c.matched.length > 0) out.push(alignTable(MATCHED_HEAD, matchedRows(c)), priceLine(c), '');
    if (c.equalConcurrency.length > 0)
      out.push('At equal concurrency:', alignTable(CONC_HEAD, concRows(c)), '');
  }
  out.push(...onlyLines(r));
  return `${out.join('\n').trimEnd()}\n`;
}

export function formatCompareMarkdown(r: CompareReport): string {
  const out: string[] = [
    `### Performance vs baseline`,
    '',
    `Run \`${r.run.label}\` against \`${r.baseline.label}\`, throughput per GPU at matched ${stat(r)} ` +
      'interactivity (monotone interpolation on each Pareto front, never extrapolated).',
    '',
  ];
  if (r.configs.length === 0) out.push('No config is in both runs: nothing to compare.', '');
  for (const c of r.configs) {
    out.push(`#### ${c.label}`, '', `**${headline(c)}**`, '');
    for (const note of c.notes) out.push(`> ${note}`);
    if (c.notes.length > 0) out.push('');
    if (c.matched.length > 0) out.push(mdTable(MATCHED_HEAD, matchedRows(c)), '', `_${priceLine(c)}_`, '');
    if (c.equalConcurrency.length > 0)
      out.push(
        '<details><summary>At equal concurrency</summary>',
        '',
        mdTable(CONC_HEAD, concRows(c)),
        '',
        '</details>',
        '',
      );
  }
  const only = onlyLines(r);
  if (only.length > 0) out.push(...only.map((l) => `- ${l}`), '');
  return `${out.join('\n').trimEnd()}\n`;
}
