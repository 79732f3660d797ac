import type { CurvePoint } from '../schema/curve.ts';
import { costPerMillionTokens, gpuHourPrice } from './cost.ts';

/**
 * The axes a curve is drawn and compared on: which metric, its unit, and which way is better; and every
 * name a metric is shown under (axis titles, the dashboard's menus, tooltips and table headings), so the
 * CLI's charts and the dashboard never name a metric two ways. Browser-safe: the dashboard bundles it.
 */

export type Direction = 'max' | 'min';
export type XAxis = 'interactivity' | 'e2el' | 'ttft';
export const X_AXES = ['interactivity', 'e2el', 'ttft'] as const satisfies readonly XAxis[];
/** Which statistic of a per-request distribution: median, or a slow-user tail. */
export type Stat = 'median' | 'p90' | 'p99';
/** The statistics a user picks for a chart's interactivity or latency axis (the dashboard offers these). */
export const CHART_STATS = ['median', 'p90'] as const satisfies readonly Stat[];
export type ChartStat = (typeof CHART_STATS)[number];
export const STAT_LABEL: Readonly<Record<ChartStat, string>> = { median: 'median', p90: 'p90 (slow users)' };

export interface AxisSpec {
  label: string;
  unit: string;
  direction: Direction;
  value: (p: CurvePoint, stat: Stat) => number | null;
  /** The unit of one value where it differs from the axis unit (tooltips: `tok/s/GPU`). */
  valueUnit?: string;
}

/** X axes: interactivity (higher is better); E2E latency in seconds and TTFT in ms (lower is better). */
export const X_AXIS: Readonly<Record<XAxis, AxisSpec>> = {
  interactivity: {
    label: 'Interactivity',
    unit: 'tok/s/user',
    direction: 'max',
    value: (p, stat) => p.metrics.interactivity[stat],
  },
  e2el: {
    label: 'End-to-end latency',
    unit: 's',
    direction: 'min',
    value: (p, stat) => {
      const ms = p.metrics.e2elMs[stat];
      return ms === null ? null : ms / 1000;
    },
  },
  ttft: {
    label: 'Time to first token',
    unit: 'ms',
    direction: 'min',
    value: (p, stat) => p.metrics.ttftMs[stat],
  },
};

/** An axis title: `Interactivity (tok/s/user)`. */
export const axisTitle = (spec: Pick<AxisSpec, 'label' | 'unit'>): string => `${spec.label} (${spec.unit})`;

const PER_GPU = 'tok/s/GPU';

/** The default y axis of every curve: total tokens per second per allocated GPU (higher is better). */
export const Y_AXIS: AxisSpec = {
  label: 'Throughput per GPU',
  unit: 'tok/s',
  valueUnit: PER_GPU,
  direction: 'max',
  value: (p) => p.metrics.tputPerGpu,
};

/**
 * Y metrics the dashboard offers (dashboard-spec §4.3.1, §4.3.4): throughput per GPU (total, output, input),
 * cost per million tokens of each (from the $/GPU-hour of the config's base GPU), and measured energy per
 * output token. Costs and energy are better low.
 */
export type YMetric = 'tput' | 'output' | 'input' | 'cost' | 'cost-output' | 'cost-input' | 'energy';
export const Y_METRICS = [
  'tput',
  'output',
  'input',
  'cost',
  'cost-output',
  'cost-input',
  'energy',
] as const satisfies readonly YMetric[];

type Tput = (p: CurvePoint) => number | null;
const TOTAL: Tput = (p) => p.metrics.tputPerGpu;
const OUTPUT: Tput = (p) => p.metrics.outputTputPerGpu;
const INPUT: Tput = (p) => p.metrics.inputTputPerGpu;

const throughput = (label: string, value: Tput): AxisSpec => ({
  label,
  unit: 'tok/s',
  valueUnit: PER_GPU,
  direction: 'max',
  value,
});

const COST_LABEL = 'Cost per million tokens';

const cost = (label: string, tput: Tput, price: number | null | undefined): AxisSpec => ({
  label,
  unit: '$/M tokens',
  direction: 'min',
  value: (p) => costPerMillionTokens(gpuHourPrice(p.config.hardware, price).perGpuHour, tput(p)),
});

/**
 * The spec of a y metric. `pricePerGpuHour` overrides the catalog's price for the cost metrics (null or
 * absent: the catalog's estimate of each config's GPU; no price known: no value).
 */
export function yAxisSpec(metric: YMetric = 'tput', pricePerGpuHour?: number | null): AxisSpec {
  switch (metric) {
    case 'tput':
      return Y_AXIS;
    case 'output':
      return throughput('Output throughput per GPU', OUTPUT);
    case 'input':
      return throughput('Input throughput per GPU', INPUT);
    case 'cost':
      return cost(COST_LABEL, TOTAL, pricePerGpuHour);
    case 'cost-output':
      return cost('Cost per million output tokens', OUTPUT, pricePerGpuHour);
    case 'cost-input':
      return cost('Cost per million input tokens', INPUT, pricePerGpuHour);
    case 'energy':
      return {
        label: 'Energy per output token',
        unit: 'J/token',
        direction: 'min',
        value: (p) => p.metrics.joulesPerOutputToken,
      };
  }
}

/** The y metrics as the dashboard's menu groups them, each with its name in the menu. */
export const Y_METRIC_GROUPS: readonly { label: string; options: readonly (readonly [YMetric, string])[] }[] =
  [
    {
      label: Y_AXIS.label,
      options: [
        ['tput', 'Total tok/s per GPU'],
        ['output', 'Output tok/s per GPU'],
        ['input', 'Input tok/s per GPU'],
      ],
    },
    {
      label: COST_LABEL,
      options: [
        ['cost', '$ per M total tokens'],
        ['cost-output', '$ per M output tokens'],
        ['cost-input', '$ per M input tokens'],
      ],
    },
    { label: 'Energy', options: [['energy', 'J per output token']] },
  ];

/** Short names of the metrics where an axis title does not fit: tooltip rows and table headings. */
export const SHORT_LABEL = {
  tput: 'Throughput/GPU',
  interactivity: X_AXIS.interactivity.label,
  ttft: 'TTFT',
  e2el: 'E2E latency',
  cost: 'Cost',
  energy: 'Energy',
} as const;

/** Units as short as a table heading needs them. */
export const SHORT_UNIT = {
  tput: PER_GPU,
  interactivity: X_AXIS.interactivity.unit,
  ttft: X_AXIS.ttft.unit,
  e2el: X_AXIS.e2el.unit,
  cost: '$/M tok',
  energy: 'J/output token',
} as const;

/** Headings of the metric columns of a table of points (a run's points). */
export const COLUMN_HEADING = {
  tput: SHORT_UNIT.tput,
  interactivity: SHORT_UNIT.interactivity,
  ttft: `${SHORT_LABEL.ttft} ${SHORT_UNIT.ttft}`,
  e2el: `E2E ${SHORT_UNIT.e2el}`,
} as const;

export const finite = (v: number | null | undefined): v is number =>
  typeof v === 'number' && Number.isFinite(v);
