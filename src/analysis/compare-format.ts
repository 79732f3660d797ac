import type {
  CompareReport,
  CompareSide,
  ConfigComparison,
  ConfigNoise,
  EqualConcMetric,
  MatchedPoint,
  PointVerdict,
  Verdict,
} from '../schema/compare-report.ts';
import { SHORT_UNIT } from './axes.ts';
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

/** A signed percentage for sentences, with a true minus sign: +8.1%, −6.3%. */
const signed = (v: number) =>
  Math.abs(v) < 0.05 ? '0.0%' : `${v > 0 ? '+' : '−'}${Math.abs(v).toFixed(1)}%`;
const size = (v: number) =>
  `${Math.abs(v) < 0.95 && v !== 0 ? Math.abs(v).toFixed(2) : Math.abs(v).toFixed(1)}%`;
const at = (v: number) => formatValue(v, 4);
const points = (n: number) => `${n} point${n === 1 ? '' : 's'}`;

/** "the ±2.0% run-to-run spread (assumed, not measured)". */
export function spreadPhrase(n: ConfigNoise): string {
  const how =
    n.source === 'flag'
      ? 'set by --noise'
      : n.source === 'assumed'
        ? 'assumed, not measured'
        : `measured from ${n.repeats} results of ${n.runs} runs`;
  return `the ±${size(n.thresholdPct)} run-to-run spread (${how})`;
}

/** "6.0% to 8.1%" or "8.1%", by size. */
function byRange(gains: readonly number[]): string {
  const sizes = gains.map((g) => Math.abs(g));
  const lo = size(Math.min(...sizes));
  const hi = size(Math.max(...sizes));
  return lo === hi ? lo : `${lo} to ${hi}`;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The clause about the matched points, per verdict. */
function matchedClause(c: ConfigComparison): string {
  const ok = c.matched.filter((m) => m.status === 'ok' && m.gainPct !== null);
  const gain = (m: MatchedPoint) => m.gainPct as number;
  const better = ok.filter((m) => m.verdict === 'better');
  const worse = ok.filter((m) => m.verdict === 'worse');
  const within = ok.length - better.length - worse.length;
  const spread = spreadPhrase(c.noise);
  switch (c.verdict) {
    case 'same-run':
      return 'same run: the run and the baseline are the same run, so nothing changed';
    case 'not-comparable':
      return 'not comparable: no interactivity where both fronts are defined, so no matched comparison';
    case 'no-difference': {
      const gs = ok.map(gain);
      const lo = Math.min(...gs);
      const hi = Math.max(...gs);
      const range = signed(lo) === signed(hi) ? signed(lo) : `${signed(lo)} to ${signed(hi)}`;
      return `no difference: every matched point is within ${spread} (${ok.length === 1 ? 'gain' : 'gains'} ${range})`;
    }
    case 'mixed': {
      const best = better.reduce((a, m) => (gain(m) > gain(a) ? m : a));
      const worst = worse.reduce((a, m) => (gain(m) < gain(a) ? m : a));
      const counts =
        `better at ${points(better.length)}, worse at ${worse.length}` +
        (within > 0 ? `, within the spread at ${within}` : '');
      return (
        `mixed: ${signed(gain(best))} at ${at(best.interactivity)} tok/s/user but ${signed(gain(worst))} at ` +
        `${at(worst.interactivity)}, beyond ${spread}; ${counts}`
      );
    }
    default: {
      const side = c.verdict === 'better' ? better : worse;
      const verb = c.verdict === 'better' ? 'beats' : 'trails';
      const where = within > 0 ? ` at ${side.length} of ${points(ok.length)}` : '';
      const rest = within > 0 ? `, and is within it at the other ${points(within)}` : '';
      return (
        `${c.verdict}: at matched interactivity this config ${verb} the baseline by ` +
        `${byRange(side.map(gain))}${where}, beyond ${spread}${rest}`
      );
    }
  }
}

/** The verdict for a config in plain words: better, worse, mixed, no difference, same run, not comparable. */
export function headline(c: ConfigComparison): string {
  const parts = [matchedClause(c)];
  const m = c.maxTputChangePct;
  if (m !== null && c.verdict !== 'same-run') {
    const inside = Math.abs(m) <= c.noise.thresholdPct ? ' (within the spread)' : '';
    parts.push(
      Math.abs(m) < 0.05
        ? 'its maximum equals the old maximum'
        : `its maximum is ${size(m)} ${m > 0 ? 'above' : 'below'} the old maximum${inside}`,
    );
  }
  let s = `${parts.join('; ')}.`;
  if (c.dominates && c.verdict === 'better') s += ' It is at least as good across the whole baseline curve.';
  return cap(s);
}

const VERDICT_WORDS: Record<Verdict, string> = {
  better: 'better',
  worse: 'worse',
  mixed: 'mixed',
  'no-difference': 'with no difference',
  'not-comparable': 'not comparable',
  'same-run': 'the same run',
};
const ORDER: readonly Verdict[] = ['better', 'worse', 'mixed', 'no-difference', 'not-comparable', 'same-run'];

/** The report's verdict in one sentence: "Verdict: mixed (1 config better, 1 worse)." */
export function verdictLine(r: CompareReport): string {
  const v = r.verdict;
  const word = v === 'no-difference' ? 'no difference' : v.replace('-', ' ');
  if (v === 'same-run')
    return `Verdict: same run: the run and the baseline are the same run (${r.run.runIds.join(', ')}).`;
  if (r.configs.length === 0) return 'Verdict: not comparable: no config is in both.';
  const counts = ORDER.flatMap((k) => {
    const n = r.configs.filter((c) => c.verdict === k).length;
    return n === 0 ? [] : [{ n, k }];
  }).map(({ n, k }, j) => `${n}${j === 0 ? ` config${n === 1 ? '' : 's'}` : ''} ${VERDICT_WORDS[k]}`);
  return `Verdict: ${word} (${counts.join(', ')}).`;
}

function matchedRows(c: ConfigComparison): string[][] {
  return c.matched.map((m) => [
    formatValue(m.interactivity, 4),
    formatValue(m.baseline.tputPerGpu),
    formatValue(m.run.tputPerGpu),
    m.status === 'ok' ? pct(m.gainPct) : (STATUS[m.status] as string),
    POINT_VERDICT[m.verdict],
    money(m.baseline.costPerMTokens),
    money(m.run.costPerMTokens),
  ]);
}

const POINT_VERDICT: Record<PointVerdict, string> = {
  better: 'better',
  worse: 'worse',
  'within-noise': 'within spread',
  'same-run': 'same run',
  'not-compared': '',
};

const MATCHED_HEAD = [
  SHORT_UNIT.interactivity,
  `baseline ${SHORT_UNIT.tput}`,
  `run ${SHORT_UNIT.tput}`,
  'gain',
  'verdict',
  `baseline ${SHORT_UNIT.cost}`,
  `run ${SHORT_UNIT.cost}`,
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

/**
 * A side's label and what served it, where any side is not all real: `runs/pr (simulated)`,
 * `official (real)`, `runs/x (simulated and real)`.
 */
export function sideLabel(r: CompareReport, side: CompareSide): string {
  if (r.run.engine !== 'simulated' && r.run.engine !== 'mixed')
    if (r.baseline.engine !== 'simulated' && r.baseline.engine !== 'mixed') return side.label;
  const what = side.engine === 'mixed' ? 'simulated and real' : side.engine;
  return what === null ? side.label : `${side.label} (${what})`;
}

export function formatCompareText(r: CompareReport): string {
  const out: string[] = [
    `${sideLabel(r, r.run)} vs baseline ${sideLabel(r, r.baseline)} (${stat(r)} interactivity)`,
    verdictLine(r),
    ...r.notes.map((n) => `note: ${n}`),
    '',
  ];
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
    `Run ${sideLabel(r, { ...r.run, label: `\`${r.run.label}\`` })} against ` +
      `${sideLabel(r, { ...r.baseline, label: `\`${r.baseline.label}\`` })}, throughput per GPU at matched ` +
      `${stat(r)} interactivity (monotone interpolation on each Pareto front, never extrapolated); a gain ` +
      'within the run-to-run spread is no difference.',
    '',
    `**${verdictLine(r)}**`,
    '',
    ...(r.notes.length > 0 ? [...r.notes.map((n) => `> ${n}`), ''] : []),
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
