import type { ConfigNoise, PointVerdict, Verdict } from '../schema/compare-report.ts';
import type { CurvePoint } from '../schema/curve.ts';
import { finite } from './axes.ts';

/**
 * The run-to-run spread `infx compare` judges gains against, and the verdicts it gives.
 *
 * Measured: among the results of one config that are not the run's own (the baseline's, and stored runs'
 * where a results database is in use), those at the same concurrency and image (and, for simulated results,
 * simulator version: another performance model is a change, not noise) from two or more different runs
 * are repeats of one measurement; each such group's spread is 100·(max − min)/mean of throughput per
 * GPU, and the config's threshold is the largest of them: two runs of the same thing were seen to differ by
 * that much, so a gain no larger is no difference. The run's own results never count (a real change would
 * widen the spread it is judged against). Without repeats the threshold is DEFAULT_NOISE_PCT, assumed, not
 * measured; `--noise PCT` sets it for every config.
 */

export const DEFAULT_NOISE_PCT = 2;

export interface Spread {
  pct: number;
  repeats: number;
  runs: number;
  concs: number[];
}

/** The largest spread among groups of repeated results (same conc, image, simulator, ≥ 2 runs); null: none. */
export function measureSpread(points: readonly CurvePoint[]): Spread | null {
  // conc, image → run id → throughput/GPU (a run's first result there).
  const groups = new Map<string, { conc: number; byRun: Map<string, number> }>();
  for (const p of points) {
    const t = p.metrics.tputPerGpu;
    if (!p.valid || !finite(t) || t <= 0) continue;
    const key = `${p.conc}\u0000${p.image}\u0000${p.engine.simulator ?? ''}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = { conc: p.conc, byRun: new Map() };
      groups.set(key, g);
    }
    if (!g.byRun.has(p.runId)) g.byRun.set(p.runId, t);
  }
  let pct = -1;
  let repeats = 0;
  const runs = new Set<string>();
  const concs = new Set<number>();
  for (const g of groups.values()) {
    if (g.byRun.size < 2) continue;
    const vs = [...g.byRun.values()];
    const mean = vs.reduce((a, b) => a + b, 0) / vs.length;
    pct = Math.max(pct, (100 * (Math.max(...vs) - Math.min(...vs))) / mean);
    repeats += vs.length;
    for (const id of g.byRun.keys()) runs.add(id);
    concs.add(g.conc);
  }
  if (pct < 0) return null;
  return { pct, repeats, runs: runs.size, concs: [...concs].sort((a, b) => a - b) };
}

const key = (p: CurvePoint) => `${p.runId}\u0000${p.pointId}`;

/**
 * The noise of one config: `pool` is every result of it the comparison can see apart from the run's (the
 * baseline's points and any stored repeats); results of `runIds` (the run's) are dropped.
 */
export function configNoise(
  pool: readonly CurvePoint[],
  runIds: ReadonlySet<string>,
  flagPct: number | null,
  assumedPct = DEFAULT_NOISE_PCT,
): ConfigNoise {
  const seen = new Set<string>();
  const kept = pool.filter((p) => {
    if (runIds.has(p.runId) || seen.has(key(p))) return false;
    seen.add(key(p));
    return true;
  });
  const s = measureSpread(kept);
  const measured = {
    measuredPct: s?.pct ?? null,
    repeats: s?.repeats ?? 0,
    runs: s?.runs ?? 0,
    concs: s?.concs ?? [],
  };
  if (flagPct !== null) return { thresholdPct: flagPct, source: 'flag', ...measured };
  if (s !== null) return { thresholdPct: s.pct, source: 'measured', ...measured };
  return { thresholdPct: assumedPct, source: 'assumed', ...measured };
}

/** A matched gain against the threshold: inside or on it is no difference. */
export function pointVerdict(gainPct: number | null, thresholdPct: number, sameRun: boolean): PointVerdict {
  if (gainPct === null) return 'not-compared';
  if (sameRun) return 'same-run';
  if (gainPct > thresholdPct) return 'better';
  if (gainPct < -thresholdPct) return 'worse';
  return 'within-noise';
}

/** A config's verdict from its matched points. */
export function configVerdict(points: readonly PointVerdict[], sameRun: boolean): Verdict {
  if (sameRun) return 'same-run';
  const better = points.includes('better');
  const worse = points.includes('worse');
  if (better && worse) return 'mixed';
  if (better) return 'better';
  if (worse) return 'worse';
  return points.includes('within-noise') ? 'no-difference' : 'not-comparable';
}

/**
 * The report's verdict: same-run when every config is the same run (or no config is in both and the run
 * ids are the same); otherwise from the configs that were compared: mixed when they (or points of one)
 * disagree, better or worse when every one is that or no different, no-difference when all are.
 */
export function overallVerdict(configs: readonly Verdict[], sameRunIds: boolean): Verdict {
  if (configs.length === 0) return sameRunIds ? 'same-run' : 'not-comparable';
  if (configs.every((v) => v === 'same-run')) return 'same-run';
  const has = (v: Verdict) => configs.includes(v);
  if (has('mixed') || (has('better') && has('worse'))) return 'mixed';
  if (has('better')) return 'better';
  if (has('worse')) return 'worse';
  return has('no-difference') ? 'no-difference' : 'not-comparable';
}

/** Same non-empty set of run ids. */
export function sameIds(a: Iterable<string>, b: Iterable<string>): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size > 0 && x.size === y.size && [...x].every((id) => y.has(id));
}

/**
 * Whether two sides of one config are the same run: the same run ids, and every point present on both
 * (same run id and point id) with the same validity and metrics. `conflict`: same ids, other results (two
 * copies of a run id that were measured apart).
 */
export function sameRunOf(
  run: readonly CurvePoint[],
  base: readonly CurvePoint[],
): 'same' | 'different' | 'conflict' {
  if (
    !sameIds(
      run.map((p) => p.runId),
      base.map((p) => p.runId),
    )
  )
    return 'different';
  const b = new Map(base.map((p) => [key(p), p]));
  for (const p of run) {
    const q = b.get(key(p));
    if (q === undefined) continue;
    if (p.valid !== q.valid || JSON.stringify(p.metrics) !== JSON.stringify(q.metrics)) return 'conflict';
  }
  return 'same';
}
