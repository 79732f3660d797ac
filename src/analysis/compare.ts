import {
  COMPARE_REPORT_SCHEMA_VERSION,
  type CompareReport,
  type CompareSide,
  type ConfigComparison,
  type CurveSummary,
  type MatchedPoint,
  type MatchedValues,
} from '../schema/compare-report.ts';
import type { CurvePoint, EngineKind } from '../schema/curve.ts';
import { plural } from '../schema/plural.ts';
import type { RunEngine } from '../schema/store.ts';
import { deploymentKey } from '../store/identity.ts';
import { type ChartStat, finite } from './axes.ts';
import {
  configNoise,
  configVerdict,
  DEFAULT_NOISE_PCT,
  overallVerdict,
  pointVerdict,
  sameIds,
  sameRunOf,
} from './compare-noise.ts';
import { costPerMillionTokens, type GpuPrice, gpuHourPrice } from './cost.ts';
import { equalConcurrency } from './equal-conc.ts';
import { type Interpolated, interpolateAt, type Knot } from './interpolate.ts';
import { curveLabel } from './labels.ts';
import { throughputFront } from './pareto.ts';

/**
 * A run's curves against a baseline's, config by config (same config key). The headline numbers are at
 * matched interactivity: each side's throughput/GPU front (invalid points excluded) is interpolated with
 * the Steffen monotone spline at the same interactivity. A target outside either front is never
 * extrapolated: it is reported as outside and left out of the gains. Each gain is judged against the
 * config's run-to-run spread (compare-noise.ts): inside it, it is reported but is no difference.
 */

export interface CompareInput extends Omit<CompareSide, 'engine'> {
  points: readonly CurvePoint[];
}

export interface CompareOptions {
  /** Interactivities to compare at; default: `samples` evenly spaced over each config's overlap. */
  at?: readonly number[] | null;
  stat?: ChartStat;
  samples?: number;
  /** $/GPU-hour for every config; default: the catalog's price of the config's GPU. */
  pricePerGpuHour?: number | null;
  /** `--noise`: the threshold, %, for every config; default: measured where repeats exist, else assumed. */
  noisePct?: number | null;
  /**
   * More results of the configs compared, for measuring the spread only (e.g. every stored run's); those
   * of the run's own run ids are dropped. `undefined`: none searched.
   */
  repeats?: readonly CurvePoint[] | undefined;
}

type Key = 'tput' | 'output';
const KEYS: readonly Key[] = ['tput', 'output'];

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

interface Side {
  points: readonly CurvePoint[];
  knots: Knot<Key>[];
  summary: CurveSummary;
}

function side(points: readonly CurvePoint[], stat: ChartStat): Side {
  const front = throughputFront(points, 'interactivity', stat);
  const knots = front.map((fp) => ({
    x: fp.x,
    values: { tput: fp.y, output: mean(fp.items.map((p) => p.metrics.outputTputPerGpu).filter(finite)) },
  }));
  const tputs = points.filter((p) => p.valid).map((p) => p.metrics.tputPerGpu);
  const finiteTputs = tputs.filter(finite);
  return {
    points,
    knots,
    summary: {
      points: points.length,
      validPoints: tputs.length,
      frontPoints: knots.length,
      interactivity: knots.length === 0 ? null : [knots[0]!.x, knots.at(-1)!.x],
      maxTputPerGpu: finiteTputs.length === 0 ? null : Math.max(...finiteTputs),
    },
  };
}

const NO_VALUES: MatchedValues = {
  tputPerGpu: null,
  outputTputPerGpu: null,
  costPerMTokens: null,
  costPerMOutputTokens: null,
};

function values(i: Interpolated<Key> | null, price: GpuPrice): MatchedValues {
  if (i === null || i.clamped) return NO_VALUES;
  return {
    tputPerGpu: i.values.tput,
    outputTputPerGpu: i.values.output,
    costPerMTokens: costPerMillionTokens(price.perGpuHour, i.values.tput),
    costPerMOutputTokens: costPerMillionTokens(price.perGpuHour, i.values.output),
  };
}

function matchAt(run: Side, base: Side, target: number, price: GpuPrice): MatchedPoint {
  const r = run.knots.length === 0 ? null : interpolateAt(run.knots, KEYS, target);
  const b = base.knots.length === 0 ? null : interpolateAt(base.knots, KEYS, target);
  const rOut = r === null || r.clamped;
  const bOut = b === null || b.clamped;
  const status = rOut && bOut ? 'outside-both' : rOut ? 'outside-run' : bOut ? 'outside-baseline' : 'ok';
  const rv = values(r, price);
  const bv = values(b, price);
  const gainPct =
    status === 'ok' && rv.tputPerGpu !== null && bv.tputPerGpu !== null && bv.tputPerGpu > 0
      ? (100 * (rv.tputPerGpu - bv.tputPerGpu)) / bv.tputPerGpu
      : null;
  return { interactivity: target, status, run: rv, baseline: bv, gainPct, verdict: 'not-compared' };
}

/** `n` evenly spaced values over [lo, hi] (one when the range is a point). */
export function evenlySpaced(lo: number, hi: number, n: number): number[] {
  if (hi <= lo || n <= 1) return [lo];
  return Array.from({ length: n }, (_, k) => lo + ((hi - lo) * k) / (n - 1));
}

/** Whether the run's front covers the baseline's range and is nowhere below it there. */
function dominance(run: Side, base: Side): { covers: boolean; dominates: boolean } {
  const rr = run.summary.interactivity;
  const br = base.summary.interactivity;
  if (rr === null || br === null) return { covers: false, dominates: false };
  const covers = rr[0] <= br[0] && rr[1] >= br[1];
  if (!covers) return { covers, dominates: false };
  // The knots of both fronts inside the baseline's range, plus a dense grid between them.
  const xs = [
    ...base.knots.map((k) => k.x),
    ...run.knots.map((k) => k.x).filter((x) => x >= br[0] && x <= br[1]),
    ...evenlySpaced(br[0], br[1], 65),
  ];
  const dominates = xs.every((x) => {
    const r = interpolateAt(run.knots, KEYS, x).values.tput;
    const b = interpolateAt(base.knots, KEYS, x).values.tput;
    return r !== null && b !== null && r >= b - 1e-9 * Math.abs(b);
  });
  return { covers, dominates };
}

const fmt = (v: number) => Number(v.toPrecision(4)).toString();

export function compareConfig(
  runPoints: readonly CurvePoint[],
  basePoints: readonly CurvePoint[],
  opts: CompareOptions = {},
): ConfigComparison {
  const first = runPoints[0] ?? basePoints[0];
  if (first === undefined) throw new RangeError('compareConfig needs points on at least one side');
  const stat = opts.stat ?? 'median';
  const run = side(runPoints, stat);
  const base = side(basePoints, stat);
  const price = gpuHourPrice(first.config.hardware, opts.pricePerGpuHour);
  const rr = run.summary.interactivity;
  const br = base.summary.interactivity;
  const overlap: [number, number] | null =
    rr !== null && br !== null && Math.max(rr[0], br[0]) <= Math.min(rr[1], br[1])
      ? [Math.max(rr[0], br[0]), Math.min(rr[1], br[1])]
      : null;
  const targets =
    opts.at ?? (overlap === null ? [] : evenlySpaced(overlap[0], overlap[1], opts.samples ?? 5));
  const same = sameRunOf(runPoints, basePoints);
  const noise = configNoise(
    [...basePoints, ...(opts.repeats ?? []).filter((p) => p.configKey === first.configKey)],
    new Set(runPoints.map((p) => p.runId)),
    opts.noisePct ?? null,
  );
  const matched = targets.map((t) => {
    const m = matchAt(run, base, t, price);
    return { ...m, verdict: pointVerdict(m.gainPct, noise.thresholdPct, same === 'same') };
  });
  const gains = matched.map((m) => m.gainPct).filter(finite);
  const rMax = run.summary.maxTputPerGpu;
  const bMax = base.summary.maxTputPerGpu;

  const notes: string[] = [];
  for (const [name, s] of [
    ['run', run],
    ['baseline', base],
  ] as const) {
    const invalid = s.summary.points - s.summary.validPoints;
    if (invalid > 0)
      notes.push(`${plural(invalid, 'invalid point')} of the ${name} left out (failed the validity gate)`);
    if (s.summary.frontPoints === 0)
      notes.push(`the ${name} has no valid point with throughput and ${stat} interactivity`);
  }
  if (rr !== null && br !== null && overlap === null)
    notes.push(
      `the fronts do not overlap in interactivity (run ${fmt(rr[0])}–${fmt(rr[1])}, baseline ` +
        `${fmt(br[0])}–${fmt(br[1])} tok/s/user): nothing to compare at matched interactivity`,
    );
  const outside = matched.filter((m) => m.status !== 'ok').map((m) => fmt(m.interactivity));
  if (outside.length > 0)
    notes.push(`outside a front, not compared (never extrapolated): ${outside.join(', ')} tok/s/user`);
  if (same === 'conflict')
    notes.push(
      `the run and the baseline carry the same run id(s) but different results: compared as two runs`,
    );
  if (price.source === 'unknown')
    notes.push(`no price for hardware '${first.config.hardware}': give --price-per-gpu-hour for costs`);
  const kind = first.engine.kind;
  const simulators = { run: simulatorsOf(runPoints), baseline: simulatorsOf(basePoints) };
  if (kind === 'simulated') {
    const r = simulators.run.join(', ') || 'not recorded';
    const b = simulators.baseline.join(', ') || 'not recorded';
    notes.push(
      r === b
        ? `simulated on both sides (${r}): the gains are the performance model's, not measured on real hardware`
        : `simulated on both sides, by ${r} in the run and ${b} in the baseline: a difference may come from ` +
            'the performance model, not the deployment',
    );
  }

  return {
    configKey: first.configKey,
    config: first.config,
    label: curveLabel(first.config, kind),
    engine: { kind, simulators },
    verdict: configVerdict(
      matched.map((m) => m.verdict),
      same === 'same',
    ),
    noise,
    run: run.summary,
    baseline: base.summary,
    overlap,
    matched,
    gainPct: {
      mean: mean(gains),
      min: gains.length ? Math.min(...gains) : null,
      max: gains.length ? Math.max(...gains) : null,
    },
    maxTputChangePct: rMax !== null && bMax !== null && bMax > 0 ? (100 * (rMax - bMax)) / bMax : null,
    ...dominance(run, base),
    price,
    equalConcurrency: equalConcurrency(runPoints, basePoints),
    notes,
  };
}

function groupByConfig(points: readonly CurvePoint[]): Map<string, CurvePoint[]> {
  const out = new Map<string, CurvePoint[]>();
  for (const p of points) {
    const list = out.get(p.configKey);
    if (list === undefined) out.set(p.configKey, [p]);
    else list.push(p);
  }
  return out;
}

const only = (key: string, pts: readonly CurvePoint[]) => {
  const { config, engine } = pts[0]!;
  return { configKey: key, label: curveLabel(config, engine.kind), engine: engine.kind };
};

/** Simulator versions of some points, in order of first appearance. */
const simulatorsOf = (pts: readonly CurvePoint[]) => [
  ...new Set(pts.flatMap((p) => (p.engine.simulator === null ? [] : [p.engine.simulator]))),
];

/** What served a side's points: simulated, real, mixed; null: none. */
export function sideEngine(points: readonly { engine: { kind: EngineKind } }[]): RunEngine['kind'] {
  const kinds = new Set<EngineKind>(points.map((p) => p.engine.kind));
  return kinds.size === 0 ? null : kinds.size === 2 ? 'mixed' : [...kinds][0]!;
}

const listed = (labels: readonly string[]) =>
  labels.length <= 3 ? labels.join('; ') : `${labels.slice(0, 3).join('; ')} and ${labels.length - 3} more`;

/** The report's notes: a simulated side against a real one, and what was not compared because of it. */
function reportNotes(
  run: readonly CurvePoint[],
  baseline: readonly CurvePoint[],
  r: Map<string, CurvePoint[]>,
  b: Map<string, CurvePoint[]>,
): string[] {
  const notes: string[] = [];
  const runKind = sideEngine(run);
  const baseKind = sideEngine(baseline);
  // Configs simulated on one side and real on the other: never matched (their keys differ), but named.
  const baseByDeployment = new Map([...b.keys()].filter((k) => !r.has(k)).map((k) => [deploymentKey(k), k]));
  const twins = [...r.keys()]
    .filter((k) => !b.has(k))
    .flatMap((k) => {
      const other = baseByDeployment.get(deploymentKey(k));
      return other === undefined ? [] : [r.get(k)![0]!];
    });
  if (twins.length > 0) {
    const simRun = twins.filter((p) => p.engine.kind === 'simulated').length;
    const how =
      simRun === twins.length
        ? 'simulated in the run and real in the baseline'
        : simRun === 0
          ? 'real in the run and simulated in the baseline'
          : 'simulated on one side and real on the other';
    notes.push(
      `${plural(twins.length, 'config is', 'configs are')} ${how}, so they are not compared (a simulated curve is the performance ` +
        "model of infx's simulated engine, not a measurement; it is only ever compared with a simulated one): " +
        `${listed(twins.map((p) => curveLabel(p.config, 'real')))}. \`infx plot\` draws both sides together.`,
    );
  } else if (
    (runKind === 'simulated' && baseKind === 'real') ||
    (runKind === 'real' && baseKind === 'simulated')
  )
    notes.push(
      `the run is ${runKind} and the baseline ${baseKind}: a simulated curve is only ever compared with a ` +
        'simulated one, so no config can match',
    );
  else if (runKind === 'simulated' && baseKind === null)
    notes.push(
      'the run is simulated and the baseline has no results of its configs: simulated results are only ' +
        'compared with simulated ones (the official view holds real engines unless simulated results were ' +
        'stored as official)',
    );
  return notes;
}

/** Compares every config present on both sides; configs on one side only are listed. */
export function compareRuns(
  run: CompareInput,
  baseline: CompareInput,
  opts: CompareOptions = {},
): CompareReport {
  const r = groupByConfig(run.points);
  const b = groupByConfig(baseline.points);
  const keys = [...r.keys()].sort();
  const runIds = new Set(run.runIds);
  const repeats = opts.repeats?.filter((p) => !runIds.has(p.runId));
  const configs = keys
    .filter((k) => b.has(k))
    .map((k) => compareConfig(r.get(k)!, b.get(k)!, { ...opts, repeats }));
  return {
    schemaVersion: COMPARE_REPORT_SCHEMA_VERSION,
    kind: 'compare-report',
    run: { label: run.label, runIds: run.runIds, engine: sideEngine(run.points) },
    baseline: { label: baseline.label, runIds: baseline.runIds, engine: sideEngine(baseline.points) },
    verdict: overallVerdict(
      configs.map((c) => c.verdict),
      sameIds(run.runIds, baseline.runIds),
    ),
    noise: {
      flagPct: opts.noisePct ?? null,
      assumedPct: DEFAULT_NOISE_PCT,
      storedRuns: opts.repeats !== undefined,
    },
    interactivityStat: opts.stat ?? 'median',
    at: opts.at === undefined || opts.at === null ? null : [...opts.at],
    configs,
    onlyInRun: keys.filter((k) => !b.has(k)).map((k) => only(k, r.get(k)!)),
    onlyInBaseline: [...b.keys()]
      .sort()
      .filter((k) => !r.has(k))
      .map((k) => only(k, b.get(k)!)),
    notes: reportNotes(run.points, baseline.points, r, b),
  };
}
