import type { CompareSide } from '../schema/compare-report.ts';
import type {
  FrontierAxis,
  FrontierCompareReport,
  FrontierComparison,
  FrontierPoint,
} from '../schema/frontier-compare.ts';
import { plural } from '../schema/plural.ts';
import { SHORT_UNIT } from './axes.ts';
import { alignTable } from './compare-format.ts';
import { formatValue } from './ticks.ts';

/**
 * `infx compare --against frontier` output: per config of the run, its points against the baseline's
 * frontier, as aligned text or Markdown. Every gain is said to be an interpolation estimate.
 */

/** A signed percentage with a true minus sign: +75.0%, −3.5%. */
export const signedPct = (v: number | null) =>
  v === null ? 'N/A' : Math.abs(v) < 0.05 ? '0.0%' : `${v > 0 ? '+' : '−'}${Math.abs(v).toFixed(1)}%`;

/** What every frontier comparison is, in one sentence. */
export const ESTIMATE_SENTENCE =
  "These are interpolation estimates on the baseline's frontier (monotone interpolation between its " +
  'measured points, never extrapolated), not measured matched-latency comparisons.';

/** `median interactivity`, `generation interactivity p90`: what a config's points are matched at. */
export const axisWords = (a: FrontierAxis) =>
  a.metric === 'interactivity' ? `${a.stat} interactivity` : `generation interactivity ${a.stat}`;

/** Whether a comparison is of an agentic config (matched at generation interactivity p90). */
export const isAgenticComparison = (c: FrontierComparison) => c.group.workload === 'agentic_traces';

/** The table's head: users and generation interactivity for an agentic config. */
export const frontierHead = (c: FrontierComparison): string[] => [
  isAgenticComparison(c) ? 'users' : 'conc',
  isAgenticComparison(c) ? `gen. ${SHORT_UNIT.interactivity} p90` : SHORT_UNIT.interactivity,
  `run ${SHORT_UNIT.tput}`,
  `frontier ${SHORT_UNIT.tput}`,
  'vs frontier',
];

/** The gain cell of a row: a percentage, or where it fell outside the frontier. */
export function gainCell(r: FrontierPoint): string {
  if (r.status === 'outside-frontier')
    return r.side === null ? 'no frontier' : `outside the frontier (${r.side} it)`;
  return signedPct(r.gainPct);
}

const sideName = (r: FrontierCompareReport, s: CompareSide) => {
  const anySim = [r.run.engine, r.baseline.engine].some((e) => e === 'simulated' || e === 'mixed');
  if (!anySim || s.engine === null) return s.label;
  return `${s.label} (${s.engine === 'mixed' ? 'simulated and real' : s.engine})`;
};

/** The frontier in one line: its configs, range and maximum; or why there is none. */
export function frontierLine(c: FrontierComparison): string {
  const f = c.frontier;
  if (f === null || f.interactivity === null) return 'Frontier: none (see the note).';
  const on = f.configs.map((k) => `${k.label}: ${plural(k.frontPoints, 'point')} on it`).join('; ');
  const top = f.configs.find((k) => k.configKey === f.maxConfigKey)?.label ?? 'N/A';
  return (
    `Frontier of ${plural(f.configs.length, 'baseline config')} (${on}), ` +
    `${formatValue(f.interactivity[0], 4)}–${formatValue(f.interactivity[1], 4)} ${SHORT_UNIT.interactivity} ` +
    `(${axisWords(c.axis)}), ` +
    `max ${formatValue(f.maxTputPerGpu)} ${SHORT_UNIT.tput} (${top}).`
  );
}

/** The config's result in words: the gains where it is inside the frontier, and max against max. */
export function frontierHeadline(c: FrontierComparison): string {
  const parts: string[] = [];
  const ok = c.points.filter((r) => r.status === 'ok');
  if (c.frontier === null || c.frontier.interactivity === null)
    parts.push('Not compared: no baseline frontier');
  else if (ok.length === 0)
    parts.push('Not compared: no point of this config lies within the frontier’s interactivity range');
  else {
    const lo = signedPct(c.gainPct.min);
    const hi = signedPct(c.gainPct.max);
    parts.push(
      `Against the baseline's interpolated frontier: ${lo === hi ? lo : `${lo} to ${hi}`} at ` +
        `${ok.length} of ${plural(c.points.length, 'point')} (interpolation estimates)`,
    );
  }
  const m = c.maxTputChangePct;
  if (m !== null)
    parts.push(
      Math.abs(m) < 0.05
        ? "its maximum equals the frontier's maximum"
        : `its maximum, ${formatValue(c.run.maxTputPerGpu)} ${SHORT_UNIT.tput}, is ${Math.abs(m).toFixed(1)}% ` +
            `${m > 0 ? 'above' : 'below'} the frontier's maximum`,
    );
  return `${parts.join('; ')}.`;
}

function rows(c: FrontierComparison): string[][] {
  return c.points.map((r) => [
    String(r.conc),
    formatValue(r.interactivity, 4),
    formatValue(r.tputPerGpu),
    r.frontierTputPerGpu === null ? 'N/A' : `${formatValue(r.frontierTputPerGpu)}${r.atKnot ? '' : ' *'}`,
    gainCell(r),
  ]);
}

const FOOT = '* interpolation estimate between two measured frontier points';

const intro = (r: FrontierCompareReport) =>
  `Each config of the run against the Pareto frontier (throughput per GPU vs ${r.interactivityStat} ` +
  'interactivity, invalid points excluded) of all baseline configs of the same model, precision, hardware ' +
  'and workload' +
  (r.configs.some(isAgenticComparison)
    ? '; an agentic config against the agentic configs, at matched generation interactivity p90.'
    : '.');

export function formatFrontierText(r: FrontierCompareReport): string {
  const out = [
    `${sideName(r, r.run)} vs the frontier of baseline ${sideName(r, r.baseline)} (${r.interactivityStat} interactivity)`,
    intro(r),
    ESTIMATE_SENTENCE,
    ...r.notes.map((n) => `note: ${n}`),
    '',
  ];
  if (r.configs.length === 0) out.push('The run has no config with results: nothing to compare.', '');
  for (const c of r.configs) {
    out.push(`== ${c.label}`, frontierHeadline(c), frontierLine(c));
    for (const n of c.notes) out.push(`note: ${n}`);
    out.push('');
    if (c.points.length > 0 && c.frontier !== null) out.push(alignTable(frontierHead(c), rows(c)), FOOT, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function mdTable(head: readonly string[], body: readonly (readonly string[])[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${head.map(esc).join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...body.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

export function formatFrontierMarkdown(r: FrontierCompareReport): string {
  const code = (s: CompareSide) => ({ ...s, label: `\`${s.label}\`` });
  const out = [
    '### Performance vs the baseline frontier',
    '',
    `Run ${sideName(r, code(r.run))} against the frontier of ${sideName(r, code(r.baseline))}. ${intro(r)}`,
    '',
    `**${ESTIMATE_SENTENCE}**`,
    '',
    ...(r.notes.length > 0 ? [...r.notes.map((n) => `> ${n}`), ''] : []),
  ];
  if (r.configs.length === 0) out.push('The run has no config with results: nothing to compare.', '');
  for (const c of r.configs) {
    out.push(`#### ${c.label}`, '', `**${frontierHeadline(c)}**`, '', frontierLine(c), '');
    for (const n of c.notes) out.push(`> ${n}`);
    if (c.notes.length > 0) out.push('');
    if (c.points.length > 0 && c.frontier !== null)
      out.push(mdTable(frontierHead(c), rows(c)), '', `_${FOOT}_`, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
