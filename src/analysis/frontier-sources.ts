import type { AgenticCurvePoint } from '../schema/agentic-curve.ts';
import { isAgentic } from '../schema/matrix-row.ts';
import { agenticMetrics } from '../store/hot.ts';
import { agenticConfigKey, agenticIdentity, offloadLabel } from '../store/identity.ts';
import { choosePoint } from '../store/rows.ts';
import type { LoadOptions, RunCurves } from './source-types.ts';
import { isDir, loadCurves, readRunDirAsSource } from './sources.ts';

/**
 * What `infx compare --against frontier` (and the bot's results comment) compares, for one RUN argument: its
 * fixed-seq-len curves (sources.ts) and its agentic-coding points, from a run directory (per planned agentic
 * point, the attempt the store would ingest) or from the results database (a run id, or `official`: the
 * newest official point per config and users).
 */

/** Both workloads of a RUN argument; `skipped` no longer lists the agentic points it loaded. */
export async function loadFrontierSide(
  arg: string,
  opts: LoadOptions = {},
): Promise<RunCurves & { agentic: AgenticCurvePoint[] }> {
  const curves = await loadCurves(arg, opts);
  const agentic = await loadAgenticPoints(arg, opts);
  const seen = new Set(agentic.map((p) => p.pointId));
  return { ...curves, agentic, skipped: curves.skipped.filter((s) => !seen.has(s.pointId)) };
}

/** The agentic points of a run directory, as the store would hold them after ingest. */
export function agenticFromRunDir(dir: string): AgenticCurvePoint[] {
  const contents = readRunDirAsSource(dir);
  const out: AgenticCurvePoint[] = [];
  for (const p of contents.points) {
    const { row, pointId } = p.spec;
    if (!isAgentic(row)) continue;
    const attempt = choosePoint(p).attempt;
    const result = attempt?.result;
    if (attempt == null || result == null) continue;
    const id = agenticIdentity(row);
    const { isl: _isl, osl: _osl, offload: _offload, ...deployment } = id;
    out.push({
      runId: contents.manifest.runId,
      pointId,
      attempt: attempt.attempt,
      configKey: agenticConfigKey(id, result.engine.kind),
      config: { ...deployment, kvOffload: offloadLabel(id) },
      engine: result.engine,
      users: p.spec.conc,
      gpus: p.spec.gpus.total,
      image: row.image,
      createdAt: result.data.createdAt,
      valid: result.valid,
      metrics: agenticMetrics(result.hot),
    });
  }
  return out;
}

/** The agentic points of a run directory, a stored run id, or `official`. */
export async function loadAgenticPoints(arg: string, opts: LoadOptions = {}): Promise<AgenticCurvePoint[]> {
  return isDir(arg) ? agenticFromRunDir(arg) : storedAgenticPoints(arg, opts);
}

/**
 * Both workloads of a stored run id or `official`, from the results database only (the bot's side: a run id
 * is never read as a directory).
 */
export async function loadStoredFrontierSide(
  arg: string,
  opts: LoadOptions = {},
): Promise<RunCurves & { agentic: AgenticCurvePoint[] }> {
  const { loadFromStore } = await import('./sources-db.ts');
  const curves = await loadFromStore(arg, opts);
  return { ...curves, agentic: await storedAgenticPoints(arg, opts) };
}

/** The agentic points of a stored run id or `official`. */
async function storedAgenticPoints(arg: string, opts: LoadOptions): Promise<AgenticCurvePoint[]> {
  const [{ openStore, defaultDbUrl }, { agenticPoints }] = await Promise.all([
    import('../store/db.ts'),
    import('../store/agentic-queries.ts'),
  ]);
  // The fixed-seq-len loader has already looked the argument up (and said what is wrong with it).
  const store = await openStore(opts.db ?? defaultDbUrl());
  try {
    return await agenticPoints(store, arg === 'official' ? { status: 'official' } : { runId: arg });
  } finally {
    await store.close();
  }
}
