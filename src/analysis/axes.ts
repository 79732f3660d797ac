import type { CurvePoint } from '../schema/curve.ts';
import { costPerMillionTokens, gpuHourPrice } from './cost.ts';

/** The axes a curve is drawn and compared on: which metric, its unit, and which way is better. */

export type Direction = 'max' | 'min';
export type XAxis = 'interactivity' | 'e2el' | 'ttft';
export const X_AXES = ['interactivity', 'e2el', 'ttft'] as const satisfies readonly XAxis[];
/** Which statistic of a per-request distribution: median, or a slow-user tail. */
export type Stat = 'median' | 'p90' | 'p99';

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

/** The default y axis of every curve: total tokens per second per allocated GPU (higher is better). */
export const Y_AXIS: AxisSpec = {
  label: 'Throughput per GPU',
  unit: 'tok/s',
  valueUnit: 'tok/s/GPU',
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
  valueUnit: 'tok/s/GPU',
  direction: 'max',
  value,
});

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
      return cost('Cost per million tokens', TOTAL, pricePerGpuHour);
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

export const finite = (v: number | null | undefined): v is number =>
  typeof v === 'number' && Number.isFinite(v);
