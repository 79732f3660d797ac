import { accelerator, RUNNER_SUFFIXES } from '../catalog/index.ts';
import type { ConfigIdentity, EngineKind, Pool } from '../schema/curve.ts';
import type { KvOffloadBackend } from '../schema/master-config.ts';
import {
  type AgenticRow,
  type FixedRow,
  isFixed,
  isMultiNode,
  type MatrixRow,
  type RowWorker,
} from '../schema/matrix-row.ts';
import type { PointSpec } from '../schema/run-dir.ts';
import { rowWorkloadKind, type WorkloadKind } from '../schema/workload.ts';

/**
 * The identity of a point and of its curve from a matrix row (one serving deployment on one workload), and
 * their canonical keys, by the workload's kind. Shared by store (ingest) and analysis (run-directory
 * source): one mapping, one key.
 */

export type { AgenticRow, FixedRow };

/**
 * Suffixes stripped besides the catalog's: the reference's compare also drops `-trt` (client-metrics §8.1),
 * and its ingest `-amd`, `-nvs` and `-nvd` (dashboard-spec §3.3).
 */
const EXTRA_SUFFIXES = ['trt', 'amd', 'nvs', 'nvd'];

/**
 * The base GPU key of a runner label: lower-case, without `cluster:`, the `_N` node index and the site and
 * purpose suffixes (`cluster:gb300-nv` → gb300, `h100-dgxc-slurm_03` → h100, `mi355x-disagg` → mi355x,
 * `h200-trt` → h200). A label the catalog does not know keeps what is left after stripping.
 */
export function hardwareKey(runner: string): string {
  let key = hardwareKeys.get(runner);
  if (key === undefined) {
    key = resolveHardware(runner);
    hardwareKeys.set(runner, key);
  }
  return key;
}

/** Runner labels seen, resolved once each: a 10,000-point run has a handful of runners. */
const hardwareKeys = new Map<string, string>();

function resolveHardware(runner: string): string {
  let s = runner.trim().toLowerCase();
  if (s.startsWith('cluster:')) s = s.slice('cluster:'.length);
  s = s.replace(/_\d+$/, '');
  for (;;) {
    try {
      return accelerator(s).id;
    } catch {
      // Not in the catalog as it stands: strip one more known suffix, if any.
    }
    const dash = s.lastIndexOf('-');
    const suffix = s.slice(dash + 1);
    if (dash <= 0 || !(RUNNER_SUFFIXES.includes(suffix) || EXTRA_SUFFIXES.includes(suffix))) return s;
    s = s.slice(0, dash);
  }
}

/** GPUs of a pool: workers × TP × PP × PCP (DCP reuses the TP GPUs), as src/matrix/gpus.ts counts them. */
function workerPool(w: RowWorker): Pool {
  return {
    tp: w.tp,
    ep: w.ep,
    dpAttn: w['dp-attn'],
    pp: w.pp,
    dcp: w['dcp-size'],
    pcp: w['pcp-size'],
    workers: w['num-worker'],
    gpus: w['num-worker'] * w.tp * w.pp * w['pcp-size'],
  };
}

/** The serving deployment of a row, whatever its workload. Single-node: both pools describe the one server. */
function deployment(row: MatrixRow) {
  const common = {
    model: row['model-prefix'],
    hardware: hardwareKey(row.runner),
    framework: row.framework,
    precision: row.precision,
    specDecoding: row['spec-decoding'],
  };
  if (isMultiNode(row)) {
    return {
      ...common,
      disagg: row.disagg,
      multiNode: true,
      prefill: workerPool(row.prefill),
      decode: workerPool(row.decode),
    };
  }
  const pool: Pool = {
    tp: row.tp,
    ep: row.ep,
    dpAttn: row['dp-attn'],
    pp: row.pp,
    dcp: row['dcp-size'],
    pcp: row['pcp-size'],
    workers: 0,
    gpus: row.tp * row.pp * row['pcp-size'],
  };
  return { ...common, disagg: false, multiNode: false, prefill: pool, decode: { ...pool } };
}

/** The identity of a fixed-seq-len row. Single-node: both pools describe the one server, with workers 0. */
export function configIdentity(row: FixedRow): ConfigIdentity {
  return { ...deployment(row), isl: row.isl, osl: row.osl };
}

const poolKey = (p: Pool) =>
  `tp${p.tp}-ep${p.ep}-dpa${p.dpAttn ? 1 : 0}-pp${p.pp}-dcp${p.dcp}-pcp${p.pcp}-w${p.workers}-g${p.gpus}`;

const deploymentFields = (id: Omit<ConfigIdentity, 'isl' | 'osl'>) => [
  id.model,
  id.hardware,
  id.framework,
  id.precision,
  id.specDecoding,
  id.disagg ? 'disagg' : 'agg',
  id.multiNode ? 'mn' : 'sn',
  poolKey(id.prefill),
  poolKey(id.decode),
];

/**
 * Ends the config key of a simulated result: simulated and real results of one deployment are two curves,
 * so a simulated curve never merges with a real one, never replaces one in `latest_results`, and is never
 * matched with one by `infx compare`. Real keys carry no suffix (they are the keys stored before engines
 * were recorded).
 */
export const SIMULATED_KEY_SUFFIX = '|sim';

/**
 * The canonical key of an identity measured on an engine of `engine`'s kind: every field, in a fixed order,
 * `|`-separated, e.g. `dsr1|h200|sglang|fp8|none|agg|sn|tp8-ep1-dpa0-pp1-dcp1-pcp1-w0-g8|tp8-…|1024|1024`,
 * and `|sim` after it for a simulated result. Stable across runs and versions: change it only with a
 * migration of stored keys (0002_engine added the suffix).
 */
export function configKey(id: ConfigIdentity, engine: EngineKind): string {
  const key = [...deploymentFields(id), id.isl, id.osl].join('|');
  return engine === 'simulated' ? key + SIMULATED_KEY_SUFFIX : key;
}

/** The engine kind a config key stands for. */
export const keyEngine = (key: string): EngineKind =>
  key.endsWith(SIMULATED_KEY_SUFFIX) ? 'simulated' : 'real';

/** The key of the deployment whatever served it: the same for its simulated and its real curve. */
export const deploymentKey = (key: string): string =>
  key.endsWith(SIMULATED_KEY_SUFFIX) ? key.slice(0, -SIMULATED_KEY_SUFFIX.length) : key;

/**
 * The identity of an agentic-coding curve, as the reference stores one (client-metrics §7.6, dashboard-spec
 * §4.14, changelog-pr-spec's agentic key): benchmark type `agentic_traces`, no input or output length (a
 * replay has none), the deployment, and its KV offload, which is part of what was measured (a DRAM tier
 * holds more sessions' prefixes).
 */
export interface AgenticIdentity extends Omit<ConfigIdentity, 'isl' | 'osl'> {
  benchmarkType: 'agentic_traces';
  isl: null;
  osl: null;
  offload: { mode: 'none' | 'dram'; backend: KvOffloadBackend | null };
}

export const isAgenticRow = (row: MatrixRow): row is AgenticRow => rowWorkloadKind(row) === 'agentic-coding';

export function agenticIdentity(row: AgenticRow): AgenticIdentity {
  const mode = row['kv-offloading'];
  return {
    ...deployment(row),
    benchmarkType: 'agentic_traces',
    isl: null,
    osl: null,
    // The backend counts only when something is offloaded, as in the reference's key.
    offload: { mode, backend: mode === 'none' ? null : (row['kv-offload-backend'] ?? null) },
  };
}

/** An agentic identity's KV offload as its key writes it, without the `kv`: `none`, `dram-hicache@1.2`. */
export function offloadLabel(id: AgenticIdentity): string {
  const b = id.offload.backend;
  return b === null ? id.offload.mode : `${id.offload.mode}-${b.name}${b.version ? `@${b.version}` : ''}`;
}

/**
 * The canonical key of an agentic identity: the fixed key's deployment fields, then `agentic_traces` where
 * a fixed key has its lengths (so the two never meet), then the offload (`kvnone`, `kvdram-hicache@1.2`),
 * and `|sim` for a simulated result.
 */
export function agenticConfigKey(id: AgenticIdentity, engine: EngineKind): string {
  const key = [...deploymentFields(id), id.benchmarkType, `kv${offloadLabel(id)}`].join('|');
  return engine === 'simulated' ? key + SIMULATED_KEY_SUFFIX : key;
}

/**
 * A planned point's identity, chosen by its workload's kind: its curve and its concurrency (for an agentic
 * point, the users: live trajectory trees, not requests in flight). Null when the point's row and bench are
 * of different kinds (a plan written by hand), which names no curve.
 */
export type PointIdentity =
  | { kind: 'fixed-seq-len'; config: ConfigIdentity; conc: number }
  | { kind: 'agentic-coding'; config: AgenticIdentity; conc: number };

export function pointIdentity(spec: Pick<PointSpec, 'row' | 'bench' | 'conc'>): PointIdentity | null {
  const { row, conc } = spec;
  const kind: WorkloadKind = spec.bench.kind;
  switch (kind) {
    case 'fixed-seq-len':
      return isFixed(row) ? { kind, config: configIdentity(row), conc } : null;
    case 'agentic-coding':
      return isAgenticRow(row) ? { kind, config: agenticIdentity(row), conc } : null;
  }
}

/** The key of a point identity's curve. */
export const pointConfigKey = (id: PointIdentity, engine: EngineKind): string =>
  id.kind === 'fixed-seq-len' ? configKey(id.config, engine) : agenticConfigKey(id.config, engine);
