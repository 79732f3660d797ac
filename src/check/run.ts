import { accelerator, CatalogError, model } from '../catalog/index.ts';
import { defaultCacheDir, openParseCache } from '../config/cache.ts';
import { ConfigError } from '../config/diagnostics.ts';
import type { ConfigEntry, MasterConfigs } from '../config/load.ts';
import { loadInputs } from '../matrix/build.ts';
import { MatrixError } from '../matrix/errors.ts';
import { testConfig } from '../matrix/generate.ts';
import { expandConfigKeys } from '../matrix/keys.ts';
import { MAX_MATRIX_ROWS, TooManyRowsError } from '../matrix/limits.ts';
import { type AcceleratorSpec, type ModelSpec, PRECISIONS, type Precision } from '../schema/catalog.ts';
import type { CheckFinding, CheckReport } from '../schema/check-finding.ts';
import { isMultiNode, type MatrixRow } from '../schema/matrix-row.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import { classifyImage } from './image.ts';
import {
  type EngineSettings,
  holdsRunningSet,
  type PoolPlan,
  planPool,
  poolFindings,
  starts,
} from './memory.ts';
import { type CheckPoint, type Pool, rowPoints } from './points.ts';
import { AGENTIC_FANOUT, DEFAULT_GPU_MEMORY_UTILIZATION } from './rules.ts';
import { recipeFinding, topologyFindings } from './topology.ts';

/** `infx check`: configs → points → findings, as one report. */

export interface CheckRequest {
  configFiles: readonly string[];
  runnerConfig: string;
  /** Config keys or globs (as `infx matrix test-config`); all keys when absent. */
  configKeys?: readonly string[] | undefined;
  gpuMemoryUtilization?: number | undefined;
  kvCacheDtype?: EngineSettings['kvCacheDtype'] | undefined;
  reserveGiB?: number | undefined;
  /** Engram tables in host memory (infx check --engram-offload). */
  engramOffload?: boolean | undefined;
  /** Reuse parsed configs from earlier runs (default true). */
  cache?: boolean | undefined;
}

/** Largest tp a fix suggestion proposes (a multi-node NVL72 engine). */
const MAX_SUGGESTED_TP = 72;

type KeylessFinding = Omit<CheckFinding, 'configKey' | 'file'>;

const configFinding = (
  severity: CheckFinding['severity'],
  rule: string,
  message: string,
  fix: string | null,
): KeylessFinding => ({
  severity,
  rule,
  point: null,
  topology: null,
  conc: null,
  worker: null,
  hardware: null,
  message,
  fix,
  numbers: {},
});

/** Images a config's rows run: the row's, and any *_IMAGE=… of multi-node worker settings. */
function imagesOf(rows: readonly MatrixRow[], fallback: string): string[] {
  const out = new Set<string>([fallback]);
  for (const row of rows) {
    out.add(row.image);
    if (isMultiNode(row)) {
      for (const s of [
        ...(row.prefill['additional-settings'] ?? []),
        ...(row.decode['additional-settings'] ?? []),
      ]) {
        const m = /^[A-Z0-9_]*IMAGE=(.+)$/.exec(s.trim());
        if (m) out.add(m[1]!.trim());
      }
    }
  }
  return [...out];
}

function imageFindings(images: readonly string[]): KeylessFinding[] {
  const out: KeylessFinding[] = [];
  for (const image of images) {
    const v = classifyImage(image);
    if (v.kind === 'pinned') continue;
    const severity = v.kind === 'unpinned' ? 'error' : 'warning';
    out.push(
      configFinding(
        severity,
        v.rule,
        `image ${image} is ${v.kind === 'unpinned' ? 'not pinned' : 'only loosely pinned'}: ${v.why}`,
        'pin a release tag (v0.11.0), a per-commit build tag, or append the @sha256: digest the registry reports for it',
      ),
    );
  }
  return out;
}

class Catalog {
  private readonly models = new Map<string, ModelSpec | CatalogError>();
  private readonly accs = new Map<string, AcceleratorSpec | CatalogError>();

  model(id: string, prefix: string): ModelSpec | CatalogError {
    const key = `${id}\u0000${prefix}`;
    let hit = this.models.get(key);
    if (hit === undefined) {
      hit = lookup(() => model(id));
      if (hit instanceof CatalogError) {
        const byPrefix = lookup(() => model(prefix));
        if (!(byPrefix instanceof CatalogError)) hit = byPrefix;
      }
      this.models.set(key, hit);
    }
    return hit;
  }

  accelerator(name: string): AcceleratorSpec | CatalogError {
    let hit = this.accs.get(name);
    if (hit === undefined) {
      hit = lookup(() => accelerator(name));
      this.accs.set(name, hit);
    }
    return hit;
  }
}

function lookup<T>(f: () => T): T | CatalogError {
  try {
    return f();
  } catch (err) {
    if (err instanceof CatalogError) return err;
    throw err;
  }
}

const isPrecision = (p: string): p is Precision => (PRECISIONS as readonly string[]).includes(p);

/** The smallest larger tp (doubling; ep follows tp when it equalled it) whose plan starts, or also runs the set. */
function biggerTp(plan: (pool: Pool) => PoolPlan, pool: Pool): (want: 'start' | 'run') => PoolPlan | null {
  return (want) => {
    for (let tp = pool.tp * 2; tp <= MAX_SUGGESTED_TP; tp *= 2) {
      const q = plan({ ...pool, tp, ep: pool.ep === pool.tp ? tp : pool.ep });
      if (starts(q) && (want === 'start' || holdsRunningSet(q))) return q;
    }
    return null;
  };
}

function maxNumSeqsFindings(point: CheckPoint, pool: Pool): KeylessFinding[] {
  if (point.scenario !== 'agentic-coding' || pool.sequences === null) return [];
  const lanes = Math.ceil(point.conc / pool.engines);
  const needed = Math.ceil((AGENTIC_FANOUT * point.conc) / pool.engines);
  const base = {
    point: point.label,
    topology: point.topology,
    conc: point.conc,
    worker: pool.role,
    hardware: null,
    numbers: { requiredMaxNumSeqs: needed } as Record<string, number>,
  };
  const perEngine = pool.engines > 1 ? ' per engine' : '';
  if (pool.maxNumSeqs === null) {
    return [
      {
        ...base,
        severity: 'note',
        rule: 'agentic.max-num-seqs',
        message: `the engine needs max-num-seqs ≥ ${needed}${perEngine} (${AGENTIC_FANOUT} × conc ${point.conc}, subagent fan-out); no row setting states it`,
        fix: `check that the recipe sets max-num-seqs / max-running-requests to at least ${AGENTIC_FANOUT} × CONC`,
      },
    ];
  }
  base.numbers.statedMaxNumSeqs = pool.maxNumSeqs;
  if (pool.maxNumSeqs >= needed) return [];
  const severe = pool.maxNumSeqs < lanes;
  return [
    {
      ...base,
      severity: severe ? 'error' : 'warning',
      rule: 'agentic.max-num-seqs',
      message: severe
        ? `max-num-seqs ${pool.maxNumSeqs}${perEngine} is below the ${lanes} lanes of conc ${point.conc}: the point cannot reach its concurrency`
        : `max-num-seqs ${pool.maxNumSeqs}${perEngine} leaves no headroom for subagent fan-out: ${AGENTIC_FANOUT} × conc ${point.conc} needs ${needed}`,
      fix: `set max-num-seqs to at least ${needed}${perEngine}`,
    },
  ];
}

const tooManyPoints = (ce: ConfigEntry) => new TooManyRowsError(ce.key, ce.file, 'points');

function checkEntry(
  ce: ConfigEntry,
  runners: RunnerConfig,
  settings: EngineSettings,
  catalog: Catalog,
): { findings: KeylessFinding[]; points: number } {
  let rows: MatrixRow[];
  try {
    const configs: MasterConfigs = { entries: [ce], byKey: new Map([[ce.key, ce]]) };
    rows = testConfig(configs, runners, { configKeys: [ce.key] });
  } catch (err) {
    if (err instanceof TooManyRowsError) throw tooManyPoints(ce);
    if (!(err instanceof MatrixError)) throw err;
    return { findings: [configFinding('error', 'matrix.expand', err.message, null)], points: 0 };
  }
  const findings = imageFindings(imagesOf(rows, ce.entry.image));
  const points: CheckPoint[] = [];
  for (const r of rows) {
    for (const p of rowPoints(r, AGENTIC_FANOUT)) {
      if (points.length >= MAX_MATRIX_ROWS) throw tooManyPoints(ce);
      points.push(p);
    }
  }
  const c = ce.entry;
  const recipe = recipeFinding(c.framework);
  if (recipe) findings.push(recipe);
  const m = catalog.model(c.model, c['model-prefix']);
  if (m instanceof CatalogError)
    findings.push(configFinding('error', 'catalog.unknown-model', m.message, null));
  if (!isPrecision(c.precision)) {
    findings.push(
      configFinding(
        'error',
        'catalog.unknown-precision',
        `precision '${c.precision}' has no memory model: known: ${PRECISIONS.join(', ')}`,
        'use one of the known precisions, or add it to src/schema/catalog.ts and src/catalog/memory.ts',
      ),
    );
  }
  const fp8Settings: EngineSettings = { ...settings, kvCacheDtype: 'fp8' };
  const reportedHardware = new Set<string>();
  const notes = new Map<string, KeylessFinding>();
  for (const point of points) {
    for (const pool of point.pools) {
      for (const f of maxNumSeqsFindings(point, pool)) {
        // One note per config (and worker pool): the one at the highest concurrency says the most.
        const seen = notes.get(`${f.worker}`);
        if (f.severity !== 'note') findings.push(f);
        else if (!seen || (seen.conc ?? 0) < (f.conc ?? 0)) notes.set(`${f.worker}`, f);
      }
      const acc = catalog.accelerator(pool.hardware);
      if (acc instanceof CatalogError) {
        if (!reportedHardware.has(pool.hardware)) {
          reportedHardware.add(pool.hardware);
          findings.push(configFinding('error', 'catalog.unknown-hardware', acc.message, null));
        }
        continue;
      }
      if (m instanceof CatalogError) continue;
      // Every finding of this pool is placed at its point, worker and hardware.
      const at = {
        point: point.label,
        topology: point.topology,
        conc: point.conc,
        worker: pool.role,
        hardware: acc.id,
      };
      for (const f of topologyFindings(point, pool, m, acc, runners)) findings.push({ ...f, ...at });
      if (!isPrecision(c.precision)) continue;
      const precision = c.precision;
      const plan = (p: Pool) => planPool(point, p, m, acc, precision, settings);
      const p = plan(pool);
      // What the recipe could still do without changing topology: an fp8 KV cache (only when not pinned).
      const fp8 =
        settings.kvCacheDtype === 'auto' ? planPool(point, pool, m, acc, precision, fp8Settings) : p;
      for (const f of poolFindings(point, p, fp8, biggerTp(plan, pool))) findings.push({ ...f, ...at });
    }
  }
  findings.push(...notes.values());
  return { findings, points: points.length };
}

export async function checkConfigs(req: CheckRequest): Promise<CheckReport> {
  const util = req.gpuMemoryUtilization ?? DEFAULT_GPU_MEMORY_UTILIZATION;
  if (!(util > 0 && util <= 1)) {
    throw new MatrixError(`--gpu-memory-utilization must be in (0, 1], got ${util}`, { usage: true });
  }
  if (req.reserveGiB !== undefined && !(req.reserveGiB >= 0)) {
    throw new MatrixError(`--reserve-gib must be >= 0, got ${req.reserveGiB}`, { usage: true });
  }
  const settings: EngineSettings = {
    gpuMemoryUtilization: util,
    kvCacheDtype: req.kvCacheDtype ?? 'auto',
    reserveGiB: req.reserveGiB,
    engramOffload: req.engramOffload,
  };
  const cache = req.cache === false ? undefined : openParseCache(defaultCacheDir());
  const { configs, runners } = await loadInputs(req.configFiles, req.runnerConfig, { cache });
  try {
    return checkLoaded(req, configs, runners, settings, util);
  } catch (err) {
    if (!(err instanceof TooManyRowsError)) throw err;
    throw new ConfigError(`config '${err.key}' in ${err.file}: too many points to check`, [
      await err.diagnostic(),
    ]);
  }
}

function checkLoaded(
  req: CheckRequest,
  configs: MasterConfigs,
  runners: RunnerConfig,
  settings: EngineSettings,
  util: number,
): CheckReport {
  const keys = req.configKeys
    ? expandConfigKeys(
        req.configKeys,
        configs.entries.map((e) => e.key),
      )
    : configs.entries.map((e) => e.key);
  const catalog = new Catalog();
  const findings: CheckFinding[] = [];
  const checked: CheckReport['configs'] = [];
  let points = 0;
  for (const key of keys) {
    const ce = configs.byKey.get(key)!;
    const r = checkEntry(ce, runners, settings, catalog);
    points += r.points;
    // Each key is bounded by the matrix row limit; all of them together are too.
    if (points > MAX_MATRIX_ROWS) throw tooManyPoints(ce);
    checked.push({ configKey: key, file: ce.file, points: r.points });
    for (const { severity, rule, ...rest } of r.findings) {
      findings.push({ severity, rule, configKey: key, file: ce.file, ...rest });
    }
  }
  const count = (s: CheckFinding['severity']) => findings.filter((f) => f.severity === s).length;
  const errors = findings.filter((f) => f.severity === 'error');
  return {
    schemaVersion: 1,
    ok: errors.length === 0,
    gpuMemoryUtilization: util,
    summary: {
      configs: keys.length,
      points: checked.reduce((n, c) => n + c.points, 0),
      errors: errors.length,
      warnings: count('warning'),
      notes: count('note'),
      configsWithErrors: new Set(errors.map((f) => f.configKey)).size,
      pointsWithErrors: new Set(
        errors.filter((f) => f.point !== null).map((f) => `${f.configKey}\u0000${f.point}`),
      ).size,
    },
    configs: checked,
    findings,
  };
}
