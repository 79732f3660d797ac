import { CatalogError, model as catalogModel, findAccelerator } from '../../catalog/index.ts';
import { PRECISIONS, type Precision } from '../../schema/catalog.ts';
import { InfxError } from '../../schema/errors.ts';
import { isAggregate, type RowSetup } from './aggregate.ts';
import { pointCaveats } from './caveats.ts';
import { type SimSetup, SimSetupError } from './config.ts';
import type { DisaggSetup } from './disagg.ts';
import { engineFamily, type KvCacheDtype, schedulerProfile } from './engine-profile.ts';
import type { EngineChoice } from './fast-engine.ts';
import {
  defaultMeasured,
  PredictError,
  type PredictMethod,
  type PredictResult,
  predictPoint,
} from './predict.ts';
import { predictDisagg } from './predict-disagg.ts';
import { predictReplicas } from './predict-replicas.ts';
import { rowKvProfile } from './script-kv.ts';
import { SpecConfigError, type SpecDecodingConfig } from './spec-decode.ts';
import { SpecRecipeError, specOfRow } from './spec-recipe.ts';
import {
  trtAdpTimeoutIters,
  trtKvMemoryFraction,
  trtPiecewiseCudaGraphs,
  trtScriptBudget,
} from './trt-recipe.ts';
import { unsteadyParts } from './window-halves.ts';

/**
 * Matrix rows (the generator's JSON) to predictions: one point per row and concurrency. Single-node
 * fixed-seq-len rows are predicted, single-node and multi-node (disaggregated rows through the prefill/decode
 * cluster); agentic rows are reported unsupported.
 */

export interface PredictRowsOptions extends RowSetupOptions {
  rangeRatio?: number;
  seed?: number;
  /** steady (default) or as-measured (what infx bench reports; see predict.ts). */
  method?: PredictMethod;
  /** As measured: requests per point (default 10 × concurrency). */
  numPrompts?: number;
  /** The steady method's engine (predict.ts): auto (default), fast or exact. */
  engine?: EngineChoice;
  /** Queue folding past saturation (queue-fold.ts); default true. */
  fold?: boolean;
}

/** What a row does not say about the engine: memory budget, KV dtype and speculative-decoding shape. */
export interface RowSetupOptions {
  gpuMemoryUtilization?: number;
  /** auto (default): the framework's rule for the row's precision (engine-profile.ts). */
  kvCacheDtype?: KvCacheDtype;
  draftTokens?: number;
  acceptanceLength?: number;
  /**
   * A single engine's piecewise CUDA graphs (SimSetup.piecewiseCudaGraphs); default: the reference's script
   * rule for the point (trt-recipe.ts). For a measurement taken under an older script.
   */
  piecewiseCudaGraphs?: boolean;
  /**
   * A single engine's token budget per DP rank (TensorRT-LLM's `max_num_tokens`), for a measurement taken
   * under a script that set it; default: the framework's (engine-profile.ts) or the MTP scripts' rule.
   */
  maxNumTokensPerRank?: number;
}

export interface PointIdentity {
  row: number;
  expName: string;
  model: string;
  runner: string;
  framework: string;
  precision: string;
  tp: number | null;
  ep: number | null;
  dpAttn: boolean | null;
  pp: number | null;
  isl: number | null;
  osl: number | null;
  conc: number | null;
  specDecoding: string;
  /** Multi-node rows: workers × parallelism of each pool, e.g. `1P tp4 / 2D tp8 ep8`. */
  pools: string | null;
}

export type PointOutcome =
  | (PointIdentity & {
      status: 'ok';
      prediction: PredictResult;
      acceptanceLength: number | null;
      /** Which way a figure is known to err, and why (caveats.ts); empty when none is known. */
      caveats: string[];
    })
  | (PointIdentity & { status: 'unsupported'; reason: string })
  | (PointIdentity & { status: 'error'; reason: string });

export class RowsError extends InfxError {
  override name = 'RowsError';
}

type Row = Record<string, unknown>;
const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (r: Row, k: string) => (typeof r[k] === 'string' ? (r[k] as string) : '');
const int = (r: Row, k: string) => (Number.isInteger(r[k]) ? (r[k] as number) : null);

function identity(r: Row, index: number, conc: number | null): PointIdentity {
  return {
    row: index,
    expName: str(r, 'exp-name'),
    model: str(r, 'model') || str(r, 'model-prefix'),
    runner: str(r, 'runner'),
    framework: str(r, 'framework'),
    precision: str(r, 'precision'),
    tp: int(r, 'tp'),
    ep: int(r, 'ep'),
    dpAttn: typeof r['dp-attn'] === 'boolean' ? (r['dp-attn'] as boolean) : null,
    pp: int(r, 'pp'),
    isl: int(r, 'isl'),
    osl: int(r, 'osl'),
    conc,
    specDecoding: str(r, 'spec-decoding') || 'none',
    pools:
      isRecord(r.prefill) && isRecord(r.decode)
        ? `${poolText(r.prefill, 'P')} / ${poolText(r.decode, 'D')}`
        : null,
  };
}

function poolText(p: Row, role: string): string {
  const ep = int(p, 'ep');
  return `${int(p, 'num-worker') ?? '?'}${role} tp${int(p, 'tp') ?? '?'}${ep && ep > 1 ? ` ep${ep}` : ''}${p['dp-attn'] === true ? ' dp-attn' : ''}`;
}

/** The model a row names: its `model` checkpoint, else its `model-prefix`; the CatalogError of `model`. */
function rowModel(r: Row): string {
  const name = str(r, 'model');
  const prefix = str(r, 'model-prefix');
  try {
    return catalogModel(name || prefix).id;
  } catch (err) {
    if (!(err instanceof CatalogError) || !prefix || !name) throw err;
    try {
      return catalogModel(prefix).id;
    } catch {
      throw err;
    }
  }
}

function unsupported(r: Row): string | null {
  if (r['scenario-type'] === 'agentic-coding') {
    return 'agentic rows have no fixed ISL/OSL: not predicted (fixed-seq-len rows only)';
  }
  return null;
}

function requireInt(r: Row, k: string, where: string, dflt?: number): number {
  const v = r[k] ?? dflt;
  if (!Number.isInteger(v) || (v as number) < 1) {
    throw new RowsError(`${where}: '${k}' must be an integer >= 1, got ${JSON.stringify(r[k])}`);
  }
  return v as number;
}

/**
 * A matrix row as the engine(s) it describes: a single-node row is one engine; a multi-node row with a
 * decode pool is a disaggregated cluster (each pool with its own workers and parallelism); a multi-node
 * row without one (decode num-worker 0) is an aggregated pool of num-worker identical engines with the
 * prefill entry's parallelism (one engine when num-worker is 1). Shared by predict and `sim serve --point`.
 */
export function setupOfRow(r: Row, opts: RowSetupOptions = {}, where = 'row', conc?: number): RowSetup {
  const precision = str(r, 'precision');
  if (!(PRECISIONS as readonly string[]).includes(precision)) {
    throw new RowsError(`${where}: precision '${precision}' is not one of ${PRECISIONS.join(', ')}`);
  }
  const method = str(r, 'spec-decoding') || 'none';
  let spec: SpecDecodingConfig | null = null;
  if (method === 'mtp' || method === 'draft_model') {
    const shape = specOfRow(r, method, opts, conc, where);
    spec = { method, draftTokens: shape.draftTokens, acceptanceLength: shape.acceptanceLength };
  } else if (method !== 'none') {
    throw new RowsError(`${where}: unknown spec-decoding '${method}'`);
  }
  const profile = rowKvProfile(r, opts.kvCacheDtype);
  const engine = (p: Row, name: string): SimSetup => {
    const tp = requireInt(p, 'tp', name);
    const dpAttn = p['dp-attn'] === true;
    const hardware = str(p, 'hardware') || str(r, 'runner');
    const sched = schedulerProfile(
      engineFamily(str(r, 'framework')),
      dpAttn ? tp : 1,
      str(r, 'framework'),
      memoryOf(hardware),
    );
    return {
      ...agenticCache(r, where),
      model: rowModel(r),
      hardware,
      precision: precision as Precision,
      kvPrecision: profile.kvPrecision,
      memoryFractionOf: profile.memoryFractionOf,
      tp,
      pp: requireInt(p, 'pp', name, 1),
      ep: requireInt(p, 'ep', name, 1),
      dpAttn,
      spec,
      maxNumBatchedTokens: sched.maxNumBatchedTokens,
      decodesInBudget: sched.decodesInBudget,
      engineFamily: profile.family,
      ...(opts.gpuMemoryUtilization !== undefined ? { gpuMemoryUtilization: opts.gpuMemoryUtilization } : {}),
    };
  };
  if (!isRecord(r.prefill) || !isRecord(r.decode)) {
    const one = engine(r, where);
    // A single TensorRT-LLM engine with DP-attention runs the recipes' attention-DP balancer. Disaggregated
    // workers' recipes are not the reference's scripts: they are left without it.
    return one.engineFamily === 'trt' && one.dpAttn
      ? { ...one, dpBalanceTimeoutSteps: trtAdpTimeoutIters(r).steps }
      : one;
  }
  const workers = (p: Row) => (Number.isInteger(p['num-worker']) ? (p['num-worker'] as number) : 1);
  if (workers(r.decode) === 0) {
    const one = engine(r.prefill, `${where} prefill`);
    const replicas = workers(r.prefill);
    if (replicas < 1) throw new RowsError(`${where}: no workers (prefill and decode num-worker are 0)`);
    return replicas === 1 ? one : { replicas, setup: one };
  }
  return {
    prefill: { workers: workers(r.prefill), setup: engine(r.prefill, `${where} prefill`) },
    decode: { workers: workers(r.decode), setup: engine(r.decode, `${where} decode`) },
  };
}

/** A GPU's memory for the frameworks' memory-dependent defaults; an unknown one fails later, by name (resolveSim). */
function memoryOf(hardware: string): number | undefined {
  return findAccelerator(hardware)?.memoryGiB;
}

/**
 * An agentic row's cache setup: prefix caching on (vLLM V1's default, and what a replay of growing
 * conversations exercises), and with `kv-offloading: dram` a host tier of `total-cpu-dram-gb` per engine
 * (the generator sizes it for one engine's GPUs, src/matrix/dram.ts).
 */
function agenticCache(r: Row, where: string): Pick<SimSetup, 'prefixCaching' | 'kvOffloadDramGb'> {
  if (r['scenario-type'] !== 'agentic-coding') return {};
  const mode = r['kv-offloading'] ?? 'none';
  if (mode === 'none') return { prefixCaching: true };
  if (mode !== 'dram') throw new RowsError(`${where}: unknown kv-offloading '${String(mode)}'`);
  const gb = r['total-cpu-dram-gb'];
  if (typeof gb !== 'number' || !Number.isInteger(gb) || gb < 1) {
    throw new RowsError(
      `${where}: kv-offloading 'dram' needs 'total-cpu-dram-gb' >= 1, got ${JSON.stringify(gb)}`,
    );
  }
  return { prefixCaching: true, kvOffloadDramGb: gb };
}

/**
 * A disaggregated point's batch caps, as a single engine's predictions have them (predict.ts): the recipe is
 * taken to let each worker run its share of the users (a row does not say; the engines' own defaults, 256
 * sequences, would queue a decode worker that serves thousands).
 */
export function withBatchCaps(setup: DisaggSetup, conc: number): DisaggSetup {
  const cap = (pool: DisaggSetup['prefill']) => ({
    ...pool,
    setup: {
      ...pool.setup,
      maxNumSeqs: pool.setup.maxNumSeqs ?? Math.max(256, Math.ceil(conc / pool.workers)),
    },
  });
  return { ...setup, prefill: cap(setup.prefill), decode: cap(setup.decode) };
}

/**
 * The token budget of the reference's single-node TensorRT-LLM script for the row (trt-recipe.ts), per DP
 * rank with DP-attention: the MTP scripts' leaves a rank room for about one prompt a step beside its
 * decodes. Rows no script covers keep the framework's budget.
 */
export function withTrtScriptBudget(setup: SimSetup, r: Row, conc: number): SimSetup {
  const b = trtScriptBudget(r, conc, setup.spec?.draftTokens ?? 0);
  if (!b) return setup;
  return { ...setup, maxNumBatchedTokens: b.perRank * (setup.dpAttn ? (setup.tp ?? 1) : 1) };
}

/**
 * A single engine as the reference's script runs it at one point: its token budget above, piecewise CUDA
 * graphs where the script turns them on (trt-recipe.ts) or the options say so, and the script's KV memory
 * fraction unless the options give one. Predict, explain and `sim serve --point` share it.
 */
export function singleEngineAt(setup: SimSetup, r: Row, conc: number, opts: RowSetupOptions): SimSetup {
  const budgeted =
    opts.maxNumTokensPerRank !== undefined
      ? { ...setup, maxNumBatchedTokens: opts.maxNumTokensPerRank * (setup.dpAttn ? (setup.tp ?? 1) : 1) }
      : withTrtScriptBudget(setup, r, conc);
  const piecewise = opts.piecewiseCudaGraphs ?? trtPiecewiseCudaGraphs(r, conc) !== null;
  const graphs = piecewise ? { ...budgeted, piecewiseCudaGraphs: true } : budgeted;
  const kv = opts.gpuMemoryUtilization === undefined ? trtKvMemoryFraction(r, conc) : null;
  return kv ? { ...graphs, gpuMemoryUtilization: kv.fraction } : graphs;
}

function predictRowPoint(r: Row, id: PointIdentity, opts: PredictRowsOptions): PointOutcome {
  const where = `row ${id.row}${id.expName ? ` (${id.expName})` : ''}`;
  const setup = setupOfRow(r, opts, where, id.conc!);
  const w = {
    isl: requireInt(r, 'isl', where),
    osl: requireInt(r, 'osl', where),
    concurrency: id.conc!,
    ...(opts.rangeRatio !== undefined ? { rangeRatio: opts.rangeRatio } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.method !== undefined ? { method: opts.method } : {}),
    ...(opts.numPrompts !== undefined ? { numPrompts: opts.numPrompts } : {}),
    ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
    ...(opts.fold !== undefined ? { fold: opts.fold } : {}),
  };
  const seed = opts.seed !== undefined ? { workloadSeed: opts.seed } : {};
  const prediction =
    'prefill' in setup
      ? predictDisagg(withBatchCaps(setup, w.concurrency), w)
      : isAggregate(setup)
        ? predictReplicas(setup.replicas, w.concurrency, (concurrency) =>
            predictPoint({ ...setup.setup, ...w, concurrency, ...seed }),
          )
        : predictPoint({ ...singleEngineAt(setup, r, w.concurrency, opts), ...w, ...seed });
  const spec =
    'prefill' in setup ? setup.prefill.setup.spec : isAggregate(setup) ? setup.setup.spec : setup.spec;
  const caveats = 'prefill' in setup || isAggregate(setup) ? [] : pointCaveats(setup);
  return { ...id, status: 'ok', prediction, acceptanceLength: spec?.acceptanceLength ?? null, caveats };
}

/** One point of a parsed matrix: a row (its index in the document) at one of its concurrencies. */
export interface MatrixPoint {
  row: Record<string, unknown>;
  index: number;
  conc: unknown;
}

/**
 * The points of a parsed matrix (an array of rows, or one row), in order: a row with several concurrencies
 * gives one point each. A malformed document throws RowsError.
 */
export function matrixPoints(doc: unknown): MatrixPoint[] {
  const rows = Array.isArray(doc) ? doc : [doc];
  return rows.flatMap((r, index) => {
    if (!isRecord(r))
      throw new RowsError(`row ${index}: expected a matrix row object, got ${JSON.stringify(r)}`);
    const concs = Array.isArray(r.conc) ? (r.conc as unknown[]) : [r.conc];
    return concs.map((conc) => ({ row: r, index, conc }));
  });
}

/**
 * The most requests one point may simulate. Time and memory grow with them (1,000,000 users, two million
 * requests steady: about a minute and 1.8 GB on one core), so a mistyped concurrency or --num-prompts gets
 * an error, not a machine out of memory.
 */
export const MAX_SIMULATED_REQUESTS = 4_194_304;

/** Refuses a point that would simulate more than MAX_SIMULATED_REQUESTS. */
function checkRequests(row: number, conc: number, opts: PredictRowsOptions): void {
  const asMeasured = opts.method === 'as-measured';
  // Steady: one warm-up completion per user, then the window; as measured: the prompts.
  const n = asMeasured ? (opts.numPrompts ?? 10 * conc) : conc + defaultMeasured(conc);
  if (n <= MAX_SIMULATED_REQUESTS) return;
  const what = asMeasured
    ? `${opts.numPrompts !== undefined ? '--num-prompts' : '10 × conc'} = ${n} requests`
    : `conc ${conc} needs ${n} requests (a warm-up and a window of whole cycles)`;
  throw new RowsError(
    `row ${row}: ${what}; a point simulates at most ${MAX_SIMULATED_REQUESTS} (lower the concurrency${asMeasured ? ' or --num-prompts' : ''})`,
  );
}

/** One point's outcome: catalog, setup and row errors become `error` outcomes (callers exit non-zero). */
export function predictMatrixPoint(p: MatrixPoint, opts: PredictRowsOptions = {}): PointOutcome {
  const c = p.conc;
  const id = identity(p.row as Row, p.index, Number.isInteger(c) ? (c as number) : null);
  const why = unsupported(p.row);
  if (why !== null) return { ...id, status: 'unsupported', reason: why };
  try {
    if (id.conc === null || id.conc < 1) {
      throw new RowsError(`row ${p.index}: 'conc' must be an integer >= 1 or a list of them`);
    }
    checkRequests(p.index, id.conc, opts);
    return predictRowPoint(p.row, id, opts);
  } catch (err) {
    const known = [
      CatalogError,
      SimSetupError,
      PredictError,
      RowsError,
      SpecRecipeError,
      SpecConfigError,
    ].some((E) => err instanceof E);
    if (!known) throw err;
    return { ...id, status: 'error', reason: (err as Error).message };
  }
}

/** Predicts every point of a parsed matrix (matrixPoints, predictMatrixPoint). */
export function predictRows(doc: unknown, opts: PredictRowsOptions = {}): PointOutcome[] {
  return matrixPoints(doc).map((p) => predictMatrixPoint(p, opts));
}

const fmt = (v: number, digits = 0) => v.toFixed(digits);

/** One line per point, for terminals and logs. */
export function formatOutcome(o: PointOutcome): string {
  const par =
    o.pools ??
    `tp${o.tp ?? '?'}${o.ep && o.ep > 1 ? ` ep${o.ep}` : ''}${o.dpAttn ? ' dp-attn' : ''}${o.pp && o.pp > 1 ? ` pp${o.pp}` : ''}`;
  const spec = o.specDecoding !== 'none' ? ` ${o.specDecoding}` : '';
  const head = [o.expName || o.model, o.runner, o.precision, o.framework, par + spec, `conc=${o.conc ?? '?'}`]
    .filter((x) => x !== '')
    .join(' ');
  if (o.status === 'unsupported') return `${head}: unsupported: ${o.reason}`;
  if (o.status === 'error') return `${head}: error: ${o.reason}`;
  const p = o.prediction;
  const s = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const notes = [
    `median; ${s(p.gpus, 'GPU')}${p.preemptions > 0 ? `, ${s(p.preemptions, 'preemption')}` : ''}`,
  ];
  if (p.fold)
    notes.push(
      `queue folded: ${p.fold.users} users simulated, ${fmt(p.fold.queueMs)} ms queued ${p.fold.place === 'before-first-token' ? 'before' : 'after'} the first token`,
    );
  const unsteady = unsteadyParts(p.halves);
  if (unsteady.length > 0) notes.push(`unsteady: the window's halves differ by ${unsteady.join(', ')}`);
  for (const c of o.caveats) notes.push(`caveat: ${c}`);
  // Every figure here comes from the simulated engine, never from hardware: the line says so.
  notes.push('simulated');
  return (
    `${head}: ${fmt(p.throughputPerGpu)} tok/s/GPU (${fmt(p.outputThroughputPerGpu)} output), ` +
    `${fmt(p.interactivity, 1)} tok/s/user, TTFT ${fmt(p.ttftMs.median)} ms, E2E ${fmt(p.e2eMs.median)} ms ` +
    `(${notes.join('; ')})`
  );
}
