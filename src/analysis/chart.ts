import type { CurvePoint, EngineKind } from '../schema/curve.ts';
import { plural } from '../schema/plural.ts';
import {
  type AxisSpec,
  type Direction,
  finite,
  type Stat,
  X_AXIS,
  type XAxis,
  type YMetric,
  yAxisSpec,
} from './axes.ts';
import { configLabel, SIMULATED, workloadLabel } from './labels.ts';
import { throughputFront } from './pareto.ts';
import { type NiceAxis, niceLinear, niceLog, type Scale } from './ticks.ts';

/**
 * The inference chart (dashboard-spec §4.3), framework-free: throughput per GPU (or another y metric:
 * output or input throughput, cost per million tokens, energy per token) against interactivity, E2E latency
 * or TTFT; one series per config and run, its points and its Pareto front. The SVG and PNG renderers and the
 * dashboard draw this same definition.
 */

/** Okabe–Ito: distinguishable with the common colour-vision deficiencies; yellow last (weak on white). */
export const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#000000',
  '#F0E442',
];

export interface ChartInput {
  /** What the user named (a run directory, a run id). */
  label: string;
  runIds: readonly string[];
  points: readonly CurvePoint[];
}

export interface ChartOptions {
  x?: XAxis;
  stat?: Stat;
  yScale?: Scale;
  title?: string;
  width?: number;
  height?: number;
  /** Series ids not drawn; the axes fit the visible series only (pitfall 8). */
  hidden?: readonly string[];
  /** Config keys not drawn, in every run (as `hidden`, by config). */
  hiddenConfigs?: readonly string[];
  /** The y metric (default: total throughput per GPU). */
  y?: YMetric;
  /** $/GPU-hour for the cost metrics; default: the catalog's estimate of each config's GPU. */
  pricePerGpuHour?: number | null;
  /** Draw only the points on each series' front ("hide non-optimal"); the axes fit what is drawn. */
  frontOnly?: boolean;
  /** Whether labels carry the run id; default: when more than one run or input is drawn. */
  runLabels?: boolean;
  /**
   * `series` (default): each series its own colour. `config-and-run` (the compare view): a config keeps its
   * colour in every input, and each input has its own line style (solid, dashed, dotted), so the eye pairs
   * a config across runs by colour and tells the runs apart by line.
   */
  styleBy?: 'series' | 'config-and-run';
}

/** How a series' front is drawn. */
export type LineStyle = 'solid' | 'dashed' | 'dotted';
/** The line styles of the inputs in a `config-and-run` chart, in input order (repeating past three). */
export const LINE_STYLES: readonly LineStyle[] = ['solid', 'dashed', 'dotted'];

export interface ChartPoint {
  x: number;
  y: number;
  conc: number;
  /** The run the point was measured in (a series of latest results may mix runs). */
  runId: string;
  pointId: string;
  onFront: boolean;
}

export interface ChartSeries {
  /** Stable and unique: `<run id>|<config key>`. */
  id: string;
  /** The config (and the run, when several are drawn), and `simulated` for a simulated series. */
  label: string;
  runId: string;
  configKey: string;
  /** What served its points: infx's simulated engine (`simulated`) or a real one. */
  engine: EngineKind;
  /** The simulator versions of its points (simulated series), in order of first appearance. */
  simulators: string[];
  color: string;
  /** Past the palette, series repeat its colours with a dashed front; see also ChartOptions.styleBy. */
  dashed: boolean;
  /** The front's line: `dashed` when `dashed`; by input in a `config-and-run` chart. */
  line: LineStyle;
  hidden: boolean;
  /** Valid points with finite coordinates, ascending by x. */
  points: ChartPoint[];
  /** The Pareto front of the points (y better to the axis's good side), ascending by x. */
  front: { x: number; y: number }[];
}

export interface ChartAxis extends NiceAxis {
  label: string;
  unit: string;
  /** The unit of one value (tooltips), e.g. tok/s/GPU on a tok/s axis. */
  valueUnit: string;
  scale: Scale;
  /** Which way is better along this axis. */
  direction: Direction;
}

export interface ChartDefinition {
  title: string;
  subtitle: string;
  width: number;
  height: number;
  x: ChartAxis;
  y: ChartAxis;
  series: ChartSeries[];
  /** Things the reader should know: points left out and why. */
  notes: string[];
  /** Points of the inputs not drawn, by why: not valid, or without a value on an axis (`without` says which). */
  leftOut: { invalid: number; noValue: number; without: string };
  /** The note of `leftOut` in `notes`, null when nothing was left out. */
  leftOutNote: string | null;
}

interface Resolved {
  x: XAxis;
  stat: Stat;
  yScale: Scale;
  ySpec: AxisSpec;
  frontOnly: boolean;
}

function seriesOf(input: ChartInput, key: string, pts: CurvePoint[], o: Resolved) {
  const axis = X_AXIS[o.x];
  const yOf = o.ySpec.value;
  const drawable = (x: number | null, y: number | null) =>
    finite(x) && finite(y) && (o.yScale !== 'log' || y > 0);
  const valid = pts.filter((p) => p.valid && drawable(axis.value(p, o.stat), yOf(p, o.stat)));
  const invalid = pts.filter((p) => !p.valid).length;
  const front = throughputFront(valid, o.x, o.stat, o.ySpec);
  const onFront = new Set(front.flatMap((f) => f.items));
  const points = valid
    .map((p) => ({
      x: axis.value(p, o.stat) as number,
      y: yOf(p, o.stat) as number,
      conc: p.conc,
      runId: p.runId,
      pointId: p.pointId,
      onFront: onFront.has(p),
    }))
    .filter((p) => !o.frontOnly || p.onFront)
    .sort((a, b) => a.x - b.x || a.conc - b.conc);
  const simulated = pts.filter((p) => p.engine.kind === 'simulated');
  return {
    runId: pts[0]?.runId ?? input.runIds[0] ?? input.label,
    configKey: key,
    config: (pts[0] as CurvePoint).config,
    engine: (simulated.length > 0 ? 'simulated' : 'real') as EngineKind,
    simulators: [
      ...new Set(simulated.flatMap((p) => (p.engine.simulator === null ? [] : [p.engine.simulator]))),
    ],
    points,
    front: front.map((f) => ({ x: f.x, y: f.y })),
    invalid,
    noValue: pts.length - valid.length - invalid,
  };
}

function axisOf(
  values: number[],
  scale: Scale,
  spec: { label: string; unit: string; valueUnit?: string; direction: Direction },
  zero: boolean,
): ChartAxis {
  let nice: NiceAxis;
  if (values.length === 0) nice = scale === 'log' ? niceLog(1, 10) : niceLinear(0, 1);
  else {
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    if (scale === 'log') nice = niceLog(lo, hi);
    else if (zero && lo >= 0) nice = niceLinear(0, hi * 1.05);
    else {
      const pad = (hi - lo) * 0.05;
      nice = niceLinear(lo >= 0 ? Math.max(0, lo - pad) : lo - pad, hi + pad);
    }
  }
  return {
    ...nice,
    label: spec.label,
    unit: spec.unit,
    valueUnit: spec.valueUnit ?? spec.unit,
    scale,
    direction: spec.direction,
  };
}

/**
 * A series' colour and line: by its place among the series (`input` null), past the palette with a dashed
 * front; or by its config's place (`n`) and its input's line style.
 */
function seriesStyle(n: number, input: number | null): Pick<ChartSeries, 'color' | 'dashed' | 'line'> {
  const color = PALETTE[n % PALETTE.length] as string;
  if (input === null) {
    const dashed = n >= PALETTE.length;
    return { color, dashed, line: dashed ? 'dashed' : 'solid' };
  }
  const line = LINE_STYLES[input % LINE_STYLES.length] as LineStyle;
  return { color, dashed: line !== 'solid', line };
}

/** Builds the chart of one or more runs overlaid. */
export function buildChart(inputs: readonly ChartInput[], opts: ChartOptions = {}): ChartDefinition {
  const yMetric = opts.y ?? 'tput';
  const o = {
    x: opts.x ?? 'interactivity',
    stat: opts.stat ?? 'median',
    yScale: opts.yScale ?? 'linear',
    ySpec: yAxisSpec(yMetric, opts.pricePerGpuHour),
    frontOnly: opts.frontOnly ?? false,
    width: opts.width ?? 960,
    height: opts.height ?? 600,
    hidden: new Set(opts.hidden ?? []),
    hiddenConfigs: new Set(opts.hiddenConfigs ?? []),
    styleBy: opts.styleBy ?? 'series',
  };
  const raw = inputs.flatMap((input) => {
    const byKey = new Map<string, CurvePoint[]>();
    for (const p of input.points) byKey.set(p.configKey, [...(byKey.get(p.configKey) ?? []), p]);
    return [...byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, pts]) => ({ input, ...seriesOf(input, key, pts, o) }));
  });
  const workloads = new Set(raw.map((s) => workloadLabel(s.config)));
  const manyRuns = opts.runLabels ?? (new Set(raw.map((s) => s.runId)).size > 1 || inputs.length > 1);
  const ids = new Set<string>();
  const byConfig = o.styleBy === 'config-and-run';
  const configs = [...new Set(raw.map((s) => s.configKey))];
  const series: ChartSeries[] = raw.map((s, i) => {
    let id = `${s.runId}|${s.configKey}`;
    for (let k = 2; ids.has(id); k++) id = `${s.runId}|${s.configKey}#${k}`;
    ids.add(id);
    const tags = [manyRuns ? s.runId : null, s.engine === 'simulated' ? SIMULATED : null].filter(
      (t) => t !== null,
    );
    const label =
      (workloads.size > 1 ? `${workloadLabel(s.config)} ` : '') +
      configLabel(s.config) +
      (tags.length > 0 ? ` (${tags.join(', ')})` : '');
    return {
      id,
      label,
      runId: s.runId,
      configKey: s.configKey,
      engine: s.engine,
      simulators: s.simulators,
      ...seriesStyle(byConfig ? configs.indexOf(s.configKey) : i, byConfig ? inputs.indexOf(s.input) : null),
      hidden: o.hidden.has(id) || o.hiddenConfigs.has(s.configKey),
      points: s.points,
      front: s.front,
    };
  });
  const visible = series.filter((s) => !s.hidden);
  const xs = visible.flatMap((s) => s.points.map((p) => p.x));
  const ys = visible.flatMap((s) => s.points.map((p) => p.y));
  const notes: string[] = [];
  const yWord = yMetric === 'tput' ? 'throughput' : o.ySpec.label.toLowerCase();
  const without =
    `without ${o.x}${yMetric === 'tput' ? '' : ` or ${yWord}`}` +
    `${o.yScale === 'log' ? ` or a positive ${yWord}` : ''}`;
  const leftOut = {
    invalid: raw.reduce((n, s) => n + s.invalid, 0),
    noValue: raw.reduce((n, s) => n + s.noValue, 0),
    without,
  };
  const why = [
    leftOut.invalid > 0 ? `${leftOut.invalid} invalid` : null,
    leftOut.noValue > 0 ? `${leftOut.noValue} ${without}` : null,
  ].filter((w) => w !== null);
  const leftOutNote =
    why.length > 0
      ? `${plural(leftOut.invalid + leftOut.noValue, 'point')} not drawn: ${why.join(', ')}`
      : null;
  if (leftOutNote !== null) notes.push(leftOutNote);
  if (xs.length === 0) notes.push('no valid points to draw');
  const simulated = visible.filter((s) => s.engine === 'simulated');
  if (simulated.length > 0) {
    const versions = [...new Set(simulated.flatMap((s) => s.simulators))];
    notes.push(
      `${simulated.length === visible.length ? 'every series' : `${simulated.length} of ${visible.length} series`} ` +
        `simulated (infx's simulated engine${versions.length > 0 ? ` ${versions.join(', ')}` : ''}), not measured on real hardware`,
    );
  }
  const xAxis = X_AXIS[o.x];
  const statWord = o.stat === 'median' ? 'median' : o.stat;
  const title = opts.title ?? `${o.ySpec.label} vs. ${xAxis.label}`;
  const subtitle = [
    workloads.size === 1 ? [...workloads][0] : null,
    `${statWord} ${xAxis.label.toLowerCase()}`,
    inputs.map((i) => i.label).join(', '),
  ]
    .filter((s) => s !== null)
    .join(' · ');
  return {
    title,
    subtitle,
    width: o.width,
    height: o.height,
    x: axisOf(xs, 'linear', xAxis, false),
    y: axisOf(ys, o.yScale, o.ySpec, true),
    series,
    notes,
    leftOut,
    leftOutNote,
  };
}
