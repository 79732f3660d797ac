import type { AgenticConfig, AgenticCurvePoint } from '../schema/agentic-curve.ts';
import type { CompareSide, CurveSummary } from '../schema/compare-report.ts';
import type { ConfigIdentity, CurveEngine, CurvePoint, EngineKind } from '../schema/curve.ts';
import {
  FRONTIER_COMPARE_SCHEMA_VERSION,
  type Frontier,
  type FrontierAxis,
  type FrontierCompareReport,
  type FrontierComparison,
  type FrontierGroup,
  type FrontierPoint,
} from '../schema/frontier-compare.ts';
import { plural } from '../schema/plural.ts';
import { type ChartStat, finite } from './axes.ts';
import { sideEngine } from './compare.ts';
import { axisWords } from './compare-frontier-format.ts';
import { sameIds } from './compare-noise.ts';
import { interpolateAt, type Knot } from './interpolate.ts';
import { agenticLabel, curveLabel, workloadLabel } from './labels.ts';
import { upperLeftFront } from './pareto.ts';

/**
 * `infx compare --against frontier`: each config of a run against the Pareto frontier (throughput per GPU
 * against interactivity, valid points only) of every baseline config of its group: the same model,
 * precision, hardware and workload, served by the same kind of engine (a simulated curve is only ever
 * compared with a simulated one). At the interactivity of each of the config's valid points the frontier's
 * throughput is read with the Steffen monotone spline (interpolate.ts, as the chart draws the front),
 * never extrapolated: outside the frontier's interactivity range there is no frontier value and no gain.
 */

/** A side of the comparison: its fixed-seq-len curve points, and its agentic points (none when absent). */
export interface FrontierInput extends Omit<CompareSide, 'engine'> {
  points: readonly CurvePoint[];
  agentic?: readonly AgenticCurvePoint[];
}

export interface FrontierOptions {
  stat?: ChartStat;
}

/**
 * What a frontier needs of one measured point, fixed-seq-len or agentic: its curve, whether it passed the
 * validity gate, and its coordinates (x: the matched interactivity, y: throughput per GPU).
 */
export interface FrontierItem {
  runId: string;
  configKey: string;
  config: ConfigIdentity | AgenticConfig;
  engine: CurveEngine;
  /** Concurrency; an agentic point's users. */
  conc: number;
  valid: boolean;
  x: number | null;
  tput: number | null;
}

const isAgentic = (c: ConfigIdentity | AgenticConfig): c is AgenticConfig => 'benchmarkType' in c;

/** The axis points of a workload are matched at. */
export const frontierAxis = (agentic: boolean, stat: ChartStat): FrontierAxis =>
  agentic ? { metric: 'generation-interactivity', stat: 'p90' } : { metric: 'interactivity', stat };

export const fromCurvePoint = (p: CurvePoint, stat: ChartStat): FrontierItem => ({
  runId: p.runId,
  configKey: p.configKey,
  config: p.config,
  engine: p.engine,
  conc: p.conc,
  valid: p.valid,
  x: p.metrics.interactivity[stat],
  tput: p.metrics.tputPerGpu,
});

/** An agentic point at its generation interactivity p90 (the reference's AgentX axis of that name). */
export const fromAgenticPoint = (p: AgenticCurvePoint): FrontierItem => ({
  runId: p.runId,
  configKey: p.configKey,
  config: p.config,
  engine: p.engine,
  conc: p.users,
  valid: p.valid,
  x: p.metrics.intvtyP90,
  tput: p.metrics.tputPerGpu,
});

/** A side's points as frontier items, fixed-seq-len and agentic. */
export const itemsOf = (side: Pick<FrontierInput, 'points' | 'agentic'>, stat: ChartStat): FrontierItem[] => [
  ...side.points.map((p) => fromCurvePoint(p, stat)),
  ...(side.agentic ?? []).map(fromAgenticPoint),
];

/** The group a point's curve belongs to: what must be equal for two configs to share a frontier. */
export function frontierGroup(p: Pick<FrontierItem, 'config' | 'engine'>): FrontierGroup {
  const c = p.config;
  const agentic = isAgentic(c);
  return {
    model: c.model,
    precision: c.precision,
    hardware: c.hardware,
    workload: agentic ? 'agentic_traces' : 'fixed_seq_len',
    isl: agentic ? null : c.isl,
    osl: agentic ? null : c.osl,
    engine: p.engine.kind,
  };
}

const deploymentGroupKey = (g: FrontierGroup) =>
  [g.model, g.precision, g.hardware, g.workload, g.isl, g.osl].join('|');
const groupKey = (g: FrontierGroup) => `${deploymentGroupKey(g)}|${g.engine}`;

/** `dsr1 1k/1k` or `dsv4 agentic`: a config's workload in words. */
const workloadOf = (c: ConfigIdentity | AgenticConfig) =>
  isAgentic(c) ? `${c.model} agentic` : workloadLabel(c);

/** `dsr1 1k/1k h200 fp8`: a config's group in words, without the engine. */
export const groupLabel = (c: ConfigIdentity | AgenticConfig): string =>
  `${workloadOf(c)} ${c.hardware} ${c.precision}`;

/** A config's label: an agentic one as the run page names it (`dsv4 agentic mi300x vllm fp4 tp8 kvnone`). */
export const frontierLabel = (c: ConfigIdentity | AgenticConfig, kind: EngineKind): string =>
  isAgentic(c) ? agenticLabel(c, c.kvOffload, kind) : curveLabel(c, kind);

/**
 * The baseline points of the groups of the run's points, whatever served them (those of another engine kind
 * are never on a frontier of the run's, but say why there is none): what the frontiers are built from.
 */
export function frontierPoolOf<T extends Pick<FrontierItem, 'config' | 'engine'>>(
  run: readonly Pick<FrontierItem, 'config' | 'engine'>[],
  baseline: readonly T[],
): T[] {
  const wanted = new Set(run.map((p) => deploymentGroupKey(frontierGroup(p))));
  return baseline.filter((p) => wanted.has(deploymentGroupKey(frontierGroup(p))));
}

/** A baseline narrowed to the groups of the run's points (`official`: not every official config), its run ids with it. */
export function frontierBaseline<T extends FrontierInput>(
  run: Pick<FrontierInput, 'points' | 'agentic'>,
  baseline: T,
): T {
  const mine = [...run.points, ...(run.agentic ?? [])];
  const points = frontierPoolOf(mine, baseline.points);
  const agentic = frontierPoolOf(mine, baseline.agentic ?? []);
  const runIds = [...new Set([...points, ...agentic].map((p) => p.runId))];
  return { ...baseline, points, ...(baseline.agentic ? { agentic } : {}), runIds };
}

function byConfig(points: readonly FrontierItem[]): Map<string, FrontierItem[]> {
  const out = new Map<string, FrontierItem[]>();
  for (const p of points) {
    const list = out.get(p.configKey);
    if (list === undefined) out.set(p.configKey, [p]);
    else list.push(p);
  }
  return out;
}

const fmt = (v: number) => Number(v.toPrecision(4)).toString();
const label = (p: FrontierItem) => frontierLabel(p.config, p.engine.kind);
/** The calculator's front of throughput against interactivity, over valid points. */
const frontOf = (points: readonly FrontierItem[]) =>
  upperLeftFront(
    points.filter((p) => p.valid),
    (p) => ({ x: p.x, y: p.tput }),
  );

/** The frontier of a group's baseline points, and its knots for interpolation. */
export function buildFrontier(points: readonly FrontierItem[]): {
  frontier: Frontier;
  knots: Knot<'tput'>[];
} {
  const front = frontOf(points);
  const knots = front.map((fp) => ({ x: fp.x, values: { tput: fp.y } }));
  const onFront = new Map<string, number>();
  for (const fp of front) {
    const key = fp.items[0]!.configKey;
    onFront.set(key, (onFront.get(key) ?? 0) + 1);
  }
  const configs = [...byConfig(points).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, pts]) => ({
      configKey: key,
      label: label(pts[0]!),
      points: pts.length,
      validPoints: pts.filter((p) => p.valid).length,
      frontPoints: onFront.get(key) ?? 0,
    }));
  // The highest knot: the front of throughput against interactivity holds the largest throughput.
  const top = front.reduce<(typeof front)[number] | null>(
    (a, fp) => (a === null || fp.y > a.y ? fp : a),
    null,
  );
  return {
    knots,
    frontier: {
      configs,
      knots: front.map((fp) => {
        const p = fp.items[0]!;
        return {
          interactivity: fp.x,
          tputPerGpu: fp.y,
          configKey: p.configKey,
          label: label(p),
          conc: p.conc,
          runId: p.runId,
        };
      }),
      interactivity: front.length === 0 ? null : [front[0]!.x, front.at(-1)!.x],
      maxTputPerGpu: top?.y ?? null,
      maxConfigKey: top?.items[0]?.configKey ?? null,
    },
  };
}

function summary(points: readonly FrontierItem[]): CurveSummary {
  const front = frontOf(points);
  const tputs = points
    .filter((p) => p.valid)
    .map((p) => p.tput)
    .filter(finite);
  return {
    points: points.length,
    validPoints: points.filter((p) => p.valid).length,
    frontPoints: front.length,
    interactivity: front.length === 0 ? null : [front[0]!.x, front.at(-1)!.x],
    maxTputPerGpu: tputs.length === 0 ? null : Math.max(...tputs),
  };
}

/** One row per valid point of the config: its measured throughput against the frontier's there. */
function pointRows(points: readonly FrontierItem[], knots: Knot<'tput'>[]): FrontierPoint[] {
  const rows: FrontierPoint[] = [];
  for (const p of points) {
    const x = p.x;
    const t = p.tput;
    if (!p.valid || !finite(x) || !finite(t)) continue;
    const i = knots.length === 0 ? null : interpolateAt(knots, ['tput'], x);
    const inside = i !== null && !i.clamped;
    const f = inside ? i.values.tput : null;
    rows.push({
      conc: p.conc,
      runId: p.runId,
      interactivity: x,
      tputPerGpu: t,
      status: inside ? 'ok' : 'outside-frontier',
      side: i === null || inside ? null : i.clampedBelow ? 'below' : 'above',
      frontierTputPerGpu: f,
      atKnot: inside && knots.some((k) => k.x === x),
      gainPct: f !== null && f > 0 ? (100 * (t - f)) / f : null,
    });
  }
  return rows.sort((a, b) => a.interactivity - b.interactivity || a.conc - b.conc);
}

const simulatorsOf = (pts: readonly FrontierItem[]) => [
  ...new Set(pts.flatMap((p) => (p.engine.simulator === null ? [] : [p.engine.simulator]))),
];

/** One config of the run against its group's frontier (`pool`: the baseline points of that group). */
export function compareConfigToFrontier(
  runPoints: readonly FrontierItem[],
  pool: readonly FrontierItem[],
  opts: FrontierOptions & { otherEngine?: readonly FrontierItem[] } = {},
): FrontierComparison {
  const first = runPoints[0];
  if (first === undefined) throw new RangeError('compareConfigToFrontier needs points of the run');
  const group = frontierGroup(first);
  const axis = frontierAxis(group.workload === 'agentic_traces', opts.stat ?? 'median');
  const built = pool.length === 0 ? null : buildFrontier(pool);
  const run = summary(runPoints);
  const points = pointRows(runPoints, built?.knots ?? []);
  const ok = points.map((r) => r.gainPct).filter(finite);
  const rMax = run.maxTputPerGpu;
  const fMax = built?.frontier.maxTputPerGpu ?? null;
  const notes: string[] = [];
  const invalid = run.points - run.validPoints;
  if (invalid > 0)
    notes.push(`${plural(invalid, 'invalid point')} of the run left out (failed the validity gate)`);
  if (built === null) {
    const other = opts.otherEngine ?? [];
    notes.push(
      other.length > 0
        ? `the baseline has configs of ${groupLabel(first.config)} only from ${other[0]!.engine.kind} engines and this ` +
            `config is ${group.engine}: a simulated curve is only ever compared with a simulated one, so there ` +
            'is no frontier to compare with'
        : `the baseline has no config of ${groupLabel(first.config)}${group.engine === 'simulated' ? ' (simulated)' : ''}: ` +
            'no frontier to compare with',
    );
  } else if (built.knots.length === 0)
    notes.push(
      `the baseline's ${plural(built.frontier.configs.length, 'config')} of ${groupLabel(first.config)} have no valid ` +
        `point with throughput and ${axisWords(axis)}: no frontier to compare with`,
    );
  const range = built?.frontier.interactivity ?? null;
  const outside = points.filter((r) => r.status === 'outside-frontier').map((r) => fmt(r.interactivity));
  if (range !== null && outside.length > 0)
    notes.push(
      `outside the frontier (${fmt(range[0])}–${fmt(range[1])} tok/s/user), not compared (never ` +
        `extrapolated): ${outside.join(', ')} tok/s/user`,
    );
  const simulators = { run: simulatorsOf(runPoints), baseline: simulatorsOf(pool) };
  if (group.engine === 'simulated' && built !== null)
    notes.push(
      `simulated on both sides (${simulators.run.join(', ') || 'not recorded'} in the run, ` +
        `${simulators.baseline.join(', ') || 'not recorded'} in the baseline): the gains are the performance ` +
        "model's, not measured on real hardware",
    );
  return {
    configKey: first.configKey,
    config: first.config,
    label: label(first),
    axis,
    engine: { kind: group.engine, simulators },
    group,
    run,
    frontier: built?.frontier ?? null,
    points,
    gainPct: { min: ok.length ? Math.min(...ok) : null, max: ok.length ? Math.max(...ok) : null },
    maxTputChangePct: rMax !== null && fMax !== null && fMax > 0 ? (100 * (rMax - fMax)) / fMax : null,
    notes,
  };
}

/** Every config of the run against its group's frontier in the baseline. */
export function compareToFrontier(
  run: FrontierInput,
  baseline: FrontierInput,
  opts: FrontierOptions = {},
): FrontierCompareReport {
  const stat = opts.stat ?? 'median';
  const pools = new Map<string, FrontierItem[]>();
  const byDeployment = new Map<string, FrontierItem[]>();
  const runItems = itemsOf(run, stat);
  const baselineItems = itemsOf(baseline, stat);
  for (const p of baselineItems) {
    const g = frontierGroup(p);
    for (const [map, key] of [
      [pools, groupKey(g)],
      [byDeployment, deploymentGroupKey(g)],
    ] as const) {
      const list = map.get(key);
      if (list === undefined) map.set(key, [p]);
      else list.push(p);
    }
  }
  const configs = [...byConfig(runItems).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, pts]) => {
      const g = frontierGroup(pts[0]!);
      const pool = pools.get(groupKey(g)) ?? [];
      const otherEngine = (byDeployment.get(deploymentGroupKey(g)) ?? []).filter(
        (p) => p.engine.kind !== g.engine,
      );
      return compareConfigToFrontier(pts, pool, { stat, otherEngine });
    });
  const notes: string[] = [];
  if (sameIds(run.runIds, baseline.runIds))
    notes.push(
      'the run and the baseline are the same run: each config is compared with a frontier it is on or under',
    );
  return {
    schemaVersion: FRONTIER_COMPARE_SCHEMA_VERSION,
    kind: 'frontier-compare-report',
    run: { label: run.label, runIds: run.runIds, engine: sideEngine(runItems) },
    baseline: { label: baseline.label, runIds: baseline.runIds, engine: sideEngine(baselineItems) },
    against: 'frontier',
    interactivityStat: stat,
    configs,
    notes,
  };
}
