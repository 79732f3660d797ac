import type { ConfigEntry, MasterConfigs } from '../config/load.ts';
import type {
  AgenticCodingConfig,
  AgenticSearchSpace,
  MasterEntry,
  MultiNodeSearchSpace,
  ScenarioType,
  SingleNodeSearchSpace,
  WorkerConfig,
} from '../schema/master-config.ts';
import type {
  MatrixRow,
  MultiNodeAgenticRow,
  MultiNodeFixedRow,
  RowWorker,
  SingleNodeAgenticRow,
  SingleNodeFixedRow,
} from '../schema/matrix-row.ts';
import type { RunnerConfig } from '../schema/runners.ts';
import {
  agenticConcs,
  type ConcFilters,
  multiNodeFixedConcs,
  singleNodeFixedConcs,
  testConfigConcs,
} from './concurrency.ts';
import { type DramRequest, totalCpuDramGb } from './dram.ts';
import { MatrixError } from './errors.ts';
import { expandConfigKeys } from './keys.ts';
import { MAX_MATRIX_ROWS, TooManyRowsError } from './limits.ts';
import {
  maxModelLen,
  multiNodeAgenticExpName,
  SEQ_LENS,
  type SeqLenName,
  seqLenName,
  singleNodeAgenticExpName,
} from './naming.ts';
import { fullSweepRunners, testConfigRunners } from './runners.ts';

/** Expanding master configs into matrix rows, as the reference's full-sweep and test-config do (matrix-spec §5–6). */

/** Every generated agentic row asks for an hour of trace replay; only workflows override it. */
export const AGENTIC_DURATION_S = 3600;

export interface CommonOptions {
  runnerNodeFilter?: string | undefined;
  scenarioTypes?: readonly ScenarioType[] | undefined;
  seqLens?: readonly SeqLenName[] | undefined;
}

export interface FullSweepOptions extends CommonOptions {
  modelPrefix?: readonly string[] | undefined;
  precision?: readonly string[] | undefined;
  framework?: readonly string[] | undefined;
  runnerType?: readonly string[] | undefined;
  stepSize?: number | undefined;
  minConc?: number | undefined;
  maxConc?: number | undefined;
  maxTp?: number | undefined;
  maxEp?: number | undefined;
  singleNode?: boolean | undefined;
  multiNode?: boolean | undefined;
}

export interface TestConfigOptions extends CommonOptions {
  configKeys: readonly string[];
  conc?: readonly number[] | undefined;
}

/** How one subcommand picks concurrencies and runners; the row builders are shared. */
interface Expansion {
  runners(label: string): string[];
  singleFixed(e: SingleNodeSearchSpace): { concs: number[]; ep: number } | undefined;
  multiFixed(e: MultiNodeSearchSpace): number[] | undefined;
  agentic(e: AgenticSearchSpace): number[] | undefined;
}

/** The source worker dict in its own key order, with pp/dcp-size/pcp-size filled in at the end. */
function fillWorker(w: WorkerConfig): RowWorker {
  const out = { ...w } as RowWorker;
  out.pp ??= 1;
  out['dcp-size'] ??= 1;
  out['pcp-size'] ??= 1;
  return out;
}

type Components = { router?: unknown; 'kv-p2p-transfer'?: unknown };

/**
 * Appends `router` and `kv-p2p-transfer` (in that order, after the other fields): the search-space
 * value first, else the config's top level; absent when neither sets it.
 */
function addComponents(
  row: Record<string, unknown>,
  entry: Components,
  config: Components,
  withP2p: boolean,
): void {
  const router = entry.router ?? config.router;
  if (router != null) row.router = router;
  if (!withP2p) return;
  const p2p = entry['kv-p2p-transfer'] ?? config['kv-p2p-transfer'];
  if (p2p != null) row['kv-p2p-transfer'] = p2p;
}

/** Appends the config's rows to `rows` (which may already hold other configs' rows); returns how many. */
function generateConfig(
  ce: ConfigEntry,
  runnersCfg: RunnerConfig,
  x: Expansion,
  opts: CommonOptions,
  rows: MatrixRow[],
): number {
  const c = ce.entry;
  const runners = x.runners(c.runner);
  if (runners.length === 0) return 0;
  const before = rows.length;
  const add = (row: MatrixRow) => {
    if (rows.length >= MAX_MATRIX_ROWS) throw new TooManyRowsError(ce.key, ce.file);
    rows.push(row);
  };
  const wanted = (t: ScenarioType) => !opts.scenarioTypes || opts.scenarioTypes.includes(t);
  const seqAllowed = (isl: number, osl: number) =>
    !opts.seqLens || opts.seqLens.some((n) => SEQ_LENS[n][0] === isl && SEQ_LENS[n][1] === osl);
  const prefix = c['model-prefix'];

  if (wanted('fixed-seq-len')) {
    for (const item of c.scenarios['fixed-seq-len'] ?? []) {
      const { isl, osl } = item;
      if (!seqAllowed(isl, osl)) continue;
      const expName = `${prefix}_${seqLenName(isl, osl)}`;
      const modelLen = maxModelLen(isl, osl);
      for (const raw of item['search-space']) {
        if (c.multinode) {
          const e = raw as MultiNodeSearchSpace;
          const concs = x.multiFixed(e);
          if (!concs) continue;
          for (const runner of runners) {
            const row: MultiNodeFixedRow = {
              image: c.image,
              model: c.model,
              'model-prefix': prefix,
              precision: c.precision,
              framework: c.framework,
              runner,
              isl,
              osl,
              'spec-decoding': e['spec-decoding'] ?? 'none',
              prefill: fillWorker(e.prefill),
              decode: fillWorker(e.decode),
              conc: [...concs],
              'max-model-len': modelLen,
              'exp-name': expName,
              disagg: c.disagg ?? false,
              'run-eval': false,
            };
            addComponents(row, e, c, true);
            add(row);
          }
        } else {
          const e = raw as SingleNodeSearchSpace;
          const sel = x.singleFixed(e);
          if (!sel) continue;
          for (const conc of sel.concs) {
            for (const runner of runners) {
              const row: SingleNodeFixedRow = {
                image: c.image,
                model: c.model,
                'model-prefix': prefix,
                precision: c.precision,
                framework: c.framework,
                runner,
                isl,
                osl,
                tp: e.tp,
                pp: e.pp ?? 1,
                'dcp-size': e['dcp-size'] ?? 1,
                'pcp-size': e['pcp-size'] ?? 1,
                conc,
                'max-model-len': modelLen,
                ep: sel.ep,
                'dp-attn': e['dp-attn'] ?? false,
                'spec-decoding': e['spec-decoding'] ?? 'none',
                'exp-name': expName,
                disagg: false,
                'run-eval': false,
              };
              addComponents(row, e, c, false);
              add(row);
            }
          }
        }
      }
    }
  }

  if (wanted('agentic-coding')) {
    (c.scenarios['agentic-coding'] ?? []).forEach((item, i) => {
      item['search-space'].forEach((e, j) => {
        const concs = x.agentic(e);
        if (!concs) return;
        try {
          if (c.multinode) multiNodeAgenticRows(c, runnersCfg, item, e, concs, runners, add);
          else singleNodeAgenticRows(c, runnersCfg, item, e, concs, runners, add);
        } catch (err) {
          // The DRAM budget is only checked here; say which entry of which config asked for it.
          if (!(err instanceof MatrixError) || err instanceof TooManyRowsError) throw err;
          throw new MatrixError(
            `${err.message} (config '${ce.key}' in ${ce.file}, scenarios.agentic-coding[${i}].search-space[${j}])`,
          );
        }
      });
    });
  }
  return rows.length - before;
}

/** Host DRAM for KV offload; the runner's hardware facts are only consulted when the point offloads to DRAM. */
function dramBudget(
  c: MasterEntry,
  runnersCfg: RunnerConfig,
  item: AgenticCodingConfig,
  kv: string,
  topology: Pick<DramRequest, 'tp' | 'pp' | 'pcp' | 'multiNode'>,
): number {
  if (kv !== 'dram') return 0;
  return totalCpuDramGb(runnersCfg, {
    runner: c.runner,
    utilization: item['dram-utilization']!,
    ...topology,
  });
}

function singleNodeAgenticRows(
  c: MasterEntry,
  runnersCfg: RunnerConfig,
  item: AgenticCodingConfig,
  e: AgenticSearchSpace,
  concs: number[],
  runners: string[],
  add: (row: SingleNodeAgenticRow) => void,
): void {
  const tp = e.tp!;
  const pp = e.pp ?? 1;
  const pcp = e['pcp-size'] ?? 1;
  const kv = e['kv-offloading'] ?? 'none';
  const spec = e['spec-decoding'] ?? 'none';
  const backend = e['kv-offload-backend'];
  const dram = dramBudget(c, runnersCfg, item, kv, { tp, pp, pcp, multiNode: false });
  for (const conc of concs) {
    for (const runner of runners) {
      const row: SingleNodeAgenticRow = {
        image: c.image,
        model: c.model,
        'model-prefix': c['model-prefix'],
        precision: c.precision,
        framework: c.framework,
        runner,
        tp,
        pp,
        'dcp-size': e['dcp-size'] ?? 1,
        'pcp-size': pcp,
        ep: e.ep ?? 1,
        'dp-attn': e['dp-attn'] ?? false,
        'spec-decoding': spec,
        conc,
        'kv-offloading': kv,
        'total-cpu-dram-gb': dram,
        duration: AGENTIC_DURATION_S,
        'exp-name': singleNodeAgenticExpName(c['model-prefix'], tp, conc, kv, backend, spec),
        'scenario-type': 'agentic-coding',
      };
      if (backend != null) row['kv-offload-backend'] = backend;
      addComponents(row, e, c, false);
      add(row);
    }
  }
}

function multiNodeAgenticRows(
  c: MasterEntry,
  runnersCfg: RunnerConfig,
  item: AgenticCodingConfig,
  e: AgenticSearchSpace,
  concs: number[],
  runners: string[],
  add: (row: MultiNodeAgenticRow) => void,
): void {
  const prefill = fillWorker(e.prefill!);
  const decode = fillWorker(e.decode!);
  const kv = e['kv-offloading'] ?? 'none';
  const backend = e['kv-offload-backend'];
  // Only prefill offloads KV to host DRAM; decode does not.
  const dram = dramBudget(c, runnersCfg, item, kv, {
    tp: prefill.tp,
    pp: prefill.pp,
    pcp: prefill['pcp-size'],
    multiNode: true,
  });
  for (const runner of runners) {
    // One concurrency per allocation: a multi-node agentic point holds its nodes for the whole replay.
    for (const conc of concs) {
      const row: MultiNodeAgenticRow = {
        image: c.image,
        model: c.model,
        'model-prefix': c['model-prefix'],
        precision: c.precision,
        framework: c.framework,
        runner,
        'spec-decoding': e['spec-decoding'] ?? 'none',
        prefill: { ...prefill },
        decode: { ...decode },
        conc: [conc],
        'kv-offloading': kv,
        'total-cpu-dram-gb': dram,
        duration: AGENTIC_DURATION_S,
        'exp-name': multiNodeAgenticExpName(c['model-prefix'], prefill, decode, [conc], kv, backend),
        disagg: c.disagg ?? false,
        'scenario-type': 'agentic-coding',
      };
      if (backend != null) row['kv-offload-backend'] = backend;
      addComponents(row, e, c, true);
      add(row);
    }
  }
}

/** Flag combinations full-sweep rejects before reading any file, as the reference does. */
export function checkFullSweepOptions(opts: FullSweepOptions): void {
  if ((opts.stepSize ?? 2) <= 1) throw new MatrixError('--step-size must be greater than 1', { usage: true });
  if (opts.minConc !== undefined && opts.maxConc !== undefined && opts.minConc > opts.maxConc) {
    throw new MatrixError('--min-conc must be less than or equal to --max-conc', { usage: true });
  }
}

export function fullSweep(
  configs: MasterConfigs,
  runners: RunnerConfig,
  opts: FullSweepOptions,
  onKey?: (key: string) => void,
): MatrixRow[] {
  checkFullSweepOptions(opts);
  const step = opts.stepSize ?? 2;
  if (opts.runnerType) {
    const invalid = [...new Set(opts.runnerType.filter((r) => !(r in runners.labels)))];
    if (invalid.length > 0) {
      const valid = Object.keys(runners.labels).sort().join(', ');
      throw new MatrixError(
        `Invalid runner type(s): {${invalid.map((r) => `'${r}'`).join(', ')}}. Valid runner types are: ${valid}`,
      );
    }
  }
  const bothNodeTypes = !opts.singleNode && !opts.multiNode;
  const filters: ConcFilters = { minConc: opts.minConc, maxConc: opts.maxConc };
  const x: Expansion = {
    runners: (label) => fullSweepRunners(runners, label, opts.runnerNodeFilter),
    singleFixed(e) {
      if (opts.maxTp !== undefined && (opts.maxTp <= 0 || e.tp > opts.maxTp)) return undefined;
      let ep = e.ep ?? 1;
      if (opts.maxEp !== undefined) {
        if (opts.maxEp <= 0) return undefined;
        if (e.ep != null && e.ep > opts.maxEp) ep = opts.maxEp;
      }
      const concs = singleNodeFixedConcs(e, step, filters);
      return concs ? { concs, ep } : undefined;
    },
    multiFixed: (e) => multiNodeFixedConcs(e, step, filters),
    agentic: (e) => agenticConcs(e, step, filters),
  };
  const rows: MatrixRow[] = [];
  for (const ce of configs.entries) {
    const c = ce.entry;
    if (opts.modelPrefix && !opts.modelPrefix.some((p) => ce.key.startsWith(p))) continue;
    if (opts.precision && !opts.precision.includes(c.precision)) continue;
    if (opts.framework && !opts.framework.includes(c.framework)) continue;
    if (opts.runnerType && !opts.runnerType.includes(c.runner)) continue;
    if (!bothNodeTypes && !(c.multinode ? opts.multiNode : opts.singleNode)) continue;
    if (generateConfig(ce, runners, x, opts, rows) > 0) onKey?.(ce.key);
  }
  return rows;
}

export function testConfig(
  configs: MasterConfigs,
  runners: RunnerConfig,
  opts: TestConfigOptions,
  onKey?: (key: string) => void,
): MatrixRow[] {
  const keys = expandConfigKeys(
    opts.configKeys,
    configs.entries.map((e) => e.key),
  );
  const x: Expansion = {
    runners: (label) => testConfigRunners(runners, label, opts.runnerNodeFilter),
    singleFixed(e) {
      const concs = testConfigConcs(e, opts.conc);
      return concs && concs.length > 0 ? { concs, ep: e.ep ?? 1 } : undefined;
    },
    multiFixed: (e) => {
      const concs = testConfigConcs(e, opts.conc);
      return concs && concs.length > 0 ? concs : undefined;
    },
    agentic: (e) => testConfigConcs(e, opts.conc),
  };
  const rows: MatrixRow[] = [];
  for (const k of keys) if (generateConfig(configs.byKey.get(k)!, runners, x, opts, rows) > 0) onKey?.(k);
  return rows;
}
