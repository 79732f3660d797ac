import { costPerMillionTokens, gpuHourPrice } from '../analysis/cost.ts';
import { configLabel, parallelismLabel } from '../analysis/labels.ts';
import type { CurvePoint, Pool } from '../schema/curve.ts';

/**
 * `GET /api/export.csv`: every metric of the selected points, one row per point (dashboard-spec §4.3.2
 * export), RFC 4180 quoting. Units are in the column names and match the values (pitfall 21: latencies in
 * ms are named `_ms`); an empty cell is "not measured". Text cells that a spreadsheet would run as a
 * formula (=, +, -, @) are prefixed with a quote.
 */

type Cell = string | number | boolean | null;

interface Column {
  name: string;
  value: (p: CurvePoint, price: number | null) => Cell;
}

const pool = (side: 'prefill' | 'decode'): Column[] =>
  (['tp', 'ep', 'dpAttn', 'pp', 'dcp', 'pcp', 'workers', 'gpus'] as const).map((k) => ({
    name: `${side}_${k === 'dpAttn' ? 'dp_attn' : k}`,
    value: (p) => (p.config[side] as Pool)[k],
  }));

const stat = (
  name: string,
  get: (p: CurvePoint) => { median: number | null; p90: number | null; p99: number | null },
) =>
  (['median', 'p90', 'p99'] as const).map(
    (s): Column => ({ name: name.replace('{s}', s), value: (p) => get(p)[s] }),
  );

export const CSV_COLUMNS: readonly Column[] = [
  { name: 'run_id', value: (p) => p.runId },
  { name: 'point_id', value: (p) => p.pointId },
  { name: 'attempt', value: (p) => p.attempt },
  { name: 'run_created_at', value: (p) => p.createdAt },
  { name: 'config', value: (p) => configLabel(p.config) },
  { name: 'config_key', value: (p) => p.configKey },
  /** simulated (infx's simulated engine) or real; the simulator's version, empty for a real engine. */
  { name: 'engine', value: (p) => p.engine.kind },
  { name: 'simulator', value: (p) => p.engine.simulator },
  { name: 'model', value: (p) => p.config.model },
  { name: 'isl', value: (p) => p.config.isl },
  { name: 'osl', value: (p) => p.config.osl },
  { name: 'hardware', value: (p) => p.config.hardware },
  { name: 'framework', value: (p) => p.config.framework },
  { name: 'precision', value: (p) => p.config.precision },
  { name: 'spec_decoding', value: (p) => p.config.specDecoding },
  { name: 'disagg', value: (p) => p.config.disagg },
  { name: 'multi_node', value: (p) => p.config.multiNode },
  { name: 'parallelism', value: (p) => parallelismLabel(p.config) },
  ...pool('prefill'),
  ...pool('decode'),
  { name: 'conc', value: (p) => p.conc },
  { name: 'gpus', value: (p) => p.gpus },
  { name: 'image', value: (p) => p.image },
  { name: 'valid', value: (p) => p.valid },
  { name: 'tput_per_gpu_tok_s', value: (p) => p.metrics.tputPerGpu },
  { name: 'output_tput_per_gpu_tok_s', value: (p) => p.metrics.outputTputPerGpu },
  { name: 'input_tput_per_gpu_tok_s', value: (p) => p.metrics.inputTputPerGpu },
  ...stat('interactivity_{s}_tok_s_user', (p) => p.metrics.interactivity),
  ...stat('ttft_{s}_ms', (p) => p.metrics.ttftMs),
  ...stat('e2el_{s}_ms', (p) => p.metrics.e2elMs),
  { name: 'joules_per_output_token', value: (p) => p.metrics.joulesPerOutputToken },
  { name: 'price_per_gpu_hour_usd', value: (_, price) => price },
  {
    name: 'cost_per_m_tokens_usd',
    value: (p, price) => costPerMillionTokens(price, p.metrics.tputPerGpu),
  },
  {
    name: 'cost_per_m_output_tokens_usd',
    value: (p, price) => costPerMillionTokens(price, p.metrics.outputTputPerGpu),
  },
  {
    name: 'cost_per_m_input_tokens_usd',
    value: (p, price) => costPerMillionTokens(price, p.metrics.inputTputPerGpu),
  },
];

function cell(v: Cell): string {
  if (v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const s = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The CSV text (header first, CRLF line ends). `pricePerGpuHour` overrides the catalog's price. */
export function pointsCsv(points: readonly CurvePoint[], pricePerGpuHour?: number | null): string {
  const lines = [CSV_COLUMNS.map((c) => c.name).join(',')];
  for (const p of points) {
    const price = gpuHourPrice(p.config.hardware, pricePerGpuHour).perGpuHour;
    lines.push(CSV_COLUMNS.map((c) => cell(c.value(p, price))).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
