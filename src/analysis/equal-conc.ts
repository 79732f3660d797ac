import type { EqualConcMetric } from '../schema/compare-report.ts';
import type { CurvePoint } from '../schema/curve.ts';
import { finite } from './axes.ts';

/**
 * The reference's PR-comment table (client-metrics-spec §8.1): the run against the baseline at equal
 * concurrency, metric by metric, with delta = run − baseline and pct = 100·delta/baseline. N/A (null) when
 * either value is missing or the baseline is 0. TTFT in ms, E2E latency in seconds, as the reference shows.
 */

interface MetricDef {
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  value: (p: CurvePoint) => number | null;
}

const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);
const STATS = ['median', 'p90', 'p99'] as const;

export const EQUAL_CONC_METRICS: readonly MetricDef[] = [
  { metric: 'tput/GPU', unit: 'tok/s', better: 'higher', value: (p) => p.metrics.tputPerGpu },
  ...STATS.map(
    (s): MetricDef => ({
      metric: `${s} TTFT`,
      unit: 'ms',
      better: 'lower',
      value: (p) => p.metrics.ttftMs[s],
    }),
  ),
  ...STATS.map(
    (s): MetricDef => ({
      metric: `${s} interactivity`,
      unit: 'tok/s/user',
      better: 'higher',
      value: (p) => p.metrics.interactivity[s],
    }),
  ),
  ...STATS.map(
    (s): MetricDef => ({
      metric: `${s} E2EL`,
      unit: 's',
      better: 'lower',
      value: (p) => seconds(p.metrics.e2elMs[s]),
    }),
  ),
];

export function compareMetric(def: MetricDef, run: CurvePoint, baseline: CurvePoint): EqualConcMetric {
  const r = def.value(run);
  const b = def.value(baseline);
  const rv = finite(r) ? r : null;
  const bv = finite(b) ? b : null;
  const delta = rv === null || bv === null ? null : rv - bv;
  const pct = delta === null || bv === 0 ? null : (100 * delta) / (bv as number);
  const improved = delta === null || delta === 0 ? null : def.better === 'higher' ? delta > 0 : delta < 0;
  return {
    metric: def.metric,
    unit: def.unit,
    better: def.better,
    run: rv,
    baseline: bv,
    delta,
    pct,
    improved,
  };
}

/** The newest valid point per concurrency. */
function byConc(points: readonly CurvePoint[]): Map<number, CurvePoint> {
  const out = new Map<number, CurvePoint>();
  for (const p of points) {
    if (!p.valid) continue;
    const had = out.get(p.conc);
    if (had === undefined || p.createdAt > had.createdAt) out.set(p.conc, p);
  }
  return out;
}

/** One row per concurrency measured (validly) on both sides, ascending. */
export function equalConcurrency(
  run: readonly CurvePoint[],
  baseline: readonly CurvePoint[],
): { conc: number; metrics: EqualConcMetric[] }[] {
  const r = byConc(run);
  const b = byConc(baseline);
  return [...r.keys()]
    .filter((c) => b.has(c))
    .sort((x, y) => x - y)
    .map((conc) => ({
      conc,
      metrics: EQUAL_CONC_METRICS.map((def) => compareMetric(def, r.get(conc)!, b.get(conc)!)),
    }));
}
